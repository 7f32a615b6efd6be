/* ir/plan.h — the TartarOS plan: record layouts shared by compiler and enforcer.
 *
 * Plain C (C99/C++20 compatible), no dependencies beyond <stdint.h>: the static musl
 * enforcer and the glibc compiler include the same file. ir/FORMAT.md documents every
 * field; a change here is a change of the on-disk format and bumps TP_FORMAT_VERSION.
 *
 * Invariants of a well-formed plan (checked by ir/plan_reader before any use):
 *  - little-endian; every multi-byte field naturally aligned; sections 8-aligned;
 *  - header.total_size equals the file size; header.checksum is FNV-1a-64 of the whole
 *    file with the checksum field taken as zero;
 *  - the section table follows the header; sections lie inside the file, do not overlap,
 *    and each has size == count * record_size with record_size the one fixed for its type;
 *  - every tp_str lies inside the string table and is followed by a NUL byte;
 *  - section types are known to this version; singleton sections appear at most once;
 *  - counts never exceed the TP_MAX_* limits below.
 */
#ifndef TARTAROS_IR_PLAN_H
#define TARTAROS_IR_PLAN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_MAGIC          "TARTPLAN" /* 8 bytes, no NUL in the file */
#define TP_FORMAT_VERSION 7u
#define TP_ARCH_X86_64    0xC000003Eu /* AUDIT_ARCH_X86_64 */

/* Hard limits: the reader refuses plans beyond them, so no count is unbounded. */
#define TP_MAX_PLAN_SIZE (16u << 20)
#define TP_MAX_SECTIONS  32u
#define TP_MAX_RECORDS   65536u
#define TP_MAX_PATH      4096u

/* A string: offset and length (without the trailing NUL) into the string table. */
struct tp_str {
    uint32_t off;
    uint32_t len;
};

/* Where a step came from: a line and column of one of the policy's files (line 0 = implied
 * default). file 0 is the policy file (tp_meta.policy_path); k >= 1 is record k-1 of
 * TP_SEC_SOURCES (a file the policy included). col is clamped at 65535. */
struct tp_origin {
    uint32_t line;
    uint16_t col;
    uint16_t file;
};

/* Kernel features a plan needs to be enforced in full (header.required_features). */
enum tp_feature {
    TP_FEAT_USERNS = 1u << 0,
    TP_FEAT_MOUNTNS = 1u << 1,
    TP_FEAT_PIDNS = 1u << 2,
    TP_FEAT_NETNS = 1u << 3,
    TP_FEAT_IPCNS = 1u << 4,
    TP_FEAT_UTSNS = 1u << 5,
    TP_FEAT_CGROUPNS = 1u << 6,
    TP_FEAT_LANDLOCK = 1u << 7,
    TP_FEAT_SECCOMP = 1u << 8,
    TP_FEAT_OPENAT2 = 1u << 9,
    TP_FEAT_MOUNT_API = 1u << 10 /* open_tree / move_mount / mount_setattr */
};

struct tp_header {              /* 64 bytes */
    uint8_t magic[8];           /* TP_MAGIC */
    uint32_t format_version;    /* TP_FORMAT_VERSION */
    uint32_t header_size;       /* sizeof(struct tp_header) */
    uint32_t total_size;        /* bytes in the whole plan */
    uint32_t section_count;     /* entries in the section table */
    uint32_t section_table_off; /* == header_size */
    uint32_t arch;              /* TP_ARCH_X86_64 */
    uint64_t required_features; /* OR of tp_feature */
    uint32_t min_landlock_abi;  /* lowest ABI that enforces every Landlock rule in full */
    uint32_t reserved0;         /* zero */
    uint64_t checksum;          /* FNV-1a-64, see above */
    uint64_t reserved1;         /* zero */
};

