/* enforcer/supervisor.h — the process that stays outside: it creates init in the new
 * namespaces, writes the id maps, forwards signals, waits (for init's exit notice, or for init
 * itself when synthetic mountpoints must be removed after it), removes synthetic mountpoints
 * and turns the outcome into tartaros-exec's exit code.
 */
#pragma once

#include "context.h"

/* Runs the sandbox; returns the exit code (78, 125, 126, 127, or the command's). */
int run_supervisor(run_ctx *ctx);
