/* enforcer/mounts.h — the mount layer, run by init inside the new mount namespace.
 *
 * Two phases so that every check that can refuse happens before anything irreversible:
 * mounts_capture() makes propagation private and clones every host source (a missing
 * non-optional source refuses); mounts_build() then materializes absent deny targets (the
 * only change to the host filesystem that outlives the run), runs the plan's steps in
 * order, seals the tmpfs mounts it made read-only and, for ROOT_EMPTY, enters the new root.
 */
#pragma once

#include "context.h"

struct mount_tree;

mount_tree *mounts_capture(const run_ctx *ctx);
void mounts_build(mount_tree *t);