/* Section types. A reader refuses any other value. */
enum tp_section_type {
    TP_SEC_STRTAB = 1,         /* bytes; record_size 1 */
    TP_SEC_META = 2,           /* singleton tp_meta */
    TP_SEC_NAMESPACES = 3,     /* singleton tp_namespaces */
    TP_SEC_MOUNTS = 4,         /* tp_mount[], in execution order */
    TP_SEC_LANDLOCK = 5,       /* singleton tp_landlock_ruleset */
    TP_SEC_LANDLOCK_FS = 6,    /* tp_landlock_path[] */
    TP_SEC_ENV = 7,            /* tp_env[] */
    TP_SEC_EXEC = 8,           /* singleton tp_exec */
    TP_SEC_SECCOMP = 9,        /* singleton tp_seccomp: which profile the filter implements */
    TP_SEC_SECCOMP_BPF = 10,   /* tp_bpf_insn[]: the filter, classic BPF as the kernel loads it */
    TP_SEC_NETWORK = 11,       /* singleton tp_network: which relays and the proxy the run starts */
    TP_SEC_NET_PORTS = 12,     /* tp_net_port[] */
    TP_SEC_NET_NAMES = 13,     /* tp_net_name[]: the proxy's allow/deny patterns and host pins */
    TP_SEC_LIMITS = 14,        /* singleton tp_limits: cgroup limits and the wall-clock timeout */
    TP_SEC_RLIMITS = 15,       /* tp_rlimit[], ascending resource: the command's setrlimit values */
    TP_SEC_BROKER = 16,        /* singleton tp_broker: the credential broker */
    TP_SEC_BROKER_CAPS = 17,   /* tp_broker_cap[]: the broker's capabilities, in policy order */
    TP_SEC_SOURCES = 18,       /* tp_str[]: absolute paths of the files the policy included */
    TP_SEC_SYSCALL_RULES = 19, /* tp_syscall_rule[]: the policy's syscall deny rules, in policy order */
    TP_SEC_SYSCALL_TESTS = 20, /* tp_syscall_test[]: their argument tests, rule after rule */
    TP_SEC_SYSCALL_VALUES = 21 /* uint32_t[]: the tests' values, test after test */
};

#define TP_SECF_REQUIRED 1u /* the guarantee this section carries may not degrade */

struct tp_section {       /* 24 bytes */
    uint32_t type;        /* tp_section_type */
    uint32_t flags;       /* TP_SECF_* */
    uint32_t offset;      /* from the start of the plan, 8-aligned */
    uint32_t size;        /* bytes */
    uint32_t count;       /* records */
    uint32_t record_size; /* fixed per type */
};

/* TP_SEC_META: where the plan came from (for --explain and the effect log). */
struct tp_meta {               /* 24 bytes */
    struct tp_str policy_path; /* absolute path of the policy file */
    struct tp_str compiler;    /* "tartaros-compile <version>" */
    uint32_t policy_version;   /* the policy's `version` */
    uint32_t reserved;
};

/* TP_SEC_NAMESPACES */
enum tp_ns_flag {
    TP_NS_USER = 1u << 0,
    TP_NS_MOUNT = 1u << 1,
    TP_NS_PID = 1u << 2,
    TP_NS_NET = 1u << 3,
    TP_NS_IPC = 1u << 4,
    TP_NS_UTS = 1u << 5,
    TP_NS_CGROUP = 1u << 6
};
struct tp_namespaces {      /* 24 bytes */
    uint32_t flags;         /* tp_ns_flag: namespaces to create */
    uint32_t required;      /* subset of flags that may not degrade */
    struct tp_str hostname; /* for the UTS namespace; empty = "tartaros" */
    struct tp_origin origin;
};

/* TP_SEC_MOUNTS: one step of building the sandbox's mount tree. The compiler emits them
 * parents before children; the enforcer runs them in order, after first taking a
 * detached clone (open_tree) of every source that names the host tree, so that a step
 * never sees an earlier step's result as its source. */
enum tp_mount_op {
    TP_MNT_ROOT_READONLY = 1, /* make every inherited mount read-only (recursive), nosuid, nodev */
    TP_MNT_ROOT_EMPTY = 2,    /* new root is an empty tmpfs; later steps bind back what is allowed */
    TP_MNT_BIND = 3,          /* bind host `source` (recursive) at `path`; TP_MNTF_RDONLY for ro */
    TP_MNT_PIN = 4,           /* bind `path` onto itself (rw) so it cannot be renamed or removed;
                                  carries the `anchor` of the deny it protects, and
                                  MATERIALIZE_DIR or OPTIONAL for when it is absent */
    TP_MNT_WRITE_DENY = 5,    /* read-only bind of `path` onto itself; absent: see TP_MNTF_MATERIALIZE_* */
    TP_MNT_MASK = 6,          /* hide `path`: empty read-only tmpfs (dir) or /dev/null nodev (file) */
    TP_MNT_SYMLINK = 7,       /* create symlink `path` -> `source` (inside an empty tmpfs parent) */
    TP_MNT_DEV = 8,           /* minimal private /dev at `path` */
    TP_MNT_PROC = 9,          /* fresh procfs of the new PID namespace at `path` */
    TP_MNT_TMPFS = 10         /* private writable tmpfs at `path` (private_tmp at /tmp,
                                  private_dirs elsewhere) */
};
/* The compiler emits at most this many TMPFS steps for private_dirs: the connect mediator
 * records that many (besides /tmp, /dev/shm and the credentials directory) as the sandbox's
 * own; a plan with more is not refused, the surplus is simply not the sandbox's (bind fails). */
