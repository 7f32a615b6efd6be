#!/usr/bin/env python3
"""The documentation against what the repository builds and holds.

usage: check_docs.py SOURCE_DIR BUILD_DIR

- What the README states is true: the size of tartaros-exec ("about N KB", within 20%), the
  example policy excerpt (each setting as examples/agent.toml makes it; a list may be
  abridged), the timeout's grace
  ("SIGKILL N s later", as --explain of the compiled example prints it), every flag of its
  usage block in the --help of the tool it is given to, every page of docs/ in its table.
- Every relative link of every Markdown file in the repository leads to a file that exists,
  and an anchor to a heading of that file.
- The repository stands on its own: no page points outside it or speaks of the project's
  planning documents (a DESIGN.md, "the seed", issue numbers).
Prints one line per failure and exits 1 if any.
"""
import os
import re
import subprocess
import sys
import tomllib

SRC, BUILD = sys.argv[1], sys.argv[2]
failures = []


def fail(what):
    failures.append(what)
    print(f"FAIL {what}")


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def markdown_files():
    for root, dirs, files in os.walk(SRC):
        dirs[:] = [d for d in dirs if not d.startswith((".", "build")) and d != "corpus"]
        for name in files:
            if name.endswith(".md"):
                yield os.path.relpath(os.path.join(root, name), SRC)


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped (an underscore is a word
    character and stays, in code or not), spaces to hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, seen = set(), {}
    in_code = False
    for line in read(path).splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not line.startswith("#"):
            continue
        base = slug(line.lstrip("#"))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def check_links():
    link = re.compile(r"\]\(([^)\s]+)\)")
    for page in markdown_files():
        text = read(page)
        text = re.sub(r"```.*?```", "", text, flags=re.S)
        for target in link.findall(text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(os.path.join(SRC, resolved)):
                fail(f"{page}: link to {target}: no such file")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                fail(f"{page}: link to {target}: no such heading in {resolved}")


def check_standalone():
    outside = re.compile(r"\.\./shared/|DESIGN\.md|\bthe seed\b|\b[Ii]ssue #?\d+|\bseed/|\b[Tt]he issue\b")
    for page in markdown_files():
        for number, line in enumerate(read(page).splitlines(), 1):
            if outside.search(line):
                fail(f"{page}:{number}: points outside the repository: {line.strip()[:80]}")


def check_size(readme):
    m = re.search(r"`tartaros-exec`, a static binary of about (\d+) KB", readme)
    if not m:
        return fail("README: no 'a static binary of about N KB' for tartaros-exec")
    actual = os.path.getsize(os.path.join(BUILD, "bin", "tartaros-exec")) / 1000
    stated = int(m.group(1))
    if not 0.8 * actual <= stated <= 1.2 * actual:
        fail(f"README: tartaros-exec is about {stated} KB, the build's is {actual:.0f} KB")


def check_example(readme):
    m = re.search(r"An excerpt of \[`examples/agent.toml`\].*?```toml\n(.*?)```", readme, re.S)
    if not m:
        return fail("README: no excerpt of examples/agent.toml")
    excerpt = tomllib.loads(m.group(1))
    example = tomllib.loads(read("examples/agent.toml"))
    for table, keys in excerpt.items():
        if not isinstance(keys, dict):
            if example.get(table) != keys:
                fail(f"README: excerpt {table} = {keys!r}, examples/agent.toml says {example.get(table)!r}")
            continue
        for key, value in keys.items():
            actual = example.get(table, {}).get(key)
            ok = all(v in actual for v in value) if isinstance(value, list) and isinstance(actual, list) else value == actual
            if not ok:
                fail(f"README: excerpt [{table}] {key} = {value!r}, examples/agent.toml says {actual!r}")


def check_grace(readme):
    m = re.search(r"SIGKILL (\d+) s later", readme)
    if not m:
        return fail("README: no 'SIGKILL N s later' in the example")
    plan = os.path.join(BUILD, "docs-check-agent.plan")
    compile_ = os.path.join(BUILD, "bin", "tartaros-compile")
    subprocess.run([compile_, os.path.join(SRC, "examples/agent.toml"), "-o", plan], check=True,
                   capture_output=True)
    explained = subprocess.run([compile_, "--explain", plan], check=True, capture_output=True, text=True).stdout
    os.unlink(plan)
    if f"after a grace of {m.group(1)}s" not in explained:
        fail(f"README: SIGKILL {m.group(1)} s after the timeout, --explain says otherwise")


def check_usage(readme):
    m = re.search(r"## Usage\n\n```\n(.*?)```", readme, re.S)
    if not m:
        return fail("README: no usage block")
    helps = {}
    for line in m.group(1).splitlines():
        words = line.split("#")[0].split()
        if not words or not words[0].startswith("tartaros"):
            continue
        tool = words[0]
        if tool not in helps:
            helps[tool] = subprocess.run([os.path.join(BUILD, "bin", tool), "--help"], capture_output=True,
                                         text=True).stdout
        for flag in re.findall(r"--[a-z][a-z-]*", " ".join(words[1:])):
            if flag not in helps[tool]:
                fail(f"README: usage gives {tool} {flag}, its --help does not")


def check_docs_table(readme):
    for name in sorted(os.listdir(os.path.join(SRC, "docs"))):
        if name.endswith(".md") and f"(docs/{name})" not in readme:
            fail(f"README: docs/{name} is not in the documentation table")


readme = read("README.md")
check_size(readme)
check_example(readme)
check_grace(readme)
check_usage(readme)
check_docs_table(readme)
check_links()
check_standalone()
print(f"{len(failures)} failures" if failures else "documentation: ok")
sys.exit(1 if failures else 0)
