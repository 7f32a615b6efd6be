#!/usr/bin/env python3
"""The fleet examples against docs/containers.md, and the enforcer's container hints with it.

usage: check_fleet.py SOURCE_DIR

- examples/fleet/job.yaml and examples/fleet/workflow.yml parse as YAML and have the shape of
  a Kubernetes Job and a GitHub Actions workflow;
- each runs `tartaros-exec --strict PLAN -- CMD`, the plan from outside the image (a read-only
  ConfigMap; an artifact one job uploads and the other downloads);
- the Job carries every Kubernetes setting of docs/containers.md's option table, and the
  workflow's container every Docker option of it (the limits as the container's own);
- every option the refusal hints of enforcer/container.cpp name is in that table;
- examples/fleet/seccomp-tartaros.py adds its rule to a profile and keeps the profile's own.
Exits 77 without PyYAML; prints one line per failure and exits 1 if any.
"""
import json
import os
import re
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("SKIP: PyYAML (python3-yaml) is not installed")
    sys.exit(77)

SRC = sys.argv[1]
failures = []


def fail(what):
    failures.append(what)
    print(f"FAIL {what}")


def check(cond, what):
    if not cond:
        fail(what)


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def option_table():
    """docs/containers.md's "The options" table: {first words of 'needed for': {column: text}}."""
    text = read("docs/containers.md")
    m = re.search(r"^## The options\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        fail("docs/containers.md: no '## The options' section")
        return {}
    rows = [line for line in m.group(1).splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    table = {}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) != len(header):
            break  # the next table
        table[cells[0]] = dict(zip(header, cells))
    return table


def row(table, start):
    for key, cells in table.items():
        if key.startswith(start):
            return cells
    fail(f"docs/containers.md: the options table has no row '{start}…'")
    return {}


def column(cells, name):
    for key, value in cells.items():
        if key.startswith(name):
            return value
    return ""


def strict_exec(argv, where):
    """argv is tartaros-exec --strict PLAN -- CMD...; returns PLAN."""
    ok = len(argv) >= 5 and os.path.basename(argv[0]) == "tartaros-exec" and argv[1] == "--strict" and argv[3] == "--"
    check(ok, f"{where}: does not run `tartaros-exec --strict PLAN -- CMD`: {argv}")
    return argv[2] if ok else None


def check_job(table):
    docs = list(yaml.safe_load_all(read("examples/fleet/job.yaml")))
    check(len(docs) == 1 and docs[0].get("kind") == "Job" and docs[0].get("apiVersion") == "batch/v1",
          "job.yaml: not one batch/v1 Job")
    pod = docs[0]["spec"]["template"]["spec"]
    containers = pod.get("containers", [])
    check(len(containers) == 1, "job.yaml: not one container")
    c = containers[0]
    sc = c.get("securityContext", {})
    pod_sc = pod.get("securityContext", {})

    proc = column(row(table, "the sandbox's own `/proc`"), "Kubernetes")
    check("procMount: Unmasked" in proc and "hostUsers: false" in proc, f"containers.md: /proc row, Kubernetes: {proc}")
    check(sc.get("procMount") == "Unmasked", "job.yaml: procMount is not Unmasked")
    check(pod.get("hostUsers") is False, "job.yaml: hostUsers is not false")

    seccomp = column(row(table, "namespaces and mounts"), "Kubernetes")
    profile = sc.get("seccompProfile", pod_sc.get("seccompProfile", {}))
    kind = profile.get("type")
    check(f"type: {kind}" in seccomp, f"job.yaml: seccompProfile type {kind} is not one containers.md names: {seccomp}")
    if kind == "Localhost":
        name = profile.get("localhostProfile", "")
        check(f"localhostProfile: {name}" in seccomp, f"job.yaml: localhostProfile {name} is not containers.md's")

    apparmor = column(row(table, "mounts, on hosts with AppArmor"), "Kubernetes")
    check("appArmorProfile: {type: Unconfined}" in apparmor, f"containers.md: AppArmor row, Kubernetes: {apparmor}")
    check(sc.get("appArmorProfile", {}).get("type") == "Unconfined", "job.yaml: appArmorProfile is not Unconfined")

    root_row = column(row(table, "root whose capabilities"), "Kubernetes")
    uid = sc.get("runAsUser", pod_sc.get("runAsUser"))
    adds = sc.get("capabilities", {}).get("add", [])
    check((uid not in (None, 0)) or "SETFCAP" in adds,
          f"job.yaml: root without SETFCAP ({root_row}); run as a non-root user or add it")
    check(sc.get("allowPrivilegeEscalation") is False, "job.yaml: allowPrivilegeEscalation is not false")

    limits = column(row(table, "`memory_max`"), "Kubernetes")
    check("resources.limits" in limits, f"containers.md: limits row, Kubernetes: {limits}")
    check(c.get("resources", {}).get("limits"), "job.yaml: no resources.limits")

    plan = strict_exec(c.get("command", []) + c.get("args", []), "job.yaml")
    if plan:
        mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
        holder = [m for p, m in mounts.items() if plan.startswith(p.rstrip("/") + "/")]
        check(holder and holder[0].get("readOnly") is True, f"job.yaml: the plan {plan} is not on a read-only mount")
        if holder:
            volumes = {v["name"]: v for v in pod.get("volumes", [])}
            check("configMap" in volumes.get(holder[0]["name"], {}), "job.yaml: the plan is not from a ConfigMap")


def check_workflow(table):
    wf = yaml.safe_load(read("examples/fleet/workflow.yml"))
    on = wf.get("on", wf.get(True))  # YAML 1.1 reads a bare `on` as true
    check(on is not None and isinstance(wf.get("jobs"), dict), "workflow.yml: no `on` or no jobs")
    jobs = wf.get("jobs", {})
    uploads, downloads, runs = {}, {}, []
    for name, job in jobs.items():
        check("runs-on" in job and "steps" in job, f"workflow.yml: job {name} has no runs-on or steps")
        for step in job.get("steps", []):
            uses = step.get("uses", "")
            if uses.startswith("actions/upload-artifact"):
                uploads[step["with"]["name"]] = name
            if uses.startswith("actions/download-artifact"):
                downloads[step["with"]["name"]] = name
            if "tartaros-exec" in step.get("run", ""):
                runs.append((name, job, step["run"]))
    check(len(runs) == 1, f"workflow.yml: {len(runs)} steps run tartaros-exec, not one")
    for artifact, consumer in downloads.items():
        producer = uploads.get(artifact)
        needs = jobs[consumer].get("needs", [])
        needs = [needs] if isinstance(needs, str) else needs
        check(producer in needs, f"workflow.yml: {consumer} downloads {artifact}, which no job it needs uploads")
    for name, job, command in runs:
        argv = command.replace('"', "").split()
        plan = strict_exec(argv, f"workflow.yml: job {name}")
        check(name in downloads.values() and plan and "$RUNNER_TEMP" in plan,
              f"workflow.yml: job {name} does not run a downloaded plan from outside the workspace")
        options = " ".join(str(job.get("container", {}).get("options", "")).split())
        for start in ("the sandbox's own `/proc`", "namespaces and mounts", "mounts, on hosts with AppArmor"):
            docker = column(row(table, start), "Docker")
            named = re.findall(r"`(--security-opt [^`]+)`", docker)
            check(any(o in options for o in named), f"workflow.yml: {name}'s container has none of {named}")
        check("--user" in options and "--user 0" not in options, f"workflow.yml: {name}'s container runs as root")
        check("--memory" in options, f"workflow.yml: {name}'s container has no --memory (the limits row)")


def check_hints(table):
    text = read("enforcer/container.cpp")
    hints = "".join(re.findall(r'"([^"]*)"', text.split("const char *container_hint", 1)[1]))
    doc = read("docs/containers.md")
    for option in re.findall(r"--security-opt [a-z]+=[^ ,()]+|--cap-add \w+|--memory|--cpus|--pids-limit"
                             r"|procMount: \w+|resources\.limits", hints):
        check(option in doc, f"enforcer/container.cpp names {option}, docs/containers.md does not")
    for start, col in (("the sandbox's own `/proc`", "podman"), ("the sandbox's own `/proc`", "Docker")):
        for option in re.findall(r"`([^`]+)`", column(row(table, start), col)):
            check(option in hints, f"docs/containers.md: {option} ({col}) is not in enforcer/container.cpp's hint")


def check_seccomp_tool():
    base = {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names": ["read"], "action": "SCMP_ACT_ALLOW"}]}
    path = os.path.join(os.environ.get("TMPDIR", "/var/tmp"), f"check-fleet-{os.getpid()}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(base, f)
    try:
        out = subprocess.run([sys.executable, os.path.join(SRC, "examples/fleet/seccomp-tartaros.py"), path],
                             capture_output=True, text=True)
    finally:
        os.unlink(path)
    check(out.returncode == 0, f"seccomp-tartaros.py exits {out.returncode}: {out.stderr.strip()}")
    if out.returncode == 0:
        result = json.loads(out.stdout)
        check(result["syscalls"][0] == base["syscalls"][0] and result["defaultAction"] == "SCMP_ACT_ERRNO",
              "seccomp-tartaros.py changed the base profile's own rules")
        added = set(result["syscalls"][-1]["names"])
        for call in ("clone", "unshare", "mount", "open_tree", "move_mount", "fsopen", "pivot_root", "sethostname"):
            check(call in added, f"seccomp-tartaros.py does not allow {call}")


table = option_table()
check_job(table)
check_workflow(table)
check_hints(table)
check_seccomp_tool()
print(f"{len(failures)} failures" if failures else "fleet examples: ok")
sys.exit(1 if failures else 0)
