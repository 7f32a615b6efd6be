/* proxy/broker_reflect.h — recognising the injected value when an upstream sends it back.
 *
 * An upstream can reflect the request's credential: a header that echoes Authorization, a
 * reason phrase that quotes it, a redirect whose Location carries it. The broker relays
 * response heads through this check and drops what holds the value (broker_request.h).
 * Reflections are rarely verbatim, so a text "holds" the value when any of these does:
 *  - the text itself, compared case-insensitively (a lower-cased echo);
 *  - the text %-decoded, up to three times (a value in a URL, or one encoded twice);
 *  - base64 in either of them, standard or URL-safe alphabet, any case: the value at any
 *    offset inside the encoded bytes, as in Basic auth's base64("user:value").
 * Base64 is not decoded: for each of the three alignments of the value in the encoded bytes,
 * the encoding of its whole 3-byte groups is the same whatever surrounds it, so those
 * fragments are searched for. A fragment shorter than 8 characters (a value under 8 bytes)
 * is not used: it would match unrelated text. What stays out of reach: the body (relayed as
 * is), other encodings (hex, JSON \u escapes, compression), and a value split across headers.
 * Invariant: every needle is derived from the value and is wiped when the finder is destroyed.
 */
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tproxy {

class ValueFinder {
public:
    explicit ValueFinder(std::string_view value);
    ~ValueFinder();
    ValueFinder(const ValueFinder &) = delete;
    ValueFinder &operator=(const ValueFinder &) = delete;

    // Whether `text` holds the value in one of the forms above. Always false for an empty value.
    bool found_in(std::string_view text) const;

private:
    std::string value_;                // lower-cased
    std::vector<std::string> base64_;  // lower-cased fragments, both alphabets
};

}  // namespace tproxy
