/* enforcer/secrets.h — the credential broker's secrets on the enforcer's side: the token and
 * every capability's value, taken from the launcher's environment by the names the plan gives
 * (TP_SEC_BROKER token_env, TP_SEC_BROKER_CAPS value_env).
 *
 * Their life in tartaros-exec, all in the supervisor unless said otherwise:
 *  1. preflight, only when the broker runs: each value is found in the environment block and
 *     checked in place (shared/broker_secrets_wire.h's invariant), nothing copied; the token is copied
 *     from token_env, or made (32 random bytes, hex). A bad or missing one refuses (78) with a
 *     line that names the variable, never its value;
 *  2. egress.cpp writes them into a sealed memfd that tartaros-proxy inherits;
 *  3. before init is cloned, every token_env/value_env NAME=VALUE of the plan is zeroed in the
 *     environment block (what /proc/PID/environ shows of the supervisor and of every process
 *     that shares or copies its memory: init, the command until it executes, the mediator)
 *     and removed from `environ` — whether the broker runs or not;
 *  4. the token alone stays, for init to write the credentials file (credentials.cpp); init
 *     wipes it once the mount tree is built, and the supervisor again once the sandbox side
 *     has finished starting (a failed start never reaches init's wipe).
 * The command's environment never holds these names (process.cpp strips them).
 */
#pragma once

#include <stddef.h>

#include "context.h"

/* Preflight, with ctx->broker decided: steps 1 above. Does nothing without a broker run. */
void secrets_read(const run_ctx *ctx);

/* Supervisor: the memfd of shared/broker_secrets_wire.h (token, then each value in plan order),
 * sealed against any change, close-on-exec, offset 0. A failure is a start-up failure (125). */
int secrets_memfd();

/* Supervisor, before init is cloned: step 3 above, and the references to the values go. */
void secrets_forget_launcher(const tp_plan *plan);

/* Whether `name` (`len` bytes, no '=') is the plan's token_env or one of its value_env. */
bool secrets_is_name(const tp_plan *plan, const char *name, size_t len);

/* The token for the credentials file, or NULL when this run has none (no broker, or wiped). */
const char *secrets_token(size_t *len);

/* Zeroes the token. Raw-safe (raw.h): only stores to memory. */
void secrets_forget_token();
