/* front/main.cpp — tartaros, the command people and agents type. A static musl binary that
 * answers one case itself: `tartaros run` whose plan the plan cache holds, which it hands to
 * tartaros-exec without starting the compiler. Everything else (another subcommand, --help,
 * --no-cache, a command line it cannot read, a miss) it hands, argv unchanged, to
 * tartaros-cli, the compiler's binary, which does all of it as before, the lookup included.
 *
 * Why a second binary: the compiler is a static glibc C++ program of 17 MB; its start alone
 * (glibc probing the CPU, relocating and faulting in its pages) cost 0.5-0.7 ms on the
 * machines measured, half of what a cache hit added to a run (bench/README.md, "plan_cache.sh").
 * The launcher reads the command line, the cache and the host with the same code as the
 * compiler (shared/run_line.h, plan_cache_entry.h, host_answer.h), so it hits exactly when
 * tartaros-cli would, and a miss or a doubt only costs one more execve.
 *
 * It never refuses anything itself: every refusal and message comes from tartaros-cli or
 * tartaros-exec, with their exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exit_codes.h"
#include "host_answer.h"
#include "plan_cache_entry.h"
#include "plan_handoff.h"
#include "run_line.h"
#include "sibling_path.h"
#include "tartaros_version.h"
#include "write_all.h"

/* Where tartaros-cli lies relative to this binary's directory once installed (cmake/install.cmake:
 * the helper directory, e.g. "../libexec/tartaros"); "" when the build defines none. */
#ifndef TARTAROS_HELPER_FROM_BINDIR
#define TARTAROS_HELPER_FROM_BINDIR ""
#endif

namespace {

/* The current directory as the compiler takes it: getcwd, made lexical. 0 when it is gone. */
int current_directory(struct th_text *out)
{
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL || cwd[0] != '/')
        return 0;
    th_normalize_absolute(cwd, strlen(cwd), out);
    return !out->failed;
}

/* Whether the plan cache holds the plan of `tartaros run ARGS` (`argc` words) as tartaros-cli,
 * the compiler at `cli`, would find it: `line` is then the command line read, and `entry`
 * points into `bytes`. */
bool cached(int argc, char **argv, const char *cli, struct tr_run_line *line, struct th_text *bytes,
            struct tc_entry *entry)
{
    int at = 0;
    const char *home = getenv("HOME");  // without HOME, ~ comes from /etc/passwd: the compiler's to read
    th_owned_text cwd, directory, key;
    if (tr_parse_run(argc, argv, line, &at) != TR_OK || line->help || line->no_cache || home == NULL ||
        !current_directory(&cwd) || !tc_cache_directory(getenv("XDG_CACHE_HOME"), home, &directory) || directory.failed)
        return false;
    tc_run_key(&key, TARTAROS_VERSION_LINE, cli, home, cwd.data, line);
    return !key.failed && tc_lookup(directory.data, key.data, key.len, bytes, entry);
}

/* Runs the cached plan of `tartaros run ARGS` through tartaros-exec when the cache holds it;
 * returns on a miss, having changed nothing. */
void run_cached(int argc, char **argv, const char *cli)
{
    struct tr_flag_use *flags = (struct tr_flag_use *)calloc((size_t)argc + 1, sizeof *flags);
    struct tr_run_line line = {};
    line.flags = flags;
    th_owned_text bytes;
    struct tc_entry entry = {};
    struct th_sibling enforcer_at;
    const char *enforcer = NULL;
    if (flags != NULL && cached(argc, argv, cli, &line, &bytes, &entry))
        enforcer = th_find_sibling("tartaros-exec", "", &enforcer_at);
    if (enforcer == NULL) {  // a miss; or no tartaros-exec here, which tartaros-cli reports
        free(flags);
        return;
    }
    write_all(2, entry.warnings.data, entry.warnings.len);
    const int fd = th_plan_memfd(entry.plan.data, entry.plan.len);
    if (fd < 0) {
        fprintf(stderr, "tartaros: cannot write the plan into a memfd: %s\n", strerror(errno));
        exit(EXIT_STARTUP);
    }
    th_exec_enforcer(enforcer, line.strict, line.log, fd, argv + line.command);
    fprintf(stderr, "tartaros: cannot start %s: %s\n", enforcer, strerror(errno));
    exit(EXIT_STARTUP);
}

}  // namespace

int main(int argc, char **argv)
{
    static struct th_sibling cli_at;
    const char *cli = th_find_sibling("tartaros-cli", TARTAROS_HELPER_FROM_BINDIR, &cli_at);
    if (cli == NULL) {
        if (cli_at.installed[0] != '\0')
            fprintf(stderr, "tartaros: cannot find tartaros-cli, the compiler: %s: %s; %s: %s\n", cli_at.beside,
                    strerror(cli_at.beside_errno), cli_at.installed, strerror(cli_at.installed_errno));
        else
            fprintf(stderr, "tartaros: cannot find tartaros-cli, the compiler: %s: %s\n",
                    cli_at.beside[0] != '\0' ? cli_at.beside : "/proc/self/exe", strerror(cli_at.beside_errno));
        return EXIT_STARTUP;
    }
    if (argc > 2 && strcmp(argv[1], "run") == 0)
        run_cached(argc - 2, argv + 2, cli);
    execv(cli, argv);
    fprintf(stderr, "tartaros: cannot start %s: %s\n", cli, strerror(errno));
    return EXIT_STARTUP;
}