#define TP_MAX_PRIVATE_DIRS 16u
enum tp_mount_flag {
    TP_MNTF_RDONLY = 1u << 0,
    TP_MNTF_MATERIALIZE_DIR = 1u << 1,  /* WRITE_DENY/MASK target absent: create an empty dir first */
    TP_MNTF_MATERIALIZE_FILE = 1u << 2, /* ... or an empty file */
    TP_MNTF_MASK_ABSENT = 1u << 3,      /* target absent, no materialize: mask the first missing
                                             component (a synthetic mountpoint, removed after the run) */
    TP_MNTF_OPTIONAL = 1u << 4,         /* BIND: source absent, other ops: target absent -> skip
                                             the step (e.g. /lib64 on some hosts) */
    TP_MNTF_REQUIRED = 1u << 5,         /* the guarantee may not degrade */
    TP_MNTF_CREDENTIALS = 1u << 6,      /* TMPFS only: the run's credentials directory
                                             (TP_CREDENTIALS_DIR): the broker token is written
                                             into it as TP_BROKER_TOKEN_FILE (0400), then the
                                             tmpfs is made read-only */
    TP_MNTF_PLACEHOLDER = 1u << 7,      /* WRITE_DENY with MATERIALIZE_DIR or _FILE: the absent
                                             target is made for the run only (a file holding
                                             `source`), when its parent exists (else as
                                             MASK_ABSENT), and removed after the run if it is
                                             still exactly what was made */
    TP_MNTF_GIT = 1u << 8,              /* WRITE_DENY: a file through which git runs code,
                                             implied by a write deny on the repository's hooks */
    TP_MNTF_LINK_TARGET = 1u << 9       /* WRITE_DENY: where a symlink in a write-denied
                                             directory leads; `source` names that symlink */
};
/* Where the agent finds the broker's token (systemd's $CREDENTIALS_DIRECTORY convention). */
#define TP_CREDENTIALS_DIR   "/run/credentials/tartaros"
#define TP_BROKER_TOKEN_FILE "broker-token"
struct tp_mount {         /* 40 bytes */
    uint32_t op;          /* tp_mount_op */
    uint32_t flags;       /* tp_mount_flag */
    struct tp_str path;   /* absolute, normalised target in the sandbox */
    struct tp_str source; /* BIND: host source; SYMLINK: link target; else empty */
    struct tp_str anchor; /* WRITE_DENY/MASK/PIN inside a writable root: that root. Walks
                                      below it never follow symlinks (RESOLVE_BENEATH|NO_SYMLINKS) */
    struct tp_origin origin;
};

/* TP_SEC_LANDLOCK: the ruleset. Access bits are the kernel's LANDLOCK_ACCESS_FS_* values
 * (ABI 7 numbering); the enforcer masks them to the running ABI and reports what it lost. */
struct tp_landlock_ruleset { /* 32 bytes */
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
    uint32_t abi;   /* ABI the rights were computed for */
    uint32_t flags; /* TP_MNTF_REQUIRED reused as "required" */
};

enum tp_landlock_rule_kind {
    TP_LL_PATH = 1,  /* grant `access` beneath `path` */
    TP_LL_EXPAND = 2 /* list directory `path` at run time and grant `access` beneath each entry
                          except those named in `except` ('/'-separated names); entries that are
                          not directories get `access` masked to file rights */
};
struct tp_landlock_path { /* 40 bytes */
    uint64_t access;
    uint32_t kind;  /* tp_landlock_rule_kind */
    uint32_t flags; /* TP_MNTF_OPTIONAL: path may be absent at run time */
    struct tp_str path;
    struct tp_str except; /* EXPAND only */
    struct tp_origin origin;
};

