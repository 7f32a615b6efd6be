/* enforcer/mount_steps.h — one function per kind of mount step (TP_MNT_*), for mounts.cpp. */
#pragma once

#include "mount_tree.h"

/* denies.cpp: the deny layer inside writable roots and anywhere else. */
void materialize_targets(mount_tree *t);
void step_pin(mount_tree *t, const tp_mount *m);
void step_write_deny(mount_tree *t, const tp_mount *m);
void step_mask(mount_tree *t, const tp_mount *m);
/* deny_links.cpp: after the last step, masks the symlinks the deny steps met, and protects
 * where each symlink directly in a write-denied directory leads. */
void mask_symlinks_met(mount_tree *t);
void protect_link_targets(mount_tree *t);

/* denies.cpp: one note per git directory whose code-running files the plan protects. */
void note_git_protections(const mount_tree *t);

/* devfs.cpp: the kernel filesystems the sandbox gets fresh instances of. */
void capture_dev_nodes(int (&fds)[kDevNodeCount]);
void step_dev(mount_tree *t, const tp_mount *m, captured_source *c);
void step_proc(mount_tree *t, const tp_mount *m);
void step_tmpfs(mount_tree *t, const tp_mount *m);
/* A detached devpts instance of the sandbox's own (ptmx 0666, ptys 0620), or -1. */
int new_devpts();

/* credentials.cpp: the TMPFS step with TP_MNTF_CREDENTIALS, the broker's token inside. */
void step_credentials(mount_tree *t, const tp_mount *m);

/* plan_guard.cpp: after the last step, the plan file this run reads is made read-only where
 * the sandbox could otherwise write it, and the effect log is hidden wherever it is visible. */
void protect_running_plan(mount_tree *t);
void protect_effect_log(mount_tree *t);
