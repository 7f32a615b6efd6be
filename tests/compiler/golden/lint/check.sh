#!/bin/sh
# tests/compiler/golden/lint/check.sh TARTAROS SCRATCH_DIR — `tartaros lint` end to end, and the rule
# registry against the compiler's sources and docs/lint-rules.md.
#  - every ID.toml (or ID.tart, for the .tart language's rules) here breaks rule ID. It is
#    linted in a fresh directory of its own under SCRATCH_DIR (with what setup() adds), as
#    `tartaros lint ID.toml` with HOME=/home/lint: the output must be exactly ID.expected,
#    where @DIR@ stands for that directory (also in ID.toml) and @WORK@ for its parent, and the
#    exit status 1 when ID.expected counts an error, else 0. UPDATE=1 rewrites the .expected
#    files: read each line before committing;
#  - every rule of the registry (SARIF's tool.driver.rules) has a case here, except the ones
#    no policy file can trigger (kUntriggerable below), and no case names another rule;
#  - the policies of examples/ (.toml and .tart) lint clean: exit 0, no error, no warning;
#  - docs/lint-rules.md has exactly one "### ID" section per rule of the registry; each (but
#    kUntriggerable's) has a "Bad" and a "Fixed" example (```toml, or ```tart for a .tart
#    one): linted alone (next to a common.tart that examples of includes may name), the bad
#    one reports ID (unless it needs files around it, kNeedsFiles) and the fixed one neither
#    ID nor any error;
#  - every rule id the compiler's sources emit is in the registry with its severity, and
#    every rule of the registry is emitted somewhere (rule_ids.py).
set -u
tartaros=$(realpath "$1")
corpus=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$corpus/../../../.." && pwd)
mkdir -p "$2"
work=$(mktemp -d "$(realpath "$2")/lint-golden-XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
# Internal errors, a file lint refuses before reading it, the current directory removed, and
# notes (lint never prints them).
kUntriggerable="unreadable-policy unresolvable-policy-dir plan-size seccomp-build plan-verification mount-only private-tmp-hides broker-env-stripped git-files-protected symlink-target-protected"
# Cases whose bad example needs a symlink, a plan or an including file next to the policy, or
# is abridged in the docs (256 rules).
kNeedsFiles="symlink-in-path plan-writable policy-writable include-cycle syscall-rule-count"

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# setup ID EXT — what case ID needs next to its policy ID.EXT (run in its directory); prints
# the file name to lint.
setup() {
    case $1 in
    plan-writable) printf 'TARTPLAN\004\000\000\000' >agent.plan ;;
    symlink-in-path) mkdir real && ln -s real link ;;
    policy-writable)
        mkdir real && ln -s real link && mv "$1.$2" real/
        echo "link/$1.$2"
        return
        ;;
    include-duplicate) printf 'version 1;\nfilesystem { materialize true; }\n' >common.tart ;;
    esac
    echo "$1.$2"
}

# The registry as "id severity" lines, from the SARIF rules of a lint run.
"$tartaros" lint --format sarif "$source_dir/examples/agent.toml" >"$work/sarif.json" ||
    fail "lint --format sarif of examples/agent.toml"
python3 - "$work/sarif.json" >"$work/registry" <<'EOF' || fail "reading the registry from SARIF"
import json, sys
for rule in json.load(open(sys.argv[1]))["runs"][0]["tool"]["driver"]["rules"]:
    print(rule["id"], rule["defaultConfiguration"]["level"])
EOF
[ -s "$work/registry" ] || fail "the registry is empty"

