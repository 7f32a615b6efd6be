// tests/fuzz/targets/fuzz_http_body.cpp — body framing (proxy/http_body.h): Content-Length,
// chunked with and without trailers, and read-until-close, on bytes an agent or an upstream
// sends. The first byte picks the framing (and a length), the second how the bytes are cut
// into reads; the rest is the stream after the head.
// Properties, for any bytes and any cutting:
//  - no crash, no undefined behaviour, no hang;
//  - feed never consumes more than it is given, and consumes everything while the body goes
//    on; once done() or failed() it consumes nothing more, and the two never hold together;
//  - the verdict does not depend on how the stream is cut into reads: all at once, byte by
//    byte and in the input's own cuts give the same body length and the same end;
//  - a Length body ends exactly after its length; a Close body only at EOF;
//  - a chunked body that ends, ends with CRLF, and no strict prefix of it ends (one message
//    is never two): fed the body less its last byte, the framer wants more, and EOF then is
//    an error (a truncated body).
#include <cstring>
#include <string>
#include <string_view>

#include "fuzz_target.h"
#include "http_body.h"

namespace {

using tproxy::Framer;

Framer make(uint8_t how, uint64_t length)
{
    switch (how % 4) {
    case 0: return Framer::length(length);
    case 1: return Framer::chunked(false);
    case 2: return Framer::chunked(true);
    default: return Framer::until_close();
    }
}

struct Verdict {
    size_t body = 0;  // bytes of the stream that belong to the body
    bool done = false;
    bool failed = false;
};

// Feeds `s` in reads of the sizes `cut` gives (cycled; a 0 is a read of nothing).
Verdict run(Framer f, std::string_view s, std::string_view cut)
{
    Verdict v;
    size_t at = 0, k = 0;
    while (at < s.size()) {
        size_t n = cut.empty() ? s.size() - at : static_cast<unsigned char>(cut[k++ % cut.size()]) % 17;
        if (n == 0 && !cut.empty()) {
            FUZZ_ASSERT(f.feed(s.data() + at, 0) == 0, "consumed from an empty read");
            n = 1;
        }
        if (n > s.size() - at)
            n = s.size() - at;
        bool was_over = f.done() || f.failed();
        size_t used = f.feed(s.data() + at, n);
        FUZZ_ASSERT(used <= n, std::to_string(used));
        FUZZ_ASSERT(!was_over || used == 0, "fed after the end");
        FUZZ_ASSERT(!(f.done() && f.failed()), "done and failed");
        v.body += used;
        if (f.done() || f.failed())
            break;
        FUZZ_ASSERT(used == n, "stopped inside the body");
        at += n;
        if (cut.empty())
            break;
    }
    if (f.done() || f.failed())
        FUZZ_ASSERT(f.feed(s.data(), s.size()) == 0, "fed after the end");
    v.done = f.done();
    v.failed = f.failed();
    if (f.failed())
        FUZZ_ASSERT(tartaros::fuzz::one_line(f.error()) && *f.error() != '\0', f.error());
    return v;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tartaros::fuzz::Bytes in(data, size);
    const uint8_t how = in.u8();
    const uint64_t length = in.u8() * 7u;
    const std::string cut = in.str(15);
    const std::string_view s = in.rest();
    const std::string one_byte(1, '\1');

    const Verdict whole = run(make(how, length), s, "");
    const Verdict bytes = run(make(how, length), s, one_byte);
    const Verdict cuts = run(make(how, length), s, cut);
    for (const Verdict &v : {bytes, cuts})
        FUZZ_ASSERT(v.body == whole.body && v.done == whole.done && v.failed == whole.failed,
                    std::to_string(v.body) + " vs " + std::to_string(whole.body));

    const Framer::Kind kind = make(how, length).kind();
    if (kind == Framer::Kind::Length) {
        FUZZ_ASSERT(whole.done == (s.size() >= length) && !whole.failed, std::to_string(length));
        FUZZ_ASSERT(whole.body == (s.size() < length ? s.size() : length), std::to_string(whole.body));
    }
    if (kind == Framer::Kind::Close) {
        FUZZ_ASSERT(!whole.done && !whole.failed && whole.body == s.size(), "a Close body ended early");
        Framer f = make(how, length);
        f.feed(s.data(), s.size());
        f.finish_at_eof();
        FUZZ_ASSERT(f.done(), "a Close body did not end at EOF");
    }
    if (kind == Framer::Kind::Chunked && whole.done) {
        const std::string_view body = s.substr(0, whole.body);
        FUZZ_ASSERT(body.size() >= 5 && body.substr(body.size() - 2) == "\r\n", std::string(body));
        Framer f = make(how, length);
        size_t used = f.feed(body.data(), body.size() - 1);
        FUZZ_ASSERT(used == body.size() - 1 && !f.done() && !f.failed(), std::string(body));
        f.finish_at_eof();
        FUZZ_ASSERT(f.failed(), "a truncated chunked body ended well at EOF");
    }
    if (kind == Framer::Kind::Chunked && !whole.done && !whole.failed) {
        Framer f = make(how, length);
        f.feed(s.data(), s.size());
        f.finish_at_eof();
        FUZZ_ASSERT(f.failed(), "an unfinished chunked body ended well at EOF");
    }
    return 0;
}
