/* enforcer/reach.h — paths the caller cannot reach: a deny there is moot, a grant cannot work.
 *
 * A plan holds the absolute paths of its compile, `~` expanded with the compiling user's
 * HOME. Run by another user (a plan compiled by root, or `sudo -u` leaving HOME=/root), its
 * denies may lie under a directory that user may not search, and its grants may too.
 *
 * Why such a deny is moot, and only then (the argument the code below implements):
 *  - the kernel's permission check (DAC) refuses the caller every access to a path beneath a
 *    directory the caller may not search: no open, stat, exec or listing of anything below
 *    it by any name that passes through it. Reading or writing it needs no deny;
 *  - the command runs as the caller's uid and groups with no capability, so it has no more
 *    access than the caller: the refusal init met (init passes permission checks only on
 *    files whose owner and group the user namespace maps: the caller's own) holds for it;
 *  - nobody in the sandbox can lift the refusal: the directory belongs to another uid (only
 *    its owner may chmod or setfacl it), and the deny lies outside every writable root, where
 *    the tree is read-only, so the directory can neither be renamed away nor replaced by one
 *    the sandbox made. Inside a writable root that is not so (a write deny exists to stop such
 *    a swap), and a failed deny there stays a failure;
 *  - a directory that is searchable but not readable (mode 0711) refuses only listings:
 *    names beneath it are reachable, so the deny is installed there as anywhere else;
 *  - never for root: its sandbox maps every id, so init passes every permission check and
 *    installs every deny (and a root caller that lacks those capabilities still fails as
 *    before: it could regain them).
 * The Landlock layer stays closed beneath such a directory whatever happens to its mode later:
 * an expansion of a directory the caller cannot list is skipped (no grant at all beneath it),
 * and the expansion above it leaves it out like any directory on the way to a deny.
 */
#pragma once

#include "context.h"

/* Supervisor, before anything is built (any caller but root): refuses (78) a grant the
 * policy asked for — a writable root, a read allow — on a path beneath a directory of another
 * uid that the caller may not search, naming that directory and the fix. */
void reach_check_grants(const run_ctx *ctx);

/* Sandbox side, for a deny step whose path failed to open with EACCES from `root`: whether
 * it is moot (above); if so the step does nothing, and reach_report_moot says why. */
bool deny_is_moot(const run_ctx *ctx, int root, const tp_mount *m);

/* Sandbox side, after the last mount step: one `tartaros: note:` per directory that made
 * denies moot, naming the first of them and how many more. */
void reach_report_moot(const run_ctx *ctx);

/* Sandbox side, for a Landlock rule whose path failed to open with EACCES: whether leaving
 * it out costs nothing the caller could have used — an expansion of a directory the caller
 * cannot list (noted when names beneath it were reachable: mode 0711), or the listing right
 * of one beneath a directory it cannot search. Only grants are left out: Landlock fails
 * closed. */
bool landlock_rule_is_moot(const run_ctx *ctx, const tp_landlock_path *r);
