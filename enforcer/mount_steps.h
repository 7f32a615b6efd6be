/* enforcer/mount_steps.h — one function per kind of mount step (TP_MNT_*), for mounts.cpp. */
#pragma once

#include "mount_tree.h"

/* denies.cpp: the deny layer inside writable roots and anywhere else. */
void materialize_targets(mount_tree *t);
void step_pin(mount_tree *t, const tp_mount *m);
void step_write_deny(mount_tree *t, const tp_mount *m);
void step_mask(mount_tree *t, const tp_mount *m);

/* devfs.cpp: the kernel filesystems the sandbox gets fresh instances of. */
void capture_dev_nodes(int (&fds)[kDevNodeCount]);
void step_dev(mount_tree *t, const tp_mount *m, captured_source *c);
void step_proc(mount_tree *t, const tp_mount *m);
void step_tmpfs(mount_tree *t, const tp_mount *m);
