/* enforcer/kuapi.h — the kernel UAPI pieces musl does not ship (it has no linux/ headers).
 *
 * Values are the stable x86_64 kernel ABI, copied by hand and pinned by the static_asserts
 * at the end; syscall numbers come from musl's <sys/syscall.h>.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace kuapi {

/* openat2(2) */
struct open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};
constexpr uint64_t RESOLVE_NO_XDEV = 0x01;
constexpr uint64_t RESOLVE_NO_MAGICLINKS = 0x02;
constexpr uint64_t RESOLVE_NO_SYMLINKS = 0x04;
constexpr uint64_t RESOLVE_BENEATH = 0x08;
constexpr uint64_t RESOLVE_IN_ROOT = 0x10;

/* open_tree(2) */
constexpr unsigned OPEN_TREE_CLONE = 1u;
constexpr unsigned OPEN_TREE_CLOEXEC = 02000000u; /* == O_CLOEXEC */

/* move_mount(2) */
constexpr unsigned MOVE_MOUNT_F_EMPTY_PATH = 0x04u;
constexpr unsigned MOVE_MOUNT_T_EMPTY_PATH = 0x40u;

/* mount_setattr(2) and fsmount(2) attribute flags */
struct mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};
constexpr uint64_t MOUNT_ATTR_RDONLY = 0x1;
constexpr uint64_t MOUNT_ATTR_NOSUID = 0x2;
constexpr uint64_t MOUNT_ATTR_NODEV = 0x4;
constexpr uint64_t MOUNT_ATTR_NOEXEC = 0x8;

/* fsopen(2), fsconfig(2), fsmount(2) */
constexpr unsigned FSOPEN_CLOEXEC = 1u;
constexpr unsigned FSCONFIG_SET_FLAG = 0u;
constexpr unsigned FSCONFIG_SET_STRING = 1u;
constexpr unsigned FSCONFIG_CMD_CREATE = 6u;
constexpr unsigned FSMOUNT_CLOEXEC = 1u;

/* Landlock (ABI 7 layout; older kernels get a prefix of the ruleset attribute) */
struct landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};
struct __attribute__((packed)) landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
};
constexpr unsigned LANDLOCK_CREATE_RULESET_VERSION = 1u << 0;
constexpr int LANDLOCK_RULE_PATH_BENEATH = 1;
constexpr uint64_t LANDLOCK_NET_ALL = (1ull << 2) - 1;   /* BIND_TCP, CONNECT_TCP */
constexpr uint64_t LANDLOCK_SCOPE_ALL = (1ull << 2) - 1; /* ABSTRACT_UNIX_SOCKET, SIGNAL */

/* capget(2)/capset(2) */
struct cap_header {
    uint32_t version;
    int32_t pid;
};
struct cap_data {
    uint32_t effective;
    uint32_t permitted;
    uint32_t inheritable;
};
constexpr uint32_t LINUX_CAPABILITY_VERSION_3 = 0x20080522u;
constexpr int LINUX_CAPABILITY_U32S_3 = 2;
constexpr int CAP_SETPCAP = 8;
constexpr int CAP_SETFCAP = 31;

/* prctl(PR_SET_SECUREBITS) bits */
constexpr unsigned SECBIT_NOROOT = 1u << 0;
constexpr unsigned SECBIT_NOROOT_LOCKED = 1u << 1;
constexpr unsigned SECBIT_NO_SETUID_FIXUP = 1u << 2;
constexpr unsigned SECBIT_NO_SETUID_FIXUP_LOCKED = 1u << 3;
constexpr unsigned SECBIT_KEEP_CAPS_LOCKED = 1u << 5;
constexpr unsigned SECBIT_NO_CAP_AMBIENT_RAISE = 1u << 6;
constexpr unsigned SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED = 1u << 7;

/* statx(2): only the attribute words are read; the rest of the 256 bytes is left alone. */
struct statx_buf {
    uint32_t stx_mask;
    uint32_t stx_blksize;
    uint64_t stx_attributes;
    uint32_t stx_nlink;
    uint32_t stx_uid;
    uint32_t stx_gid;
    uint16_t stx_mode;
    uint16_t spare0;
    uint64_t stx_ino;
    uint64_t stx_size;
    uint64_t stx_blocks;
    uint64_t stx_attributes_mask;
    uint8_t rest[256 - 64];
};
constexpr unsigned STATX_TYPE = 0x1u;
constexpr uint64_t STATX_ATTR_MOUNT_ROOT = 0x2000; /* Linux 5.8 */

