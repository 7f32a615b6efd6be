"""tests/integration/broker_helper.py — the two sides of broker.sh that need more than a shell.

Copied into the test's directory (the sandbox may not see the source tree). The secret and the
token reach the host-side commands through the environment (IT_SECRET, IT_TOKEN), never a
command line or a file, so the test itself puts them nowhere the sandbox could look; the
random token, which the agent has anyway, comes from the agent's READY file.

  scan OUT        inside the sandbox, as an attacker who does not know the secret: copies into
                  OUT everything it can read — its environment, every readable file under
                  /proc/PID of every visible pid (symlinks not followed), the memory of every
                  other process whose /proc/PID/mem opens, the top-level files of /proc, and
                  every file under /run and /tmp — for the host to search. Prints
                  scan_pids, scan_files, scan_mem_pids and scan_run_files (counts).
  hostside ROOT BEFORE READY GO OUT
                  on the host, as root: waits for the file BEFORE (the sandbox is up, its
                  transfers not yet started) and notes the proxy's peak RSS, creates
                  BEFORE.go; waits for READY (the transfers are done), then finds the tartaros-exec among ROOT's descendants
                  and, for it and every process below it, whether IT_SECRET is in its environ,
                  its cmdline or (all but tartaros-proxy, which must hold it) its memory, and
                  whether the token (READY's content) is still in the supervisor's memory or on
                  the proxy's command line; describes the proxy (its environment, its peak RSS
                  then). Writes KEY=VALUE lines to OUT, then GO.
  requests LOG PATH
                  from the upstream's request log (tests/proxy/https_upstream.py): what the
                  request for PATH carried — its Authorization headers, whether any header
                  holds IT_TOKEN or names the broker's auth header, and its Host.
"""
import json
import os
import sys
import time

READ_LIMIT = 4 << 20
SKIP_FILES = {"mem", "pagemap", "clear_refs", "kpagecount", "kpageflags", "kpagecgroup", "kcore", "kmsg"}