/* TP_SEC_ENV: the command's environment, built from nothing unless tp_exec says inherit. */
enum tp_env_op {
    TP_ENV_PASS = 1, /* copy `name` from the launcher's environment if set */
    TP_ENV_SET = 2   /* set `name` = `value` */
};
struct tp_env { /* 32 bytes */
    uint32_t op;
    uint32_t reserved;
    struct tp_str name;
    struct tp_str value;
    struct tp_origin origin;
};

/* TP_SEC_EXEC: how the command is started. */
enum tp_exec_flag {
    TP_EXEC_INHERIT_ENV = 1u << 0 /* start from the launcher's environment, then apply tp_env */
};
struct tp_exec { /* 16 bytes */
    uint32_t flags;
    uint32_t reserved;
    struct tp_origin origin;
};

/* TP_SEC_SECCOMP: the profile the compiler lowered into TP_SEC_SECCOMP_BPF. The enforcer only
 * loads the program; --verify rebuilds the profile's intended action table from these flags
 * and the policy's rules (TP_SEC_SYSCALL_RULES) and checks the program against it
 * (translation validation). */
enum tp_seccomp_profile {
    TP_SC_HARDEN = 1u << 0,   /* [process] harden_syscalls: the hardening deny list */
    TP_SC_DENY_UNIX = 1u << 1 /* [network] deny_unix: AF_UNIX sockets and socketpairs refused */
};
struct tp_seccomp {                    /* 24 bytes */
    uint32_t profile;                  /* tp_seccomp_profile bits; the baseline is always on */
    uint32_t table_max_nr;             /* highest native syscall number the compiler's table knows */
    struct tp_origin harden_origin;    /* where harden_syscalls was set (0,0 = default) */
    struct tp_origin deny_unix_origin; /* where deny_unix was set (0,0 = default) */
};

/* TP_SEC_SYSCALL_RULES: one `deny` rule of the policy (compiler/policy.h SyscallDenyRule), part
 * of the profile TP_SEC_SECCOMP names: --verify and --explain rebuild the intended profile
 * from TP_SC_* and these rules. The tests of rule i are records first_test .. first_test +
 * test_count - 1 of TP_SEC_SYSCALL_TESTS and follow those of rule i-1 (every test belongs to
 * exactly one rule); the values of the tests likewise in TP_SEC_SYSCALL_VALUES. Present only
 * with TP_SEC_SECCOMP; TESTS only with RULES, VALUES only with TESTS. */
#define TP_MAX_SYSCALL_RULES 256u  /* compiler/policy.h kMaxSyscallRules */
#define TP_MAX_SOURCES       1024u /* files a policy may include */
struct tp_syscall_rule {           /* 24 bytes */
    uint32_t nr;                   /* a native x86_64 syscall of the table (ir/syscall_names.h) */
    uint32_t action;               /* TP_RET_ERRNO | errno (1..4095), or TP_RET_KILL_PROCESS */
    uint32_t first_test;           /* index into TP_SEC_SYSCALL_TESTS */
    uint32_t test_count;           /* 0..6, all must hold; 0 = every call */
    struct tp_origin origin;       /* the rule's `deny` */
};

/* The low 32 bits of argument `arg` against the test's values (the kernel reads int arguments
 * as 32 bits, so a test on the full register could be sidestepped with the high word). */
enum tp_arg_test_kind {
    TP_ARG_IN = 1,      /* low32 is one of the values (sorted, unique, at least one) */
    TP_ARG_NOT_IN = 2,  /* low32 is none of them (sorted, unique, at least one) */
    TP_ARG_ANY_BIT = 3, /* low32 & mask != 0: exactly one value, the non-zero mask */
    TP_ARG_NO_BIT = 4   /* low32 & mask == 0: exactly one value, the non-zero mask */
};
struct tp_syscall_test {  /* 12 bytes; a rule's tests in strictly ascending arg */
    uint8_t arg;          /* 0..5 */
    uint8_t kind;         /* tp_arg_test_kind */
    uint16_t reserved;    /* zero */
    uint32_t first_value; /* index into TP_SEC_SYSCALL_VALUES */
    uint32_t value_count;
};

