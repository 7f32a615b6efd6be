/* proxy/http_body.cpp — body framing state machines (see http_body.h). */
#include "http_body.h"

namespace tproxy {
namespace {

constexpr unsigned kMaxSizeDigits = 16;
constexpr size_t kMaxExtLine = 4096;
constexpr size_t kMaxTrailers = 16384;

int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

bool printable(char c)
{
    return (c >= 0x20 && c <= 0x7e) || c == '\t';
}

}  // namespace

Framer::Framer(Kind k, uint64_t n, bool trailers) : kind_(k), left_(n), allow_trailers_(trailers)
{
    switch (k) {
    case Kind::None: state_ = State::Done; break;
    case Kind::Length: state_ = n == 0 ? State::Done : State::Raw; break;
    case Kind::Chunked: state_ = State::Size; break;
    case Kind::Close: state_ = State::Raw; break;
    }
}

bool Framer::fail(const char *why)
{
    state_ = State::Failed;
    error_ = why;
    return false;
}

size_t Framer::feed(const char *data, size_t n)
{
    if (state_ == State::Done || state_ == State::Failed)
        return 0;
    if (kind_ == Kind::Close)
        return n;
    if (kind_ == Kind::Length) {
        size_t take = left_ < n ? static_cast<size_t>(left_) : n;
        left_ -= take;
        if (left_ == 0)
            state_ = State::Done;
        return take;
    }
    size_t i = 0;
    while (i < n && state_ != State::Done && state_ != State::Failed) {
        if (state_ == State::Data) {
            // The chunk's data is taken in bulk; only the framing goes byte by byte.
            size_t take = left_ < n - i ? static_cast<size_t>(left_) : n - i;
            left_ -= take;
            i += take;
            if (left_ == 0)
                state_ = State::DataCr;
            continue;
        }
        if (!step(data[i]))
            return i;
        i++;
    }
    return i;
}

bool Framer::chunk_size_digit(char c)
{
    int v = hex_value(c);
    if (v < 0)
        return fail("malformed chunk size");
    if (++digits_ > kMaxSizeDigits)
        return fail("chunk size over 16 hex digits");
    left_ = left_ << 4 | static_cast<uint64_t>(v);
    return true;
}

bool Framer::end_of_size_line()
{
    if (digits_ == 0)
        return fail("chunk size missing");
    state_ = State::SizeLf;
    return true;
}

bool Framer::step(char c)
{
    switch (state_) {
    case State::Size:
        if (c == ';') {
            if (digits_ == 0)
                return fail("chunk size missing");
            state_ = State::Ext;
            line_ = 0;
            return true;
        }
        return c == '\r' ? end_of_size_line() : chunk_size_digit(c);
    case State::Ext:
        if (c == '\r') {
            state_ = State::SizeLf;
            return true;
        }
        if (!printable(c) || ++line_ > kMaxExtLine)
            return fail("malformed or oversized chunk extension");
        return true;
    case State::SizeLf:
        if (c != '\n')
            return fail("bare CR after a chunk size");
        digits_ = 0;
        state_ = left_ == 0 ? State::TrailerStart : State::Data;
        return true;
    case State::DataCr:
        if (c != '\r')
            return fail("chunk data longer than its size");
        state_ = State::DataLf;
        return true;
    case State::DataLf:
        if (c != '\n')
            return fail("bare CR after chunk data");
        state_ = State::Size;
        return true;
    case State::TrailerStart:
        if (c == '\r') {
            state_ = State::LastLf;
            return true;
        }
        if (!allow_trailers_)
            return fail("trailer fields are not accepted");
        state_ = State::Trailer;
        line_ = 0;
        [[fallthrough]];
    case State::Trailer:
        if (c == '\r') {
            state_ = State::TrailerLf;
            return true;
        }
        if (!printable(c) || ++trailers_ > kMaxTrailers)
            return fail("malformed or oversized trailer");
        if (line_++ == 0 && (c == ' ' || c == '\t'))
            return fail("folded trailer line");
        return true;
    case State::TrailerLf:
        if (c != '\n')
            return fail("bare CR in a trailer");
        state_ = State::TrailerStart;
        return true;
    case State::LastLf:
        if (c != '\n')
            return fail("bare CR at the end of a chunked body");
        state_ = State::Done;
        return true;
    default: return fail("internal framing state");
    }
}

void Framer::finish_at_eof()
{
    if (state_ == State::Done || state_ == State::Failed)
        return;
    if (kind_ == Kind::Close)
        state_ = State::Done;
    else
        fail("the peer closed before the end of the body");
}

}  // namespace tproxy
