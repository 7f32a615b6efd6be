/* proxy/http_body.h — where an HTTP/1.1 message body ends (RFC 9112 §6), found while the
 * bytes stream past.
 *
 * The broker relays bodies as they are (a chunked body stays chunked, byte for byte) but must
 * know where each one ends: to reuse a connection for the next request, to find a pipelined
 * request behind a body, and to stop a peer from passing more than one message. A Framer is
 * fed the bytes that follow a head and says how many of them belong to the body; the rest
 * belong to whatever comes next.
 * Chunked parsing is strict: hex sizes of at most 16 digits, CRLF everywhere (a bare LF or CR
 * is an error), extensions of printable bytes after ';' up to 4 KiB per line, trailer lines
 * (when allowed) up to 16 KiB in all. Whatever two parsers could read differently is an error.
 * Invariants: feed never consumes a byte past the end of the body; once done() or failed(),
 * feed consumes nothing; a Close body is done only through finish_at_eof().
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace tproxy {

class Framer {
public:
    enum class Kind { None, Length, Chunked, Close };

    static Framer none() { return Framer(Kind::None, 0); }
    static Framer length(uint64_t n) { return Framer(Kind::Length, n); }
    // allow_trailers false: a trailer field is an error (requests: see README).
    static Framer chunked(bool allow_trailers) { return Framer(Kind::Chunked, 0, allow_trailers); }
    static Framer until_close() { return Framer(Kind::Close, 0); }

    // How many of the n bytes at `data` belong to the body (all of them unless it ends inside).
    size_t feed(const char *data, size_t n);
    // The peer closed: a Close body ends well; any other unfinished body is truncated.
    void finish_at_eof();

    Kind kind() const { return kind_; }
    bool done() const { return state_ == State::Done; }
    bool failed() const { return state_ == State::Failed; }
    const char *error() const { return error_; }

private:
    enum class State {
        Size,
        Ext,
        SizeLf,
        Data,
        DataCr,
        DataLf,
        TrailerStart,
        Trailer,
        TrailerLf,
        LastLf,
        Raw,
        Done,
        Failed
    };
    Framer(Kind k, uint64_t n, bool trailers = false);
    bool step(char c);  // one byte of chunked framing; false on error
    bool fail(const char *why);
    bool chunk_size_digit(char c);
    bool end_of_size_line();

    Kind kind_;
    State state_;
    uint64_t left_ = 0;  // Length: bytes to go; Chunked Data: bytes of this chunk to go
    unsigned digits_ = 0;
    size_t line_ = 0;      // bytes of the current extension or trailer line
    size_t trailers_ = 0;  // bytes of trailers so far
    bool allow_trailers_;
    const char *error_ = "";
};

}  // namespace tproxy