/* TP_SEC_SECCOMP_BPF: one classic BPF instruction (the kernel's struct sock_filter). */
struct tp_bpf_insn { /* 8 bytes */
    uint16_t code;
    uint8_t jt;
    uint8_t jf;
    uint32_t k;
};

/* TP_SEC_NETWORK: what crosses the private network namespace, all through tartaros-proxy,
 * which runs on the host side and is handed listeners made inside (shared/net_channel.h). Absent:
 * nothing crosses (mode "none"). The modes combine. */
enum tp_net_mode {
    TP_NET_PROXY = 1u << 0,  /* HTTP proxy on 127.0.0.1:proxy_port inside, for the NAMES */
    TP_NET_PORTS = 1u << 1,  /* each LOCAL port: 127.0.0.1:PORT inside -> host 127.0.0.1:PORT */
    TP_NET_EXPOSE = 1u << 2, /* each EXPOSE port: host 127.0.0.1:PORT -> 127.0.0.1:PORT inside */
    TP_NET_BROKER = 1u << 3  /* the credential broker on 127.0.0.1:broker.port inside */
};
struct tp_network {          /* 16 bytes */
    uint32_t modes;          /* tp_net_mode; never 0 when the section is present */
    uint16_t proxy_port;     /* PROXY: where it listens inside; else 0 */
    uint16_t reserved;       /* zero */
    struct tp_origin origin; /* the [network] table */
};

/* TP_SEC_NET_PORTS, in policy order within each kind; a port appears once per kind, and a
 * LOCAL or EXPOSE port is never the proxy port nor both LOCAL and EXPOSE. */
enum tp_net_port_kind {
    TP_PORT_LOCAL = 1,      /* relayed out (local_ports) */
    TP_PORT_EXPOSE = 2,     /* relayed in (expose_ports) */
    TP_PORT_DESTINATION = 3 /* a destination port the proxy may connect to (domain_ports) */
};
struct tp_net_port {   /* 16 bytes */
    uint16_t port;     /* 1..65535 */
    uint16_t kind;     /* tp_net_port_kind */
    uint32_t reserved; /* zero */
    struct tp_origin origin;
};

/* TP_SEC_NET_NAMES: normalised as the proxy matches them (compiler/policy.h). */
enum tp_net_name_kind {
    TP_NAME_ALLOW = 1,      /* `name`: an exact host or "*.suffix" */
    TP_NAME_DENY = 2,       /* the same; wins over ALLOW */
    TP_NAME_PIN = 3,        /* `name` resolves only to `address` (an IP literal) */
    TP_NAME_BROKER_HOST = 4 /* the broker's allowed_hosts: an exact host or "*.suffix" */
};
struct tp_net_name {   /* 32 bytes */
    uint32_t kind;     /* tp_net_name_kind */
    uint32_t reserved; /* zero */
    struct tp_str name;
    struct tp_str address; /* PIN only; else empty */
    struct tp_origin origin;
};

/* TP_SEC_BROKER: the credential broker, served by tartaros-proxy on the host side from a
 * listener made inside (TNC_BROKER). A request to 127.0.0.1:port/<capability>/<path> that
 * carries `auth_header: <token>` goes to https://<cap host>:<cap port>/<path> with the
 * capability's header set to value_format with {value} replaced by the launcher's value_env.
 * The token and the values are never in the plan: only the names of the launcher's
 * environment variables that hold them. The enforcer removes those variables from every
 * environment it builds. Present exactly when TP_NET_BROKER is on. */
enum tp_broker_flag {
    TP_BROKER_ALLOW_INTERNAL = 1u << 0 /* upstreams may resolve to internal addresses */
};
struct tp_broker {             /* 40 bytes */
    uint16_t port;             /* 127.0.0.1:port inside; no other listener's port */
    uint16_t flags;            /* tp_broker_flag */
    uint32_t reserved;         /* zero */
    struct tp_str auth_header; /* the header that carries the token (an HTTP field name) */
    struct tp_str token_env;   /* launcher variable holding the token; empty: a random
                                      token per run */
    struct tp_str ca_file;     /* absolute path of extra trusted CAs (PEM); empty: the
                                      system store only */
    struct tp_origin origin;   /* the [broker] table */
};
#define TP_MAX_BROKER_CAPS        64u
/* Bounds of the broker's strings, shared by the reader, the compiler and the proxy. */
#define TP_BROKER_MAX_HEADER_NAME 64u  /* auth_header, a capability's header */
#define TP_BROKER_MAX_ENV_NAME    255u /* token_env, value_env */
#define TP_BROKER_MAX_CAP_NAME    64u
#define TP_BROKER_MAX_FORMAT      1024u /* value_format */
#define TP_BROKER_MAX_METHOD      32u   /* one method */
#define TP_BROKER_MAX_PREFIX      1024u /* one path prefix */