echo "-- one bad policy per rule"
for policy in "$corpus"/*.toml "$corpus"/*.tart; do
    [ -e "$policy" ] || continue
    ext=${policy##*.}
    name=$(basename "$policy" ".$ext")
    grep -q "^$name " "$work/registry" || fail "$name.$ext: '$name' is not a rule of the registry"
    dir="$work/$name"
    mkdir "$dir" || { fail "$name: a case as both $name.toml and $name.tart"; continue; }
    sed "s|@DIR@|$dir|g" "$policy" >"$dir/$name.$ext"
    file=$(cd "$dir" && setup "$name" "$ext")
    (cd "$dir" && HOME=/home/lint "$tartaros" lint "$file") >"$work/raw" 2>&1
    rc=$?
    sed -e "s|$dir|@DIR@|g" -e "s|$work|@WORK@|g" "$work/raw" >"$work/out"
    if [ "${UPDATE:-0}" = 1 ]; then
        cp "$work/out" "$corpus/$name.expected"
    elif ! diff -u "$corpus/$name.expected" "$work/out"; then
        fail "$name.$ext: the output differs from $name.expected"
    fi
    grep -q "\\[$name\\]\$" "$work/out" || fail "$name.$ext: no diagnostic has rule id [$name]"
    want=0
    tail -n 1 "$corpus/$name.expected" | grep -q ', 0 errors,' || want=1
    [ "$rc" -eq "$want" ] || fail "$name.$ext: exit status $rc, not $want"
done

while read -r id severity; do
    case " $kUntriggerable " in *" $id "*) continue ;; esac
    [ -f "$corpus/$id.toml" ] || [ -f "$corpus/$id.tart" ] || fail "rule $id ($severity) has no case $id.toml or $id.tart"
done <"$work/registry"

echo "-- examples/ lint clean"
examples=$(cd "$source_dir" && ls examples/*.toml examples/*.tart 2>/dev/null)
# shellcheck disable=SC2086 # one word per file name, none with a blank
(cd "$source_dir" && "$tartaros" lint $examples) >"$work/examples" 2>&1 ||
    fail "lint of examples/*.toml and *.tart exits non-zero: $(cat "$work/examples")"
tail -n 1 "$work/examples" | grep -qx '[0-9]* files, 0 errors, 0 warnings' ||
    fail "examples/ are not clean: $(cat "$work/examples")"

echo "-- docs/lint-rules.md"
docs="$source_dir/docs/lint-rules.md"
sed -n 's/^### \([a-z0-9-]*\)$/\1/p' "$docs" | sort >"$work/documented"
cut -d ' ' -f 1 "$work/registry" | sort >"$work/ids"
diff -u "$work/ids" "$work/documented" >"$work/docs-diff" ||
    fail "docs/lint-rules.md sections (+) differ from the registry (-): $(cat "$work/docs-diff")"
[ -z "$(uniq -d "$work/documented")" ] || fail "a rule has two sections: $(uniq -d "$work/documented")"
# Each section's first TOML or .tart block after a line starting "Bad" and after one starting
# "Fixed", as ID.bad.toml or ID.bad.tart...
mkdir "$work/docs"
python3 - "$docs" "$work/docs" <<'EOF' || fail "extracting the examples of docs/lint-rules.md"
import re, sys
section, want = None, None
pattern = r"(?m)^(### [a-z0-9-]+$|Bad.*$|Fixed.*$|```(?:toml|tart)\n(?:.*\n)*?```$)"
for block in re.split(pattern, open(sys.argv[1]).read()):
    if block.startswith("### "):
        section, want = block[4:], None
    elif block.startswith("Bad") or block.startswith("Fixed"):
        want = block.split()[0].rstrip(":").lower()
    elif block.startswith("```") and section and want:
        language = block[3:7]
        open("%s/%s.%s.%s" % (sys.argv[2], section, want, language), "w").write(block[8:-3])
        want = None
EOF
# ...next to the common.tart that the examples of includes name.
printf 'version 1;\nfilesystem { materialize true; }\n' >"$work/docs/common.tart"
# All bad examples in one lint run and all fixed ones in another (one process each: the
# seccomp validation a run does once dominates, above all under the sanitizers); each
# file's findings are the lines that start with its name.
(cd "$work/docs" && HOME=/home/lint "$tartaros" lint ./*.bad.*) >"$work/bad" 2>&1
(cd "$work/docs" && HOME=/home/lint "$tartaros" lint ./*.fixed.*) >"$work/fixed" 2>&1
findings_of() { grep "^\\./$1:" "$2"; }
# example ID KIND — the file name of rule ID's KIND (bad or fixed) example, "" when it has none.
example() {
    for language in toml tart; do
        [ -f "$work/docs/$1.$2.$language" ] && echo "$1.$2.$language" && return
    done
}
while read -r id severity; do
    case " $kUntriggerable " in *" $id "*) continue ;; esac
    bad=$(example "$id" bad)
    fixed_file=$(example "$id" fixed)
    [ -n "$bad" ] || fail "docs/lint-rules.md: rule $id ($severity) has no bad example"
    [ -n "$fixed_file" ] || fail "docs/lint-rules.md: rule $id ($severity) has no fixed example"
    [ -n "$bad" ] && [ -n "$fixed_file" ] || continue
    case " $kNeedsFiles " in
    *" $id "*) ;;
    *) findings_of "$bad" "$work/bad" | grep -q "\\[$id\\]\$" ||
           fail "docs: the bad example of $id does not report it: $(findings_of "$bad" "$work/bad")" ;;
    esac
    fixed=$(findings_of "$fixed_file" "$work/fixed")
    printf '%s\n' "$fixed" | grep -q "\\[$id\\]\$" && fail "docs: the fixed example of $id still reports it: $fixed"
    printf '%s\n' "$fixed" | grep -q ": error: " && fail "docs: the fixed example of $id has errors: $fixed"
done <"$work/registry"

echo "-- rule ids in the compiler's sources"
python3 "$corpus/rule_ids.py" "$source_dir/compiler" "$work/registry" || fail "rule ids in compiler/**/*.cpp"

[ "$failures" -eq 0 ] && echo "all lint checks passed"
[ "$failures" -eq 0 ]
