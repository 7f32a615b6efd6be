// compiler/frontend/frontend_dsl_errors.h — syntax errors of a .tart file in words.
//
// ANTLR's own messages dump token sets ("mismatched input '}' expecting {',', ';'}"). This
// listener replaces them: from the rule the parser is in, the tokens it can accept there and
// the token it found, it says what was expected and where, as people write it ("expected ';'
// after the value of 'read_denies', found '}'"). Every error is `dsl-syntax`, at the token
// found; a file reports its first syntax error only (the next ones are the parser's guesses).
#pragma once

#include <cstddef>
#include <string>

#include <antlr4-runtime.h>

#include "diagnostics.h"

namespace tartaros::dsl {

class SyntaxErrorListener : public antlr4::BaseErrorListener {
public:
    SyntaxErrorListener(std::string file, Diagnostics &diags) : file_(std::move(file)), diags_(diags) {}

    void syntaxError(antlr4::Recognizer *recognizer, antlr4::Token *offending, size_t line, size_t column,
                     const std::string &message, std::exception_ptr error) override;

    size_t errors() const { return errors_; }

private:
    std::string file_;
    Diagnostics &diags_;
    size_t errors_ = 0;
};

// How a message names a token it found: 'text' (control characters escaped, long text cut),
// or "the end of the file".
std::string describe_token(const antlr4::Token *token);

}  // namespace tartaros::dsl