def read_file(path):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        chunks, left = [], READ_LIMIT
        while left > 0:
            piece = os.read(fd, min(left, 65536))
            if not piece:
                break
            chunks.append(piece)
            left -= len(piece)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def readable_ranges(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    ranges = []
    for line in lines:
        fields = line.split()
        if fields[1][0] != "r" or (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        ranges.append((start, end))
    return ranges


def read_memory(pid, sink):
    """Feeds every readable mapping of `pid` to sink; False when /proc/PID/mem does not open."""
    try:
        fd = os.open(f"/proc/{pid}/mem", os.O_RDONLY)
    except OSError:
        return False
    try:
        for start, end in readable_ranges(pid):
            at = start
            while at < end:
                try:
                    piece = os.pread(fd, min(end - at, 1 << 20), at)
                except OSError:
                    break
                if not piece:
                    break
                sink(piece)
                at += len(piece)
    finally:
        os.close(fd)
    return True


def cmd_scan(out_path):
    me = os.getpid()
    counts = {"pids": 0, "files": 0, "mem_pids": 0, "run_files": 0}
    with open(out_path, "wb") as out:
        def emit(label, data):
            out.write(b"\n== " + label.encode() + b"\n" + data)

        emit("environment", b"\n".join(k.encode() + b"=" + v.encode() for k, v in os.environ.items()))
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        counts["pids"] = len(pids)
        for pid in pids:
            for dirpath, _dirs, files in os.walk(f"/proc/{pid}"):
                for name in files:
                    path = os.path.join(dirpath, name)
                    if name in SKIP_FILES or os.path.islink(path):
                        continue
                    data = read_file(path)
                    if data is not None:
                        counts["files"] += 1
                        emit(path, data)
            # Its own memory holds only what it has read: skipped, or the dump would feed itself.
            if pid != me and read_memory(pid, lambda piece, p=pid: emit(f"/proc/{p}/mem", piece)):
                counts["mem_pids"] += 1
        for name in os.listdir("/proc"):
            path = os.path.join("/proc", name)
            if name not in SKIP_FILES and not name.isdigit() and os.path.isfile(path) and not os.path.islink(path):
                data = read_file(path)
                if data is not None:
                    emit(path, data)
        for top in ("/run", "/tmp"):
            for dirpath, _dirs, files in os.walk(top):
                for name in files:
                    data = read_file(os.path.join(dirpath, name))
                    if data is not None:
                        counts["run_files"] += 1
                        emit(os.path.join(dirpath, name), data)
    for key, value in counts.items():
        print(f"scan_{key}={value}")


def descendants(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task") if os.path.isdir(f"/proc/{pid}/task") else []:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as f:
                children = [int(c) for c in f.read().split()]
        except OSError:
            continue
        for child in children:
            found.append(child)
            found += descendants(child)
    return found


def argv0(pid):
    data = read_file(f"/proc/{pid}/cmdline") or b""
    return os.path.basename(data.split(b"\0")[0].decode(errors="replace"))


def memory_holds(pid, needles):
    """Which of `needles` appear in the memory of `pid` (a needle split across two reads of
    1 MiB is found too: each read is searched with the tail of the one before)."""
    found = set()
    tail = [b""]
    keep = max(len(n) for n in needles)

    def sink(piece):
        window = tail[0] + piece
        found.update(n for n in needles if n in window)
        tail[0] = window[-keep:]
    read_memory(pid, sink)
    return found


def wait_for(path, seconds):
    deadline = time.monotonic() + seconds
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def supervisor_of(root):
    return next((p for p in descendants(root) if argv0(p) == "tartaros-exec"), None)


def peak_rss_kib(pid):
    status = (read_file(f"/proc/{pid}/status") or b"").decode()
    hwm = [line.split()[1] for line in status.splitlines() if line.startswith("VmHWM:")]
    return hwm[0] if hwm else "<missing>"


def proxy_of(root):
    supervisor = supervisor_of(root)
    pids = descendants(supervisor) if supervisor else []
    return next((p for p in pids if argv0(p) == "tartaros-proxy"), None)


def describe(root, token, out):
    secret = os.environ["IT_SECRET"].encode()
    supervisor = supervisor_of(root)
    if supervisor is None:
        out.write("host_supervisor=<none>\n")
        return
    pids = [supervisor] + descendants(supervisor)
    leaks = {"environ": [], "cmdline": [], "mem": []}
    for pid in pids:
        name = argv0(pid)
        for kind in ("environ", "cmdline"):
            if secret in (read_file(f"/proc/{pid}/{kind}") or b""):
                leaks[kind].append(f"{pid}:{name}")
        if name != "tartaros-proxy" and secret in memory_holds(pid, [secret]):
            leaks["mem"].append(f"{pid}:{name}")
        if name == "tartaros-proxy":
            out.write(f"proxy_pid={pid}\n")
            out.write(f"proxy_hwm_kib={peak_rss_kib(pid)}\n")
            out.write(f"proxy_environ_bytes={len(read_file(f'/proc/{pid}/environ') or b'')}\n")
            out.write(f"proxy_cmdline_token={'yes' if token in (read_file(f'/proc/{pid}/cmdline') or b'') else 'no'}\n")
    out.write(f"host_supervisor={supervisor}\nhost_checked={len(pids)}\n")
    for kind, where in leaks.items():
        out.write(f"host_secret_{kind}={','.join(where) or 'none'}\n")
    in_supervisor = memory_holds(supervisor, [secret, token])
    out.write(f"host_token_in_supervisor={'yes' if token in in_supervisor else 'no'}\n")


def cmd_hostside(root, before, ready, go, out_path):
    try:
        with open(out_path, "w") as out:
            try:
                if wait_for(before, 60):
                    proxy = proxy_of(int(root))
                    out.write(f"proxy_hwm_before_kib={peak_rss_kib(proxy) if proxy else '<none>'}\n")
            finally:
                open(before + ".go", "w").close()
            up = wait_for(ready, 60)
            out.write(f"hostside_ready={'ok' if up else 'timeout'}\n")
            if up:
                describe(int(root), (read_file(ready) or b"").strip(), out)
    finally:
        open(go, "w").close()


def cmd_requests(log_path, path):
    token = os.environ["IT_TOKEN"]
    requests = []
    with open(log_path) as f:
        for line in f:
            entry = json.loads(line)
            if entry["path"] == path:
                requests.append(entry)
    print(f"req_count={len(requests)}")
    if not requests:
        return
    headers = requests[-1]["headers"]
    auth = [v for k, v in headers if k.lower() == "authorization"]
    print(f"req_authorization_count={len(auth)}")
    print(f"req_authorization_is_secret={'yes' if auth == ['Bearer ' + os.environ['IT_SECRET']] else 'no'}")
    print(f"req_token_anywhere={'yes' if any(token in k or token in v for k, v in headers) else 'no'}")
    print(f"req_broker_auth_header={'yes' if any(k.lower() == 'x-broker-auth' for k, _ in headers) else 'no'}")
    print(f"req_host={','.join(v for k, v in headers if k.lower() == 'host')}")


if __name__ == "__main__":
    command, *rest = sys.argv[1:]
    if command == "scan":
        cmd_scan(rest[0])
    elif command == "hostside":
        cmd_hostside(*rest[:5])
    elif command == "requests":
        cmd_requests(rest[0], rest[1])
    else:
        sys.exit(f"unknown command {command}")
