#!/usr/bin/env python3
"""Adds to a container runtime's seccomp profile the calls tartaros-exec needs to build a sandbox.

Usage: seccomp-tartaros.py BASE.json > PROFILE.json

BASE is the runtime's own default profile (Docker's and containerd's come from moby/profiles,
seccomp/default.json; podman's is /usr/share/containers/seccomp.json). The result is that
profile plus one rule that allows the calls below whatever the capabilities, and without the
rules that refuse them (an explicit refusal outranks an allow: podman's profile refuses
sethostname to a container without CAP_SYS_ADMIN); every other rule is kept. Use it where `seccomp=unconfined` is more than you want to give
(docs/containers.md): `docker run --security-opt seccomp=PROFILE.json`, or on Kubernetes as a
Localhost profile in the node's seccomp directory (examples/fleet/job.yaml).

What the calls are for (docs/containers.md, "A narrower seccomp profile"):
  clone, unshare      the sandbox's user, mount, PID, network, IPC, UTS and cgroup namespaces
  setns               init joins the namespaces the command made in parallel with the mounts
  mount, umount2, pivot_root, mount_setattr, open_tree, move_mount, fsopen, fsconfig, fsmount
                      the mount layer, in the sandbox's own mount namespace
  sethostname         the sandbox's hostname, in its own UTS namespace
Each acts only on namespaces of the caller's own making unless the container also holds
CAP_SYS_ADMIN, which none of this needs.
"""
import json
import sys

TARTAROS_CALLS = [
    "clone", "unshare", "setns",
    "mount", "umount2", "pivot_root", "mount_setattr", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount",
    "sethostname",
]


def with_tartaros(profile):
    out = dict(profile)
    rules = []
    for rule in profile.get("syscalls", []):
        if rule.get("action") != "SCMP_ACT_ALLOW":
            names = [n for n in rule.get("names", []) if n not in TARTAROS_CALLS]
            if not names:
                continue
            rule = dict(rule, names=names)
        rules.append(rule)
    out["syscalls"] = rules + [{
        "names": TARTAROS_CALLS,
        "action": "SCMP_ACT_ALLOW",
        "comment": "tartaros-exec: namespaces and mounts of its own sandbox (docs/containers.md)",
    }]
    return out


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    with open(argv[1], encoding="utf-8") as f:
        profile = json.load(f)
    json.dump(with_tartaros(profile), sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
