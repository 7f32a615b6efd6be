/* shared/run_line.h — THE option table of `tartaros run` and the one parser of its command
 * line, used by the compiler's `tartaros-cli` (compiler/cli/cli_options.h turns the table
 * into its RunOption rows: --help, completions and the man page come from there) and by the
 * `tartaros` launcher (front/), which must read a command line exactly as the compiler does
 * to find its plan in the cache.
 *
 * TARTAROS_RUN_OPTIONS(X) calls X(FLAG, NAME, KIND, METAVAR, FIELD, HELP) once per flag: the
 * flags that build a policy in their documented order (docs/tartaros-run.md), then the
 * launcher's own options; FLAG's position is its number (the plan cache's key holds it). KIND
 * is what follows the flag (compiler/cli/cli_options.h, ValueKind).
 *
 * Invariants: names are unique and start with "--"; a row has a METAVAR exactly when its KIND
 * is not None; a row that sets a policy field names it as "[table] key".
 * Plain C over the C library only: the static musl launcher compiles it too. */
#ifndef TARTAROS_SHARED_RUN_LINE_H
#define TARTAROS_SHARED_RUN_LINE_H

#include <stddef.h>

#define TARTAROS_RUN_OPTIONS(X)                                                                                        \
    X(Strict, "--strict", None, "", "",                                                                                \
      "a guarantee this host cannot install is a refusal (exit 78) instead of a warning")                              \
    X(Write, "--write", Path, "PATH", "[filesystem] writable_roots",                                                   \
      "PATH and everything beneath it are readable and writable; PATH must exist")                                     \
    X(ReadDeny, "--read-deny", Path, "PATH", "[filesystem] read_denies",                                               \
      "PATH is not readable and its names are hidden; --read-deny / means read_scope = \"granted\": "                  \
      "only the system paths, the --write roots and the --read-allow paths are readable")                              \
    X(ReadAllow, "--read-allow", Path, "PATH", "[filesystem] read_allows",                                             \
      "PATH is readable: an extra tree under --read-deny /, else a path re-opened inside a --read-deny")               \
    X(WriteDeny, "--write-deny", Path, "PATH", "[filesystem] write_denies",                                            \
      "PATH is read-only, also inside a --write root")                                                                 \
    X(Port, "--port", Port, "N", "[network] local_ports", "the host's 127.0.0.1:N is reachable at 127.0.0.1:N inside") \
    X(AllowDomain, "--allow-domain", Domain, "HOST", "[network] allow_domains",                                        \
      "HTTP(S) to HOST through the egress proxy: an exact name, an IP literal or *.suffix")                            \
    X(IsolatePids, "--isolate-pids", None, "", "[process] isolate_pids", "a private PID namespace (on by default)")    \
    X(IsolateProc, "--isolate-proc", None, "", "[process] isolate_proc",                                               \
      "a fresh /proc of that PID namespace (on by default)")                                                           \
    X(SeccompStrict, "--seccomp-strict", None, "", "[process] harden_syscalls",                                        \
      "the seccomp hardening deny list (on by default)")                                                               \
    X(Materialize, "--materialize", None, "", "[filesystem] materialize",                                              \
      "a deny target absent inside a writable root is created, then protected")                                        \
    X(MaxProcs, "--max-procs", Count, "N", "[process] max_processes",                                                  \
      "at most N tasks (threads count) for the command and everything it starts")                                      \
    X(InheritEnv, "--inherit-env", None, "", "[env] inherit",                                                          \
      "the command starts from the launcher's whole environment")                                                      \
    X(Env, "--env", EnvName, "NAME[=VALUE]", "[env] passthrough, [env] set",                                           \
      "NAME is copied from the launcher's environment, besides the default list (or the file's); "                     \
      "NAME=VALUE sets NAME to VALUE instead (the name ends at the first '=')")                                        \
    X(PrivateTmp, "--private-tmp", None, "", "[filesystem] private_tmp",                                               \
      "a private writable tmpfs on /tmp, discarded after the run; --write and --read-allow paths "                     \
      "beneath /tmp are bound into it")                                                                                \
    X(PrivateDir, "--private-dir", Path, "PATH", "[filesystem] private_dirs",                                          \
      "PATH gets an empty, writable, private tmpfs for the run: the host's content there is hidden, "                  \
      "nothing written there reaches the host, and the sandbox's unix sockets work there; PATH must be "               \
      "a directory")                                                                                                   \
    X(DenyUnix, "--deny-unix", None, "", "[network] deny_unix", "every AF_UNIX socket and socketpair is refused")      \
    X(Log, "--log", File, "FILE", "",                                                                                  \
      "the effect log, written by the supervisor outside the sandbox (passed to tartaros-exec)")                       \
    X(Config, "--config", File, "FILE", "",                                                                            \
      "a policy file (TOML or .tart) the flags are merged into, by the merge rules below")                             \
    X(NoCache, "--no-cache", None, "", "",                                                                             \
      "compile the policy even when the plan cache holds its plan, and store nothing there")                           \
    X(Help, "--help", None, "", "", "print this help and exit")

#ifdef __cplusplus
extern "C" {
#endif

#define TR_FLAG_ENUM(flag, name, kind, metavar, field, help) TR_##flag,
enum tr_flag { TARTAROS_RUN_OPTIONS(TR_FLAG_ENUM) TR_FLAG_COUNT };
#undef TR_FLAG_ENUM

/* A policy flag as given: its value points into argv ("" for a switch). */
struct tr_flag_use {
    enum tr_flag flag;
    const char *value;
};

/* `tartaros run ARGS`, parsed. The launcher's options (--strict, --log, --config, --no-cache,
 * --help, -h) are taken out; the policy flags stay in `flags`, in command-line order. */
struct tr_run_line {
    int help, strict, no_cache;
    const char *log;           /* NULL: none */
    const char *config;        /* NULL: none */
    struct tr_flag_use *flags; /* the caller's array, at least `argc` long */
    size_t flag_count;
    int command; /* argv index of the command's first word */
};

enum tr_parse_error {
    TR_OK,
    TR_UNKNOWN_OPTION,    /* argv[at] starts with '-' and is no option */
    TR_UNEXPECTED_WORD,   /* argv[at] is a word before "--" */
    TR_TAKES_NO_VALUE,    /* argv[at] is "--switch=..." */
    TR_NEEDS_VALUE,       /* argv[at] is an option without its value */
    TR_LOG_TWICE,         /* argv[at] is a second --log */
    TR_CONFIG_TWICE,      /* argv[at] is a second --config */
    TR_MISSING_SEPARATOR, /* no "--" */
    TR_MISSING_COMMAND    /* nothing after "--" */
};

/* Parses the `argc` words after "run" into `out` (whose `flags` the caller provides). The
 * first "--" ends the options: it is never an option's value. "--flag VALUE" and
 * "--flag=VALUE" are accepted; values are not checked here. On an error, `*at` is the index
 * of the word at fault (for the two missing-word errors, `argc`). With --help or -h
 * anywhere, the rest need not be a whole command line. */
enum tr_parse_error tr_parse_run(int argc, const char *const *argv, struct tr_run_line *out, int *at);

/* The row of `name` (up to the first '=' of an argument) in the table: its flag, and whether a
 * value follows it; 0 when there is none. */
int tr_find_option(const char *name, size_t len, enum tr_flag *flag, int *takes_value);

#ifdef __cplusplus
}
#endif

#endif