/* TP_SEC_BROKER_CAPS: one capability; 1..TP_MAX_BROKER_CAPS records, names unique. */
struct tp_broker_cap {           /* 72 bytes */
    struct tp_str name;          /* the first path segment: [A-Za-z0-9._-], 1..64 bytes */
    struct tp_str host;          /* upstream: a normalised name or IP literal, matched by a
                                      BROKER_HOST name */
    struct tp_str header;        /* the header the value is injected into (a field name) */
    struct tp_str value_env;     /* launcher variable holding the value */
    struct tp_str value_format;  /* printable ASCII, "{value}" exactly once */
    struct tp_str methods;       /* upper-case methods separated by one space; empty: any */
    struct tp_str path_prefixes; /* prefixes starting with '/', separated by one space;
                                      empty: any path */
    uint16_t port;               /* upstream HTTPS port, 1..65535 (443 by default) */
    uint16_t reserved0;          /* zero */
    uint32_t reserved1;          /* zero */
    struct tp_origin origin;
};

/* TP_SEC_LIMITS: what the sandbox as a whole may use, and for how long. Absent: no limit and
 * no timeout. A field is 0 when the policy does not set it; the section is present when one
 * is set. With TP_SECF_REQUIRED a limit this host cannot enforce through a cgroup refuses a
 * --strict run; a weaker fallback (RLIMIT_NPROC for max_processes) does not count. */
struct tp_limits {          /* 72 bytes */
    uint64_t max_processes; /* tasks (threads count) of the command and its descendants:
                                      1..TP_MAX_PROCESSES; the enforcer adds its own helpers */
    uint64_t memory_max;    /* bytes, TP_MIN_MEMORY..TP_MAX_MEMORY; swap is not extra */
    uint32_t cpu_quota_us;  /* CPU time per period (1 CPU = cpu_period_us), >= 1000 */
    uint32_t cpu_period_us; /* TP_CPU_PERIOD_US when cpu_quota_us is set, else 0 */
    uint64_t timeout_ms;    /* wall clock from the start to SIGTERM, <= TP_MAX_TIMEOUT_MS */
    uint64_t grace_ms;      /* SIGTERM to SIGKILL of everything; set iff timeout_ms is,
                                      <= TP_MAX_GRACE_MS */
    struct tp_origin max_processes_origin;
    struct tp_origin memory_max_origin;
    struct tp_origin cpu_max_origin;
    struct tp_origin timeout_origin;
};
#define TP_MAX_PROCESSES  4194304ull                 /* PID_MAX_LIMIT */
#define TP_MIN_MEMORY     (1ull << 20)               /* 1 MiB: below it nothing starts */
#define TP_MAX_MEMORY     (1ull << 50)               /* 1 PiB */
#define TP_CPU_PERIOD_US  100000u                    /* the kernel's default CFS period */
#define TP_MAX_CPU_QUOTA  (TP_CPU_PERIOD_US * 4096u) /* 4096 CPUs */
#define TP_MAX_TIMEOUT_MS (366ull * 24 * 3600 * 1000)
#define TP_MAX_GRACE_MS   (3600ull * 1000)

/* TP_SEC_RLIMITS: applied to the command before it executes (its descendants inherit them).
 * Neither value is ever raised above the hard limit the enforcer itself runs with. */
struct tp_rlimit {     /* 32 bytes */
    uint32_t resource; /* Linux RLIMIT_* number, one of TP_RLIMIT_KNOWN */
    uint32_t reserved; /* zero */
    uint64_t soft;     /* TP_RLIM_INFINITY = unlimited; soft <= hard */
    uint64_t hard;
    struct tp_origin origin; /* (0,0): the default core = 0 */
};
#define TP_RLIM_INFINITY (~0ull)
/* RLIMIT_CPU 0, FSIZE 1, DATA 2, STACK 3, CORE 4, NPROC 6, NOFILE 7, MEMLOCK 8, AS 9,
 * LOCKS 10, SIGPENDING 11, MSGQUEUE 12, NICE 13, RTPRIO 14, RTTIME 15 (not RSS 5: no effect). */
