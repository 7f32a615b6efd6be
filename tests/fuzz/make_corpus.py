#!/usr/bin/env python3
"""tests/fuzz/make_corpus.py — writes the corpus's machine-made hostile files into corpus/.

The hand-written policies of corpus/ are edited by hand; the files below are too large, too
regular or too binary (NUL bytes, invalid UTF-8) for that, so this script is their source.
Run it from anywhere after changing it; the output is deterministic.
"""
import pathlib

CORPUS = pathlib.Path(__file__).resolve().parent / "corpus"


def write(name, data):
    (CORPUS / name).write_bytes(data.encode() if isinstance(data, str) else data)


def head(text):
    return "# " + text + "\n"


def nesting():
    n = 5000
    write("deep-braces.tart", head(f"An inline map nested {n} deep (recursion in the parser and the TOML writer).")
          + "version 1;\nprocess {\n    rlimits nofile = " + "{ a = " * n + "1" + " }" * n + ";\n}\n")
    write("deep-braces-unbalanced.tart", head("20000 '{' and never a '}'.") + "version 1;\nenv { set A = " + "{" * 20000 + "\n")
    write("deep-braces-closing.tart", head("20000 '}' at top level.") + "version 1;\n" + "}" * 20000 + "\n")
    write("deep-arrays.toml", head("Arrays and inline tables nested 3000 deep.") + "version = 1\nx = " + "[" * 3000
          + "]" * 3000 + "\ny = " + "{a=" * 3000 + "1" + "}" * 3000 + "\n[process]\nrlimits = " + "{ nofile = " * 300
          + "1" + " }" * 300 + "\n")
    write("deep-tables.toml", head("Dotted keys and table headers 2000 deep.") + "version = 1\n["
          + ".".join(["a"] * 2000) + "]\n" + ".".join(["b"] * 2000) + " = 1\n")


def groups():
    g = 1000
    write("deep-groups.tart", head(f"A chain of {g} groups, each using the next: deep group resolution.")
          + "version 1;\n" + "".join(f"paths g{i} = [@g{i + 1}, \"~/p{i}\"];\n" for i in range(g))
          + f"paths g{g} = [\"~/end\"];\n" + "filesystem { read_denies @g0; }\n")
    write("group-cycle-long.tart", head("A group cycle through 500 groups.") + "version 1;\n"
          + "".join(f"domains d{i} = [@d{(i + 1) % 500}];\n" for i in range(500)) + "network { allow_domains @d0; }\n")
    f = 48
    write("group-fanout.tart", head(f"Each group uses the one before twice: 2^{f} items if expanded naively (billion laughs).")
          + "version 1;\npaths l0 = [\"~/x\"];\n" + "".join(f"paths l{i} = [@l{i - 1}, @l{i - 1}];\n" for i in range(1, f + 1))
          + f"filesystem {{ read_denies @l{f}; }}\n")
    name = "n" * 4096
    write("long-group-names.tart", head("4 KiB group names, one used misspelt: \"did you mean\" compares them.")
          + f"version 1;\npaths {name}a = [];\ndomains {name}b = [];\nfilesystem {{ read_denies @{name}c; }}\n")


def tokens():
    write("long-line.tart", head("Long tokens: a 16 KB string, an 8 KB word, an 8 KB comment, a 4 KB number (the driver makes 1 MiB ones).")
          + "version 1;\nfilesystem { read_denies \"~/" + "a" * 16384 + "\"; }\nenv { passthrough " + "W" * 8192
          + "; }\n#" + "c" * 8192 + "\nprocess { max_processes " + "9" * 4096 + "; }\n")
    write("huge-ints.tart", head("Integers at and past every bound.") + """version 1;
version 99999999999999999999999999999999;
process {
    max_processes 18446744073709551616;
    memory_max 9223372036854775807;
    rlimits core = -9223372036854775808, nofile = 0xffffffffffffffffffff, fsize = -0x8000000000000000;
    rlimits stack = 0x, nproc = -, as = 0x-1, data = 00012, rss = -0;
}
network { proxy_port 4294967297; local_ports 65536, 0, -65535; }
syscalls {
    deny socket when arg0 == 4294967295;
    deny socket when arg1 == 4294967296;
    deny socket when arg2 == -2147483648;
    deny ioctl when arg1 == -2147483649;
    deny ioctl when arg1 in {0x7fffffffffffffff, -9223372036854775808};
    deny ioctl when arg99999999999999999999 == 1;
    deny ioctl errno 18446744073709551617;
    deny ioctl when arg1 & 0xffffffff | 0x100000000;
}
""")
    write("huge-ints.toml", head("Integers at and past every bound, TOML.") + """version = 99999999999999999999
[process]
max_processes = 18446744073709551616
memory_max = 9223372036854775807
rlimits = { core = -9223372036854775808, nofile = 0x7fffffffffffffff, fsize = 1e400 }
[network]
proxy_port = -1
local_ports = [65536, 0, 4294967297]
""")
    write("bad-escapes.tart", head("Escapes TOML refuses: unknown, short, surrogate, past U+10FFFF, \\u0000, a raw newline.") + """version 1;
env {
    set A = "\\x41", B = "\\u12", C = "\\uD800", D = "\\U00110000", E = "\\U0000", F = "\\uDFFF\\uD83D";
    set G = "\\u0000", H = "\\", I = "\\\\\\", J = "\\e", K = "\\U0010FFFF", L = "multi
line";
}
""")


