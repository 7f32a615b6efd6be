/* shared/run_line.cpp — see run_line.h. */
#include "run_line.h"

#include <string.h>

namespace {

struct row {
    const char *name;
    enum tr_flag flag;
    int takes_value;
};

#define TR_TAKES_None                                  0
#define TR_TAKES_Path                                  1
#define TR_TAKES_File                                  1
#define TR_TAKES_Port                                  1
#define TR_TAKES_Count                                 1
#define TR_TAKES_Domain                                1
#define TR_TAKES_EnvName                               1
#define TR_ROW(flag, name, kind, metavar, field, help) {name, TR_##flag, TR_TAKES_##kind},
const struct row kRows[] = {TARTAROS_RUN_OPTIONS(TR_ROW)};
#undef TR_ROW

// Takes the launcher's options out; the policy flags go to `out->flags` in order.
enum tr_parse_error record(enum tr_flag flag, const char *value, struct tr_run_line *out)
{
    switch (flag) {
    case TR_Help: out->help = 1; return TR_OK;
    case TR_Strict: out->strict = 1; return TR_OK;
    case TR_NoCache: out->no_cache = 1; return TR_OK;
    case TR_Log:
        if (out->log != NULL)
            return TR_LOG_TWICE;
        out->log = value;
        return TR_OK;
    case TR_Config:
        if (out->config != NULL)
            return TR_CONFIG_TWICE;
        out->config = value;
        return TR_OK;
    default: out->flags[out->flag_count++] = {flag, value}; return TR_OK;
    }
}

}  // namespace

int tr_find_option(const char *name, size_t len, enum tr_flag *flag, int *takes_value)
{
    for (const struct row &r : kRows)
        if (strlen(r.name) == len && memcmp(r.name, name, len) == 0) {
            *flag = r.flag;
            *takes_value = r.takes_value;
            return 1;
        }
    return 0;
}

enum tr_parse_error tr_parse_run(int argc, const char *const *argv, struct tr_run_line *out, int *at)
{
    out->help = out->strict = out->no_cache = 0;
    out->log = out->config = NULL;
    out->flag_count = 0;
    int i = 0;
    for (; i < argc && strcmp(argv[i], "--") != 0; ++i) {
        const char *arg = argv[i];
        *at = i;
        if (strcmp(arg, "-h") == 0) {
            out->help = 1;
            continue;
        }
        const char *equals = strchr(arg, '=');
        const size_t name_len = equals ? (size_t)(equals - arg) : strlen(arg);
        enum tr_flag flag;
        int takes_value = 0;
        if (strncmp(arg, "--", 2) != 0 || !tr_find_option(arg, name_len, &flag, &takes_value))
            return arg[0] == '-' ? TR_UNKNOWN_OPTION : TR_UNEXPECTED_WORD;
        const char *value = "";
        if (!takes_value) {
            if (equals != NULL)
                return TR_TAKES_NO_VALUE;
        } else if (equals != NULL) {
            value = equals + 1;
        } else if (i + 1 < argc && strcmp(argv[i + 1], "--") != 0) {
            value = argv[++i];
        }
        if (takes_value && value[0] == '\0')
            return TR_NEEDS_VALUE;
        if (enum tr_parse_error e = record(flag, value, out))
            return e;
    }
    out->command = i + 1;
    *at = argc;
    if (out->help)
        return TR_OK;
    if (i == argc)
        return TR_MISSING_SEPARATOR;
    if (i + 1 == argc)
        return TR_MISSING_COMMAND;
    return TR_OK;
}
