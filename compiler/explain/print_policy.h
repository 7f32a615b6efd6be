// compiler/explain/print_policy.h — the policy model printed back as .tart text
// (`tartaros-compile --print-policy`), whichever front-end read it.
//
// The printout is the normalised policy: absolute normalised paths, normalised domains,
// numbers as the model holds them, in a fixed order (version, then the blocks filesystem,
// network, process, env, broker, syscalls; inside a block the keys in the order of docs/policy.md's
// table of keys). Every setting the policy made (pos.line != 0) is one statement; a
// list with more than one element has one element per line. What the policy left at its
// default is a comment (`# passthrough PATH, HOME, ...; (default)`), so a reader sees what
// applies without a statement that would count as set.
//
// Invariant (tested: tests/compiler/explain/test_print_policy.cpp, test_dsl_equivalence.cpp): for a
// policy P a front-end returned, parsing print_policy(P) as .tart gives a policy with the
// same values and the same settings set, and printing that gives the same bytes. Two
// policies that differ only in provenance (file names, lines, columns) print the same.
//
// Limits of that identity: a string that is not valid UTF-8 (a path under a $HOME that is
// not) is printed as its bytes, which no .tart parser reads back; a path that is both a
// `file` read deny and a plain write deny prints `file` on both (the model keeps one list
// of file targets).
#pragma once

#include <string>
#include <string_view>

#include "policy.h"

namespace tartaros {

// The whole policy as .tart text, ending in a newline. Deterministic: the same model gives
// the same bytes on every host (no time, no host name, no source path in it).
std::string print_policy(const Policy &policy);

// `text` as a .tart string: double quotes, with `"` `\` and control characters escaped as
// TOML basic strings escape them (\" \\ \n \t \r, else \u00XX).
std::string tart_string(std::string_view text);

// `text` bare when the .tart grammar reads it back as that same string (a plain word:
// ASCII letters, digits and '_', not starting with a digit, and not a keyword), else
// tart_string(text).
std::string tart_word(std::string_view text);

}  // namespace tartaros
