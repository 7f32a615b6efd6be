// tests/fuzz/fuzz_check.cpp — the properties of fuzz_check.h, checked on one input.
#include "fuzz_check.h"

#include <exception>
#include <sstream>
#include <streambuf>

#include "diagnostics.h"
#include "frontend.h"
#include "print_policy.h"
#include "verify.h"

namespace tartaros::fuzz {

namespace {

// Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), as a .tart
// parser reads strings.
bool is_utf8(std::string_view text)
{
    for (size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        size_t extra = 0;
        uint32_t cp = 0, min = 0;
        if (byte < 0x80) {
            ++i;
            continue;
        }
        if ((byte & 0xE0) == 0xC0) {
            extra = 1;
            cp = byte & 0x1F;
            min = 0x80;
        } else if ((byte & 0xF0) == 0xE0) {
            extra = 2;
            cp = byte & 0x0F;
            min = 0x800;
        } else if ((byte & 0xF8) == 0xF0) {
            extra = 3;
            cp = byte & 0x07;
            min = 0x10000;
        } else
            return false;
        for (size_t k = 1; k <= extra; ++k) {
            if (i + k >= text.size())
                return false;
            const auto next = static_cast<unsigned char>(text[i + k]);
            if ((next & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (next & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += extra + 1;
    }
    return true;
}

std::string directory_of(const std::string &path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string all_diagnostics(const Diagnostics &diags)
{
    std::ostringstream out;
    diags.print(out);
    return out.str();
}

// A stream buffer that counts what is written and keeps none of it: the diagnostics of a
// hostile input are printed for what printing costs, and must not fill the memory.
class CountingBuffer : public std::streambuf {
public:
    size_t count = 0;

protected:
    int overflow(int c) override
    {
        ++count;
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char *, std::streamsize n) override
    {
        count += static_cast<size_t>(n);
        return n;
    }
};

// Printing shows each diagnostic's source line once: output far beyond the input's size
// means a diagnostic per byte of some line, quadratic in the line's length.
constexpr size_t kMaxPrintedPerInputByte = 64;
constexpr size_t kPrintedAllowance = 64 << 10;

// "" when the diagnostics print in proportion to the input, else what they came to.
std::string check_printing(const Diagnostics &diags, size_t input_size)
{
    CountingBuffer buffer;
    std::ostream out(&buffer);
    diags.print(out);
    if (buffer.count <= kMaxPrintedPerInputByte * input_size + kPrintedAllowance)
        return "";
    return "its " + std::to_string(diags.all().size()) + " diagnostics print " + std::to_string(buffer.count) +
        " bytes for " + std::to_string(input_size) + " bytes of input";
}

}  // namespace

std::string with_extension(const std::string &path, std::string_view ext)
{
    const size_t slash = path.rfind('/');
    const size_t dot = path.rfind('.');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    return (has_ext ? path.substr(0, dot) : path) + std::string(ext);
}

Outcome Checker::check(std::string_view bytes, const std::string &display_path)
{
    Outcome outcome;
    try {
        outcome.failure = check_policy_text(bytes, display_path, outcome);
    } catch (const std::exception &e) {
        outcome.failure = std::string("threw: ") + e.what();
    } catch (...) {
        outcome.failure = "threw something that is not a std::exception";
    }
    return outcome;
}

std::string Checker::check_policy_text(std::string_view bytes, const std::string &display_path, Outcome &outcome)
{
    Diagnostics diags;
    const std::optional<Policy> policy = parse_policy_text(std::string(bytes), display_path, diags);
    // Printing reads the source lines back and puts a caret under each column: positions
    // past a line's end, in the middle of a UTF-8 sequence or on line 0 must all print.
    if (std::string failure = check_printing(diags, bytes.size()); !failure.empty())
        return failure;
    if (policy.has_value() == diags.has_errors())
        return policy ? "returned a policy and reported errors:\n" + all_diagnostics(diags)
                      : "returned no policy and reported no error";
    if (!policy)
        return "";
    outcome.parsed = true;

    const std::string printout = print_policy(*policy);
    if (is_utf8(printout)) {
        const std::string again_path = directory_of(display_path) + "/print-policy.tart";
        Diagnostics again_diags;
        const std::optional<Policy> again = parse_policy_text(printout, again_path, again_diags);
        if (!again)
            return "the printout does not parse:\n" + all_diagnostics(again_diags) + "--- printout:\n" + printout;
        const std::string printout_again = print_policy(*again);
        if (printout_again != printout)
            return "printing the printout's policy gives other bytes:\n--- first:\n" + printout + "--- second:\n" +
                printout_again;
    }

    if (!lower_ || !lowered_.insert(printout).second)
        return "";
    Diagnostics lower_diags;
    const std::vector<uint8_t> plan = lower_policy(*policy, LowerOptions{}, lower_diags);
    if (plan.empty() != lower_diags.has_errors())
        return plan.empty() ? "lower_policy returned no plan and reported no error"
                            : "lower_policy returned a plan and reported errors:\n" + all_diagnostics(lower_diags);
    outcome.lowered = !plan.empty();
    return "";
}

}  // namespace tartaros::fuzz
