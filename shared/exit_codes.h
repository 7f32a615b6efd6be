/* shared/exit_codes.h — the exit codes every binary of TartarOS answers with, so a caller
 * (an agent, CI, tartaros run) reads one meaning from each whichever binary failed.
 * Plain C: the static musl enforcer includes it too. */
#pragma once

enum exit_code {
    EXIT_REFUSAL = 78,  /* EX_CONFIG: a refusal (a policy, a plan, a command line, or a
                            guarantee the host cannot install); nothing of the command ran */
    EXIT_STARTUP = 125, /* the sandbox failed to start for another reason */
    EXIT_NOEXEC = 126,  /* the command is not executable */
    EXIT_NOTFOUND = 127 /* the command was not found */
};
