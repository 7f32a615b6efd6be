#!/bin/bash
# tests/package/check.sh BUILD_DIR SOURCE_DIR VERSION — the Debian package and `cmake --install`,
# as docs/install.md describes them:
#  - cpack builds tartaros_VERSION_ARCH.deb; dpkg-deb -I gives its fields (Package, Version,
#    Architecture, Maintainer, Section, Depends from dpkg-shlibdeps plus publicsuffix, Recommends);
#  - it holds every file of the layout (the tools in /usr/bin, tartaros-proxy and tartaros-cli in
#    /usr/libexec/tartaros, four man pages, two completions, the copyright, the examples), each
#    owned by root with its mode, nothing outside /usr, nothing writable but by its owner;
#  - unpacked: every tool answers --version alike; each man page renders with man -l and
#    groff -ww without a warning; tartaros-policy(5) has every key of docs/policy.md's reference
#    (the compiler's key table, test_policy_keys.cpp), in order; the bash completion loads;
#  - the unpacked tartaros-exec runs a plan with [network] allow_domains: it finds its proxy in
#    ../libexec/tartaros (no tartaros-proxy beside it, none on $PATH) and the proxy answers
#    inside; without the helper it fails with 125 and names both places it looked;
#  - the unpacked `tartaros run` compiles through tartaros-cli in ../libexec/tartaros, which
#    starts tartaros-exec from ../../bin, and a second run starts the cached plan without
#    starting tartaros-cli (strace);
#  - `cmake --install --prefix /usr/local` into a DESTDIR: the same layout there, zsh's
#    completion in site-functions.
# Exit 77 (skipped) where dpkg-deb or cpack is missing.
set -u
BUILD=$(cd "$1" && pwd) SRC=$(cd "$2" && pwd) VERSION=$3
for tool in cpack dpkg-deb dpkg-shlibdeps man groff strace; do
    command -v "$tool" >/dev/null || { echo "SKIP: $tool is not installed (scripts/install-deps)"; exit 77; }