/* futex(2) and set_robust_list(2) */
struct robust_list {
    robust_list *next;
};
struct robust_list_head {
    robust_list list;
    long futex_offset;
    robust_list *list_op_pending;
};
constexpr int FUTEX_WAIT = 0;
constexpr int FUTEX_WAKE = 1;
constexpr uint32_t FUTEX_WAITERS = 0x80000000u;
constexpr uint32_t FUTEX_OWNER_DIED = 0x40000000u;
constexpr uint32_t FUTEX_TID_MASK = 0x3fffffffu;
/* futex_waitv(2), Linux 5.16: no FUTEX2_PRIVATE, so a shared futex as FUTEX_WAIT's */
struct futex_waitv {
    uint64_t val;
    uint64_t uaddr;
    uint32_t flags;
    uint32_t reserved;
};
constexpr uint32_t FUTEX2_SIZE_U32 = 0x02u;
constexpr long SYS_FUTEX_WAITV = 449;

/* close_range(2) */
constexpr unsigned CLOSE_RANGE_CLOEXEC = 1u << 2; /* Linux 5.11 */

/* getdents64(2) */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    uint16_t d_reclen;
    uint8_t d_type;
    char d_name[];
};
constexpr uint8_t DT_UNKNOWN_TYPE = 0;
constexpr uint8_t DT_DIR_TYPE = 4;
constexpr uint8_t DT_LNK_TYPE = 10;

/* seccomp(2). The program itself is ir/plan.h's tp_bpf_insn (struct sock_filter). */
struct sock_fprog {
    unsigned short len;
    const void *filter;
};
constexpr unsigned SECCOMP_SET_MODE_FILTER = 1;
constexpr unsigned SECCOMP_GET_ACTION_AVAIL = 2;
constexpr unsigned SECCOMP_GET_NOTIF_SIZES = 3;
constexpr unsigned SECCOMP_FILTER_FLAG_NEW_LISTENER = 1u << 3;
constexpr unsigned SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV = 1u << 5; /* Linux 5.19 */
constexpr uint32_t SECCOMP_RET_USER_NOTIF = 0x7fc00000u;

/* seccomp user notification (Linux 5.0) */
struct seccomp_data {
    int32_t nr;
    uint32_t arch;
    uint64_t instruction_pointer;
    uint64_t args[6];
};
struct seccomp_notif {
    uint64_t id;
    uint32_t pid;
    uint32_t flags;
    seccomp_data data;
};
struct seccomp_notif_resp {
    uint64_t id;
    int64_t val;
    int32_t error;
    uint32_t flags;
};
struct seccomp_notif_sizes {
    uint16_t seccomp_notif;
    uint16_t seccomp_notif_resp;
    uint16_t seccomp_data;
};
constexpr unsigned long SECCOMP_IOCTL_NOTIF_RECV = 0xc0502100ul;      /* _IOWR('!', 0, seccomp_notif) */
constexpr unsigned long SECCOMP_IOCTL_NOTIF_SEND = 0xc0182101ul;      /* _IOWR('!', 1, seccomp_notif_resp) */
constexpr unsigned long SECCOMP_IOCTL_NOTIF_ID_VALID = 0x40082102ul;  /* _IOW('!', 2, __u64) */
constexpr unsigned long SECCOMP_IOCTL_NOTIF_SET_FLAGS = 0x40082104ul; /* _IOW('!', 4, __u64), Linux 6.6 */
constexpr uint64_t SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP = 1;
constexpr uint32_t SECCOMP_USER_NOTIF_FLAG_CONTINUE = 1u; /* Linux 5.5 */

/* Capabilities the connect mediator keeps. */
constexpr unsigned CAP_SYS_PTRACE = 19;

}  // namespace kuapi

static_assert(sizeof(kuapi::sock_fprog) == 16, "struct sock_fprog");
static_assert(sizeof(kuapi::seccomp_notif) == 80, "struct seccomp_notif");
static_assert(sizeof(kuapi::seccomp_notif_resp) == 24, "struct seccomp_notif_resp");
static_assert(sizeof(kuapi::open_how) == 24, "struct open_how (OPEN_HOW_SIZE_VER0)");
static_assert(sizeof(kuapi::mount_attr) == 32, "struct mount_attr (MOUNT_ATTR_SIZE_VER0)");
static_assert(sizeof(kuapi::landlock_ruleset_attr) == 24, "struct landlock_ruleset_attr, ABI 6+");
static_assert(offsetof(kuapi::landlock_ruleset_attr, handled_access_net) == 8, "ABI 1-3 size");
static_assert(offsetof(kuapi::landlock_ruleset_attr, scoped) == 16, "ABI 4-5 size");
static_assert(sizeof(kuapi::landlock_path_beneath_attr) == 12, "packed path_beneath attr");
static_assert(sizeof(kuapi::cap_header) == 8, "cap_user_header_t");
static_assert(sizeof(kuapi::cap_data) == 12, "cap_user_data_t");
static_assert(offsetof(kuapi::linux_dirent64, d_name) == 19, "struct linux_dirent64");
static_assert(sizeof(kuapi::statx_buf) == 256, "struct statx");
static_assert(sizeof(kuapi::robust_list_head) == 24, "struct robust_list_head");
static_assert(offsetof(kuapi::statx_buf, stx_attributes_mask) == 56, "struct statx attributes_mask");