#define TP_RLIMIT_KNOWN  (0xffffu & ~(1u << 5))

/* Landlock filesystem access rights (kernel UAPI values). */
#define TP_LL_FS_EXECUTE                 (1ull << 0)
#define TP_LL_FS_WRITE_FILE              (1ull << 1)
#define TP_LL_FS_READ_FILE               (1ull << 2)
#define TP_LL_FS_READ_DIR                (1ull << 3)
#define TP_LL_FS_REMOVE_DIR              (1ull << 4)
#define TP_LL_FS_REMOVE_FILE             (1ull << 5)
#define TP_LL_FS_MAKE_CHAR               (1ull << 6)
#define TP_LL_FS_MAKE_DIR                (1ull << 7)
#define TP_LL_FS_MAKE_REG                (1ull << 8)
#define TP_LL_FS_MAKE_SOCK               (1ull << 9)
#define TP_LL_FS_MAKE_FIFO               (1ull << 10)
#define TP_LL_FS_MAKE_BLOCK              (1ull << 11)
#define TP_LL_FS_MAKE_SYM                (1ull << 12)
#define TP_LL_FS_REFER                   (1ull << 13) /* ABI 2 */
#define TP_LL_FS_TRUNCATE                (1ull << 14) /* ABI 3 */
#define TP_LL_FS_IOCTL_DEV               (1ull << 15) /* ABI 5 */
#define TP_LL_FS_ALL_ABI7                ((1ull << 16) - 1)
/* Landlock scopes (ABI 6): IPC the sandbox may not reach outside its own Landlock domain. */
#define TP_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0)
#define TP_LL_SCOPE_SIGNAL               (1ull << 1)

/* Rights that apply to a regular file (the rest only make sense on directories). */
#define TP_LL_FS_FILE_RIGHTS                                                                                           \
    (TP_LL_FS_EXECUTE | TP_LL_FS_WRITE_FILE | TP_LL_FS_READ_FILE | TP_LL_FS_TRUNCATE | TP_LL_FS_IOCTL_DEV)

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
static_assert(sizeof(struct tp_header) == 64, "tp_header layout");
static_assert(sizeof(struct tp_section) == 24, "tp_section layout");
static_assert(sizeof(struct tp_meta) == 24, "tp_meta layout");
static_assert(sizeof(struct tp_namespaces) == 24, "tp_namespaces layout");
static_assert(sizeof(struct tp_mount) == 40, "tp_mount layout");
static_assert(sizeof(struct tp_landlock_ruleset) == 32, "tp_landlock_ruleset layout");
static_assert(sizeof(struct tp_landlock_path) == 40, "tp_landlock_path layout");
static_assert(sizeof(struct tp_env) == 32, "tp_env layout");
static_assert(sizeof(struct tp_exec) == 16, "tp_exec layout");
static_assert(sizeof(struct tp_seccomp) == 24, "tp_seccomp layout");
static_assert(sizeof(struct tp_bpf_insn) == 8, "tp_bpf_insn layout");
static_assert(sizeof(struct tp_network) == 16, "tp_network layout");
static_assert(sizeof(struct tp_net_port) == 16, "tp_net_port layout");
static_assert(sizeof(struct tp_net_name) == 32, "tp_net_name layout");
static_assert(sizeof(struct tp_limits) == 72, "tp_limits layout");
static_assert(sizeof(struct tp_rlimit) == 32, "tp_rlimit layout");
static_assert(sizeof(struct tp_broker) == 40, "tp_broker layout");
static_assert(sizeof(struct tp_broker_cap) == 72, "tp_broker_cap layout");
static_assert(sizeof(struct tp_origin) == 8, "tp_origin layout");
static_assert(sizeof(struct tp_syscall_rule) == 24, "tp_syscall_rule layout");
static_assert(sizeof(struct tp_syscall_test) == 12, "tp_syscall_test layout");
#endif

#endif /* TARTAROS_IR_PLAN_H */
