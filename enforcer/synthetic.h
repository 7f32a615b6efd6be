/* enforcer/synthetic.h — after the run, the supervisor removes what the sandbox side made on
 * the host for the run only: the empty files masked in place of an absent deny target, and
 * the placeholders of TP_MNTF_PLACEHOLDER steps (git files made so git reads them as absent).
 */
#pragma once

#include "context.h"
#include "report.h"

/* Removes `s` only if it is still exactly what was made: the same device and inode, reached
 * from its writable root without a symlink, and an empty regular file (a mask's mountpoint),
 * a regular file holding exactly the step's `source`, or an empty directory. Anything else
 * (changed by the host while the run lasted) stays. */
void remove_synthetic(const tp_plan *plan, const synthetic_mountpoint *s);