def bytes_and_ends():
    write("nul-bytes.tart", b"# NUL bytes in a string, a comment, a word and between tokens.\nversion 1;\n"
          b"filesystem { read_denies \"~/a\x00b\"; }\n# \x00 in a comment\nenv { passthrough PA\x00TH; set X = \"\\u0000\"; }\n"
          b"\x00\nnetwork\x00{ }\n")
    write("nul-bytes.toml", b"# NUL bytes in a string, a comment, a key.\nversion = 1\n[filesystem]\n"
          b"read_denies = [\"~/a\x00b\"]\n# \x00\n[en\x00v]\nset = { X = \"\\u0000\" }\n")
    bad = [b"\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff\xfe", b"\xe2\x82", b"\xf0\x9f\x98"]
    write("invalid-utf8.tart", b"# Invalid UTF-8 in strings, comments, words and between tokens.\nversion 1;\nfilesystem { read_denies "
          + b", ".join(b'"~/' + s + b'"' for s in bad) + b"; }\n# " + b"".join(bad) + b"\nenv { passthrough A" + bad[0]
          + b"B; }\n" + bad[5] + b"\n")
    write("invalid-utf8.toml", b"# Invalid UTF-8, TOML.\nversion = 1\n[filesystem]\nread_denies = ["
          + b", ".join(b'"~/' + s + b'"' for s in bad) + b"]\n# " + b"".join(bad) + b"\n[env]\npassthrough = [\"A" + bad[2] + b"\"]\n")
    write("bom-cr.tart", b"\xef\xbb\xbfversion 1;\rfilesystem {\r read_denies \"~/.ssh\";\r}\r# a BOM first, CR-only line ends\r")
    write("unterminated-string.tart", head("A string that never ends.") + 'version 1;\nfilesystem { read_denies "~/.ssh;\n}\n')
    write("unterminated-string-eof.tart", head("A string and an escape cut by the end of the file.") + 'version 1;\nenv { set A = "abc\\')
    write("unterminated-comment.tart", 'version 1;\nfilesystem { read_denies "~/.ssh" # the file ends inside a comment')
    write("unterminated-block.tart", head("Blocks and maps never closed.")
          + 'version 1;\nbroker { capability x { host "h"; methods GET\nprocess { rlimits nofile = { soft = 1,')
    write("empty.tart", b"")
    write("whitespace-only.tart", b" \t\r\n\n\t \x0b\x0c\n")


def syscall_rules():
    write("many-rules.tart", head("300 rules, past kMaxSyscallRules (256).") + "version 1;\nsyscalls {\n"
          + "".join(f"    deny ioctl when arg1 == {i} errno {1 + i % 4095};\n" for i in range(300)) + "}\n")
    vals = ", ".join(str(v * 7) for v in range(40))
    names = ["ioctl", "socket", "openat", "mmap", "prctl", "fcntl", "setsockopt", "getsockopt"] * 32
    write("big-filter.tart", head("256 rules of 40 values each: a filter past the kernel's 4096 instructions.")
          + "version 1;\nsyscalls {\n" + "".join(f"    deny {name} when arg{i % 6} in {{{vals}}};\n" for i, name in enumerate(names)) + "}\n")
    write("many-values.tart", head("One condition with 2000 values, and one '|' expression of 2000 atoms.")
          + "version 1;\nsyscalls {\n    deny ioctl when arg1 in {" + ", ".join(str(v) for v in range(2000))
          + "};\n    deny socket when arg0 & " + " | ".join(["1"] * 2000) + ";\n}\n")
    write("syscall-args-product.tart", head("Rules testing four arguments each on one syscall: merging and validating them must not grow with the product of the arguments' values.")
          + "version 1;\nsyscalls {\n" + "".join(f"    deny ioctl when arg0 == {i} and arg1 == {i} and arg2 == {i} and arg3 & {1 << i};\n"
                                                 for i in range(16)) + "}\n")


if __name__ == "__main__":
    nesting()
    groups()
    tokens()
    bytes_and_ends()
    syscall_rules()