done
failures=0 checks=0
ok() { checks=$((checks + 1)); }
fail() {
    echo "FAIL $*"
    failures=$((failures + 1))
}
WORK=$(mktemp -d "$BUILD/package-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

echo "-- the package"
arch=$(dpkg --print-architecture)
if ! cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/out" >"$WORK/cpack.log" 2>&1; then
    cat "$WORK/cpack.log"
    fail "cpack -G DEB failed"
    exit 1
fi
deb=$WORK/out/tartaros_${VERSION}_$arch.deb
ok
[ -f "$deb" ] || { fail "no $deb; cpack made: $(ls "$WORK/out")"; exit 1; }
info=$(dpkg-deb -I "$deb")
field() { dpkg-deb -f "$deb" "$1"; }
for pair in "Package=tartaros" "Version=$VERSION" "Architecture=$arch" "Section=utils" "Priority=optional" \
    "Recommends=ca-certificates"; do
    ok
    [ "$(field "${pair%%=*}")" = "${pair#*=}" ] || fail "dpkg-deb -f: ${pair%%=*} is '$(field "${pair%%=*}")', not '${pair#*=}'"
done
ok
[[ $(field Maintainer) =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer is not 'Name <address>': $(field Maintainer)"
ok
description=$(field Description)
[ "$(head -1 <<<"$description")" = "sandbox for AI coding agents" ] && [ "$(wc -l <<<"$description")" -gt 3 ] &&
    ! grep -q '^  ' <<<"$description" || fail "the Description is not a summary and an indented text: $description"
depends=$(field Depends)
echo "   Depends: $depends"
# Each entry a package name with an optional version; libc6 from dpkg-shlibdeps (the compiler
# and the proxy link glibc dynamically), publicsuffix (the compiler's data); the package of
# every other library a packaged program needs is checked once it is unpacked (below).
IFS=, read -ra entries <<<"$depends"
ok
[ "${#entries[@]}" -ge 2 ] || fail "Depends has ${#entries[@]} entries: $depends"
for entry in "${entries[@]}"; do
    ok
    [[ $entry =~ ^\ ?[a-z0-9][a-z0-9.+-]+(\ \((>=|=|<=|>>|<<)\ [0-9][A-Za-z0-9.+:~-]*\))?$ ]] ||
        fail "Depends: malformed entry '$entry'"
    [[ $entry =~ tartaros ]] && fail "Depends: the package depends on itself: $entry"
done
for needed in 'libc6 (>= ' publicsuffix; do
    ok
    [[ $depends == *"$needed"* ]] || fail "Depends lacks $needed: $depends"
done
ok
grep -q "^ Installed-Size: [1-9]" <<<"$info" || fail "dpkg-deb -I: no Installed-Size"

echo "-- its files: owner, mode, place"
dpkg-deb -c "$deb" | awk '{print $1, $2, $6}' | sed 's| \./| /|' >"$WORK/list"
expect_file() {  # MODE PATH
    ok
    grep -qxF -- "$1 root/root $2" "$WORK/list" || fail "the package lacks $2 as $1 root/root: $(grep -F " $2" "$WORK/list")"
}
for tool in tartaros tartaros-compile tartaros-exec; do expect_file -rwxr-xr-x /usr/bin/$tool; done
expect_file -rwxr-xr-x /usr/libexec/tartaros/tartaros-proxy
expect_file -rwxr-xr-x /usr/libexec/tartaros/tartaros-cli
for page in man1/tartaros.1 man1/tartaros-compile.1 man1/tartaros-exec.1 man5/tartaros-policy.5; do
    expect_file -rw-r--r-- /usr/share/man/$page.gz
done
expect_file -rw-r--r-- /usr/share/bash-completion/completions/tartaros
expect_file -rw-r--r-- /usr/share/zsh/vendor-completions/_tartaros
expect_file -rw-r--r-- /usr/share/doc/tartaros/copyright
while IFS= read -r example; do
    expect_file -rw-r--r-- "/usr/share/doc/tartaros/examples/${example#"$SRC"/examples/}"
done < <(find "$SRC/examples" -type f | LC_ALL=C sort)
ok
bad=$(grep -v ' /usr/' "$WORK/list" | grep -vx 'drwxr-xr-x root/root /') && fail "outside /usr: $bad"
ok
bad=$(grep -vE '^(drwxr-xr-x|-rwxr-xr-x|-rw-r--r--) root/root ' "$WORK/list") && fail "odd owner or mode: $bad"
ok
bad=$(grep -E ' /usr/bin/| /usr/libexec/tartaros/.' "$WORK/list" | grep -vE '/(tartaros|tartaros-cli|tartaros-compile|tartaros-exec|tartaros-proxy)$' |
    grep -v '^d') && fail "unexpected programs: $bad"

echo "-- unpacked: versions, man pages, completions"
ROOT=$WORK/root
dpkg-deb -x "$deb" "$ROOT"
# Every shared library a packaged program needs comes from a package Depends names.
for program in "$ROOT"/usr/bin/* "$ROOT"/usr/libexec/tartaros/*; do
    for library in $(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        ok
        path=$(ldconfig -p | awk -v lib="$library" '$1 == lib && /x86-64/ {print $NF; exit}')
        owner=$({ dpkg -S "$path" || dpkg -S "$(realpath "$path")"; } 2>/dev/null | head -1 | cut -d: -f1)
        [ -n "$owner" ] && [[ ",$depends" == *", $owner "* || ",$depends" == *",$owner "* ]] ||
            fail "${program##*/} needs $library (${owner:-no package}), which Depends does not name: $depends"
    done
done
ok
/bin/bash "$SRC/tests/version_check.sh" "$VERSION" "$ROOT/usr/bin/tartaros" "$ROOT/usr/bin/tartaros-compile" \
    "$ROOT/usr/bin/tartaros-exec" "$ROOT/usr/libexec/tartaros/tartaros-proxy" || fail "the packaged tools' --version"
for page in "$ROOT"/usr/share/man/man*/*.gz; do
    ok
    name=${page##*/}
    warnings=$(zcat "$page" | groff -man -ww -z 2>&1)
    [ -z "$warnings" ] || fail "groff -ww warns about $name: $warnings"
    ok
    rendered=$(MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings -l "$page" 2>"$WORK/man.err")
    [ -s "$WORK/man.err" ] && fail "man -l $name: $(cat "$WORK/man.err")"
    [ "$(wc -l <<<"$rendered")" -gt 20 ] || fail "man -l $name renders $(wc -l <<<"$rendered") lines"
    # SEE ALSO names pages that exist, in this package.
    for ref in $(sed -n '/^SEE ALSO/,/^[A-Z]/p' <<<"$rendered" | grep -oE 'tartaros(-[a-z]+)?\([0-9]\)'); do
        ok
        section=${ref#*(}
        section=${section%)}
        [ -f "$ROOT/usr/share/man/man$section/${ref%(*}.$section.gz" ] || fail "$name: SEE ALSO $ref: no such page"
    done
done
# tartaros-policy(5): every key of the reference, in order, each with its example.
keys=$(sed -n 's/^| `\([a-z_]*\)` |.*/\1/p' "$SRC/docs/policy.md")
page_keys=$(zcat "$ROOT/usr/share/man/man5/tartaros-policy.5.gz" | awk '/^\.TP$/ {getline; if ($1 == ".B") print $2}')
ok
[ "$(wc -l <<<"$keys")" -ge 40 ] || fail "docs/policy.md's reference has $(wc -l <<<"$keys") keys"
ok
[ "$keys" = "$page_keys" ] || fail "tartaros-policy(5)'s keys differ from docs/policy.md's: $(diff <(echo "$keys") <(echo "$page_keys") | tr '\n' ' ')"
ok
examples=$(zcat "$ROOT/usr/share/man/man5/tartaros-policy.5.gz" | grep -c '^\.EX$')
[ "$examples" -gt "$(wc -l <<<"$keys")" ] || fail "tartaros-policy(5) has $examples examples for $(wc -l <<<"$keys") keys"
ok
bash -c ". '$ROOT/usr/share/bash-completion/completions/tartaros' && complete -p tartaros" >/dev/null 2>&1 ||
    fail "the bash completion does not load"
ok
[ "$(head -1 "$ROOT/usr/share/zsh/vendor-completions/_tartaros")" = "#compdef tartaros" ] || fail "the zsh completion has no #compdef"
ok
grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$ROOT/usr/share/doc/tartaros/copyright" ||
    fail "the copyright file is not machine-readable"
# tartaros-exec(1) documents every option its usage line gives.
for option in $("$ROOT/usr/bin/tartaros-exec" --help | grep -oE -- '--[a-z-]+'); do
    ok
    zcat "$ROOT/usr/share/man/man1/tartaros-exec.1.gz" | grep -qF -- "${option//-/\\-}" || fail "tartaros-exec(1) lacks $option"
done
for option in $("$ROOT/usr/bin/tartaros-compile" --help | grep -oE -- '--[a-z-]+' | sort -u); do
    ok
    zcat "$ROOT/usr/share/man/man1/tartaros-compile.1.gz" | grep -qF -- "${option//-/\\-}" || fail "tartaros-compile(1) lacks $option"
done

echo "-- the unpacked tartaros-exec finds its proxy in the helper directory"
mkdir -p "$WORK/project"
cat >"$WORK/project/net.toml" <<'EOF'
version = 1
[network]
allow_domains = ["example.org"]
[env]
passthrough = ["PATH"]
EOF
"$ROOT/usr/bin/tartaros-compile" "$WORK/project/net.toml" -o "$WORK/net.plan" >/dev/null || fail "compiling the network plan"
# Inside: the proxy at 127.0.0.1:3128 refuses a name the policy does not allow, with 403.
probe='exec 3<>/dev/tcp/127.0.0.1/3128 && printf "CONNECT denied.invalid:443 HTTP/1.1\r\nHost: denied.invalid:443\r\n\r\n" >&3 && head -c 12 <&3'
ok
answer=$(cd "$WORK/project" && env PATH=/usr/bin:/bin "$ROOT/usr/bin/tartaros-exec" "$WORK/net.plan" -- /bin/bash -c "$probe" 2>"$WORK/exec.err")
rc=$?
if [ "$rc" -ne 0 ] && grep -q "user namespace\|not permitted" "$WORK/exec.err"; then
    echo "   (this host cannot start a sandbox: $(head -1 "$WORK/exec.err"); the run is not checked)"
else
    [ "$rc" -eq 0 ] && [ "$answer" = "HTTP/1.1 403" ] ||
        fail "the packaged tartaros-exec with a network plan: exit $rc, answer '$answer', stderr: $(cat "$WORK/exec.err")"
    ok
    mv "$ROOT/usr/libexec/tartaros/tartaros-proxy" "$WORK/proxy.aside"
    (cd "$WORK/project" && "$ROOT/usr/bin/tartaros-exec" "$WORK/net.plan" -- /bin/true 2>"$WORK/exec.err")
    rc=$?
    [ "$rc" -eq 125 ] && grep -qF "$ROOT/usr/bin/tartaros-proxy" "$WORK/exec.err" &&
        grep -qF "$ROOT/usr/libexec/tartaros/tartaros-proxy" "$WORK/exec.err" ||
        fail "without its helper: exit $rc (expected 125 naming both places): $(cat "$WORK/exec.err")"
    mv "$WORK/proxy.aside" "$ROOT/usr/libexec/tartaros/tartaros-proxy"

    echo "-- the unpacked tartaros run: tartaros-cli in the helper directory, tartaros-exec in bin"
    # run WORD: the packaged tartaros run writes WORD into out, under strace: $WORK/execs lists
    # the programs each process started.
    run() {
        (cd "$WORK/project" && env HOME="$WORK/home" XDG_CACHE_HOME="$WORK/cache" strace -f -qq -e trace=execve \
            -e signal=none -o "$WORK/execs" "$ROOT/usr/bin/tartaros" run --write . -- /bin/sh -c 'echo "$1" >out' \
            sh "$1" 2>"$WORK/run.err")
    }
    ok
    mkdir -p "$WORK/home"
    run compiled && [ "$(cat "$WORK/project/out")" = compiled ] &&
        grep -q "execve(\"$ROOT/usr/libexec/tartaros/tartaros-cli\"" "$WORK/execs" ||
        fail "the packaged tartaros run (a compile through tartaros-cli): $(cat "$WORK/run.err")"
    ok
    run cached && [ "$(cat "$WORK/project/out")" = cached ] && ! grep -q 'tartaros-cli' "$WORK/execs" &&
        grep -q "execve(\"$ROOT/usr/bin/tartaros-exec\"" "$WORK/execs" ||
        fail "the packaged tartaros run (a cache hit: tartaros-exec without tartaros-cli): $(cat "$WORK/execs")"
fi

echo "-- cmake --install --prefix /usr/local into a DESTDIR"
DESTDIR="$WORK/local" cmake --install "$BUILD" --prefix /usr/local >"$WORK/install.log" 2>&1 || fail "cmake --install: $(tail -3 "$WORK/install.log")"
for path in bin/tartaros bin/tartaros-compile bin/tartaros-exec libexec/tartaros/tartaros-proxy libexec/tartaros/tartaros-cli \
    share/man/man5/tartaros-policy.5.gz share/bash-completion/completions/tartaros share/zsh/site-functions/_tartaros \
    share/doc/tartaros/copyright share/doc/tartaros/examples/agent.toml; do
    ok
    [ -f "$WORK/local/usr/local/$path" ] || fail "cmake --install --prefix /usr/local: no $path"
done
ok
[ -e "$WORK/local/usr/local/share/zsh/vendor-completions" ] && fail "/usr/local has a zsh vendor-completions directory"

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
