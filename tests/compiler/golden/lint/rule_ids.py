#!/usr/bin/env python3
"""tests/compiler/golden/lint/rule_ids.py COMPILER_DIR REGISTRY — the rule ids the compiler's sources
emit against the rule registry (lint_rules.h).

REGISTRY has one "id severity" line per rule (severity: error, warning or note). Every .cpp
file of COMPILER_DIR is tokenised (comments dropped) and each rule id found where the
compiler reports one:
  - the last argument of a call to error / warning / note (the severity is the call's) and
    to fail / refuse (the front-end's helpers; always errors): a string literal, a constant
    of the same file (`const char *kX = "..."`), or an expression that forwards an id made
    elsewhere (err.rule_id, ...);
  - the last element of each TomlRefused entry (a refused key: an error), in a
    `std::vector<TomlRefused>` or a brace list passed to read_table.
Any other last argument is an error naming file and line, so a new way of passing an id
cannot slip past this check. Prints every problem and exits 1 when there is one: an id not
in the registry, emitted with another severity, or in the registry but never emitted.
"""
import glob
import os
import re
import sys

REPORTERS = {"error": "error", "warning": "warning", "note": "note", "fail": "error", "refuse": "error"}
# Expressions that pass on an id chosen by a literal elsewhere (units, paths, domains, schema).
FORWARDING = {"err.rule_id", "std::move(err.rule_id)", "err.rule_id.c_str()", "rule_id",
              "std::string(refusal->rule_id)",
              # lint.cpp copies the findings of the rules run on a .tart policy's lowered TOML.
              "d.rule_id"}
# Tokens after which `name(` is a call rather than a declaration (")" and "else": the body of an
# if, a loop or an else without braces).
CALL_CONTEXT = {".", "->", "(", ")", ",", "=", "{", "}", ";", "?", ":", "return", "!", "&&", "||", "else"}

TOKEN = re.compile(r'''
    (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:\\.|[^"\\\n])*")
  | (?P<char>'(?:\\.|[^'\\\n])*')
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<punct>::|->|&&|\|\||[^\sA-Za-z0-9_])
  | (?P<number>[0-9][A-Za-z0-9_.']*)
  | (?P<space>\s+)
''', re.S | re.X)


def tokenize(text):
    tokens, line = [], 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        if kind not in ("comment", "space"):
            tokens.append((kind, m.group(), line))
        line += m.group().count("\n")
    return tokens


def matching(tokens, i):
    """Index of the bracket closing the one at tokens[i]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    depth = 0
    for j in range(i, len(tokens)):
        t = tokens[j][1]
        if t in pairs:
            depth += 1
        elif t in pairs.values():
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced bracket at line %d" % tokens[i][2])


def split_args(tokens, open_index):
    """The top-level arguments between tokens[open_index] and its closing bracket."""
    close = matching(tokens, open_index)
    args, current, j = [], [], open_index + 1
    while j < close:
        t = tokens[j][1]
        if t in ("(", "{", "["):
            end = matching(tokens, j)
            current.extend(tokens[j:end + 1])
            j = end + 1
            continue
        if t == ",":
            args.append(current)
            current = []
        else:
            current.append(tokens[j])
        j += 1
    if current:
        args.append(current)
    return args


def literal(arg):
    """The value of an argument made of adjacent string literals, else None."""
    if arg and all(kind == "string" for kind, _, _ in arg):
        return "".join(text[1:-1] for _, text, _ in arg)
    return None


def constants(tokens):
    """NAME -> "value" for every `NAME = "value";` of a file."""
    out = {}
    for i in range(len(tokens) - 3):
        if tokens[i][0] == "ident" and tokens[i + 1][1] == "=" and tokens[i + 2][0] == "string" \
                and tokens[i + 3][1] == ";":
            out[tokens[i][1]] = tokens[i + 2][1][1:-1]
    return out


def refused_entries(tokens, brace_index, where, found, problems):
    """Each `{ name, message, "id" }` entry of the brace list at brace_index."""
    for entry in split_args(tokens, brace_index):
        if not entry or entry[0][1] != "{":
            problems.append("%s:%d: not a TomlRefused entry" % (where, tokens[brace_index][2]))
            continue
        fields = split_args(entry, 0)
        rule = literal(fields[-1]) if fields else None
        if rule is None:
            problems.append("%s:%d: a refused key's rule id is not a literal" % (where, entry[0][2]))
        else:
            found.append((rule, "error", "%s:%d" % (where, entry[0][2])))


def scan(path, found, problems):
    tokens = tokenize(open(path, encoding="utf-8").read())
    names = constants(tokens)
    where = os.path.relpath(path)
    for i, (kind, text, line) in enumerate(tokens):
        if kind != "ident" or i + 1 >= len(tokens) or tokens[i + 1][1] != "(":
            continue
        before = tokens[i - 1][1] if i > 0 else ";"
        if text in REPORTERS and before in CALL_CONTEXT:
            args = split_args(tokens, i + 1)
            last = args[-1] if args else []
            rule = literal(last)
            if rule is None and len(last) == 1 and last[0][1] in names:
                rule = names[last[0][1]]
            if rule is not None:
                found.append((rule, REPORTERS[text], "%s:%d" % (where, line)))
            elif "".join(t for _, t, _ in last) not in FORWARDING:
                problems.append("%s:%d: %s(...) with a rule id this check cannot read: %s"
                                % (where, line, text, " ".join(t for _, t, _ in last)))
        elif text == "read_table" and before in CALL_CONTEXT:
            args = split_args(tokens, i + 1)
            if args and args[-1] and args[-1][0][1] == "{":
                start = next(j for j in range(i + 1, len(tokens)) if tokens[j] is args[-1][0])
                refused_entries(tokens, start, where, found, problems)
    for i in range(len(tokens) - 6):
        if [t for _, t, _ in tokens[i:i + 4]] == ["vector", "<", "TomlRefused", ">"] and tokens[i + 5][1] == "=":
            refused_entries(tokens, i + 6, where, found, problems)


def main():
    compiler_dir, registry_file = sys.argv[1], sys.argv[2]
    registry = dict(line.split() for line in open(registry_file) if line.strip())
    found, problems = [], []
    for path in sorted(glob.glob(os.path.join(compiler_dir, "**", "*.cpp"), recursive=True)):
        scan(path, found, problems)
    for rule, severity, where in found:
        if rule not in registry:
            problems.append("%s: rule id '%s' is not in the registry" % (where, rule))
        elif registry[rule] != severity:
            problems.append("%s: rule id '%s' is emitted as %s, the registry says %s"
                            % (where, rule, severity, registry[rule]))
    emitted = {rule for rule, _, _ in found}
    for rule in sorted(set(registry) - emitted):
        problems.append("rule id '%s' is in the registry but no source emits it" % rule)
    for p in problems:
        print(p)
    print("%d rule ids emitted at %d places, %d in the registry" % (len(emitted), len(found), len(registry)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
