// tests/support/json_checker.h — a strict JSON syntax check for the --explain tests.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>

namespace tartaros::test {

// A strict recursive-descent JSON syntax check (RFC 8259), enough to prove the output parses.
class JsonChecker {
public:
    explicit JsonChecker(const std::string &s) : s_(s) {}

    bool document()
    {
        ws();
        if (!value())
            return false;
        ws();
        return i_ == s_.size();
    }

private:
    void ws()
    {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r'))
            i_++;
    }
    bool eat(char c)
    {
        ws();
        if (i_ < s_.size() && s_[i_] == c) {
            i_++;
            return true;
        }
        return false;
    }
    bool literal(const char *word)
    {
        std::string w(word);
        if (s_.compare(i_, w.size(), w) != 0)
            return false;
        i_ += w.size();
        return true;
    }
    bool string()
    {
        if (!eat('"'))
            return false;
        while (i_ < s_.size() && s_[i_] != '"') {
            auto c = static_cast<unsigned char>(s_[i_]);
            if (c < 0x20)
                return false;
            if (c == '\\') {
                i_++;
                if (i_ >= s_.size())
                    return false;
                char e = s_[i_];
                if (e == 'u') {
                    for (int k = 1; k <= 4; k++)
                        if (i_ + k >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_ + k])))
                            return false;
                    i_ += 4;
                } else if (std::string("\"\\/bfnrt").find(e) == std::string::npos) {
                    return false;
                }
            }
            i_++;
        }
        return eat('"');
    }
    bool digits()
    {
        size_t start = i_;
        while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_])))
            i_++;
        return i_ > start;
    }
    // -?digits(.digits)?([eE][+-]?digits)?
    bool number()
    {
        if (i_ < s_.size() && s_[i_] == '-')
            i_++;
        if (!digits())
            return false;
        if (i_ < s_.size() && s_[i_] == '.' && (++i_, !digits()))
            return false;
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            i_++;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'))
                i_++;
            return digits();
        }
        return true;
    }
    bool value()
    {
        ws();
        if (i_ >= s_.size())
            return false;
        char c = s_[i_];
        if (c == '{') {
            i_++;
            if (eat('}'))
                return true;
            do {
                if (!string() || !eat(':') || !value())
                    return false;
            } while (eat(','));
            return eat('}');
        }
        if (c == '[') {
            i_++;
            if (eat(']'))
                return true;
            do {
                if (!value())
                    return false;
            } while (eat(','));
            return eat(']');
        }
        if (c == '"')
            return string();
        if (c == 't')
            return literal("true");
        if (c == 'f')
            return literal("false");
        if (c == 'n')
            return literal("null");
        return number();
    }

    const std::string &s_;
    size_t i_ = 0;
};

}  // namespace tartaros::test
