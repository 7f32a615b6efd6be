// Tests of compiler/explain: the text and JSON forms of a writer-built plan, and the
// refusal of an invalid one with the reader's reason.
#include <doctest/doctest.h>

#include <cctype>
#include <sstream>
#include <string>
#include <vector>

#include "explain.h"
#include "json_checker.h"
#include "lower.h"
#include "plan_writer.h"
#include "seccomp_lower.h"
#include "seccomp_rules.h"
#include "syscall_table.h"

using tartaros::explain_plan;
using tartaros::ir::PlanWriter;
using tartaros::test::JsonChecker;

namespace {

constexpr uint64_t kRead = TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR | TP_LL_FS_EXECUTE;

void add_mount(PlanWriter &w, uint32_t op, uint32_t flags, const char *path, const char *source, const char *anchor,
               tp_origin origin)
{
    tp_mount m{};
    m.op = op;
    m.flags = flags;
    m.path = w.str(path);
    m.source = w.str(source);
    m.anchor = w.str(anchor);
    m.origin = origin;
    w.add_mount(m);
}

void add_rule(PlanWriter &w, uint32_t kind, uint64_t access, uint32_t flags, const char *path, const char *except,
              tp_origin origin)
{
    tp_landlock_path r{};
    r.kind = kind;
    r.access = access;
    r.flags = flags;
    r.path = w.str(path);
    r.except = w.str(except);
    r.origin = origin;
    w.add_landlock_path(r);
}

void add_env(PlanWriter &w, uint32_t op, const char *name, const char *value, tp_origin origin)
{
    tp_env e{};
    e.op = op;
    e.name = w.str(name);
    e.value = w.str(value);
    e.origin = origin;
    w.add_env(e);
}

std::vector<uint8_t> sample_plan(const char *odd_path = "/home/u/.ssh")
{
    PlanWriter w;
    w.set_meta({w.str("/home/u/proj/policy.toml"), w.str("tartaros-compile 0.1.0"), 1, 0});
    w.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_PID | TP_NS_UTS, TP_NS_USER | TP_NS_MOUNT, w.str(""), {3, 1, 0}},
                     true);
    add_mount(w, TP_MNT_ROOT_READONLY, TP_MNTF_REQUIRED, "/", "", "", {0, 0, 0});
    add_mount(w, TP_MNT_DEV, 0, "/dev", "", "", {0, 0, 0});
    add_mount(w, TP_MNT_BIND, 0, "/home/u/proj", "/home/u/proj", "", {5, 12, 0});
    add_mount(w, TP_MNT_MASK, TP_MNTF_MASK_ABSENT, odd_path, "", "", {9, 3, 0});
    add_mount(w, TP_MNT_PIN, 0, "/home/u/proj", "", "/home/u/proj", {7, 3, 0});
    add_mount(w, TP_MNT_WRITE_DENY, TP_MNTF_REQUIRED | TP_MNTF_MATERIALIZE_DIR, "/home/u/proj/.git/hooks", "",
              "/home/u/proj", {7, 3, 0});
    add_mount(w, TP_MNT_SYMLINK, 0, "/bin", "usr/bin", "", {0, 0, 0});
    add_mount(w, TP_MNT_BIND, TP_MNTF_RDONLY | TP_MNTF_OPTIONAL, "/lib64", "/lib64", "", {0, 0, 0});
    w.set_mounts_required(true);
    w.set_landlock({TP_LL_FS_ALL_ABI7, 0, 0, 7, TP_MNTF_REQUIRED}, true);
    add_rule(w, TP_LL_PATH, kRead, 0, "/usr", "", {0, 0, 0});
    add_rule(w, TP_LL_EXPAND, kRead, TP_MNTF_OPTIONAL, "/home/u", ".ssh/.gnupg", {14, 1, 0});
    add_rule(w, TP_LL_PATH, TP_LL_FS_ALL_ABI7, 0, "/home/u/proj", "", {5, 12, 0});
    add_env(w, TP_ENV_PASS, "TERM", "", {0, 0, 0});
    add_env(w, TP_ENV_SET, "PATH", "/usr/bin:/bin", {17, 5, 0});
    w.set_exec({0, 0, {20, 1, 0}});
    w.set_required_features(TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_LANDLOCK);
    w.set_min_landlock_abi(5);
    return w.finish();
}

std::string explain(const std::vector<uint8_t> &plan, bool json)
{
    std::ostringstream out;
    std::string err;
    bool ok = explain_plan(plan, json, out, err);
    REQUIRE_MESSAGE(ok, err);
    CHECK(err.empty());
    return out.str();
}

bool has(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("explain: text lists every step in execution order with its origin")
{
    std::vector<uint8_t> plan = sample_plan();
    std::string text = explain(plan, false);

    CHECK(has(text, "plan: format 7, " + std::to_string(plan.size()) + " bytes, checksum 0x"));
    CHECK(has(text, "required features: userns|mountns|landlock\n"));
    CHECK(has(text, "minimum Landlock ABI: 5\n"));
    CHECK(has(text, "policy: /home/u/proj/policy.toml (version 1)\n"));
    CHECK(has(text, "compiler: tartaros-compile 0.1.0\n"));

    CHECK(has(text, "1. namespaces: user, mount, pid, uts; required: user, mount  policy.toml:3:1\n"));
    CHECK(has(text, "   hostname: tartaros\n"));
    CHECK(has(text, "3. mounts: 8 steps (required)\n"));
    CHECK(has(text, "   3.1 root_readonly / [required]  (default)\n"));
    CHECK(has(text, "   3.3 bind /home/u/proj <- /home/u/proj  policy.toml:5:12\n"));
    CHECK(has(text, "   3.4 mask /home/u/.ssh [mask_absent]  policy.toml:9:3\n"));
    CHECK(has(text,
              "   3.6 write_deny /home/u/proj/.git/hooks [materialize_dir, required] beneath /home/u/proj  "
              "policy.toml:7:3\n"
              "        - mount layer only: Landlock cannot deny inside a writable directory"));
    CHECK(has(text, "if absent at start: created as an empty directory"));
    CHECK(has(text, "a symlink on its path beneath the writable root: what it resolves to is protected too"));
    CHECK(has(text, "rules and masks cover paths, not inodes: a hard link to a denied file made before the run"));
    CHECK(has(text, "   3.7 symlink /bin -> usr/bin  (default)\n"));
    CHECK(has(text, "   3.8 bind /lib64 <- /lib64 [rdonly, optional]  (default)\n"));
    CHECK(has(text, "        - skipped when the source is absent\n"));
    CHECK_FALSE(has(text, "skipped when the target is absent"));
    CHECK(has(text, "4. environment: built from nothing: 2 steps\n"));
    CHECK(has(text, "   4.1 pass TERM (if set)  (default)\n"));
    CHECK(has(text, "   4.2 set PATH=/usr/bin:/bin  policy.toml:17:5\n"));
    CHECK(has(text, "5. process: a session of its own; fds 0-2 never the caller's"));
    CHECK(has(text, "6. landlock: ruleset for ABI 7 (required), 3 rules\n"));
    CHECK(has(text,
              "   handled: read_file|read_dir|execute|write_file|truncate|remove_file|remove_dir|make_reg|"
              "make_dir|make_sym|make_sock|make_fifo|make_char|make_block|refer|ioctl_dev\n"));
    CHECK(has(text, "   6.1 path /usr read_file|read_dir|execute  (default)\n"));
    CHECK(has(text,
              "   6.2 expand /home/u read_file|read_dir|execute except .ssh, .gnupg  policy.toml:14:1\n"
              "        - directory listed at start: entries created after start are not covered"));
    CHECK(has(text, "        - skipped when absent at start\n"));
    CHECK(has(text, "7. exec  policy.toml:20:1\n"));
    CHECK(has(text, "PID 2 under a small init"));
    // The network step states what mediation covers and what it cannot.
    CHECK(has(text,
              "every connect(), bind(), sendmsg() and sendmmsg(), and every sendto() with an address, of "
              "the command is mediated"));
    CHECK(has(text, "the mediator makes every sendmsg() itself (a filter cannot read its address)"));

    // Steps appear in the enforcer's order of work.
    size_t last = 0;
    for (const char *step : {"\n1. namespaces", "\n2. network: none", "\n3. mounts", "\n4. environment", "\n5. process",
                             "\n6. landlock", "\n7. exec", "\n8. limits: no cgroup limit, no timeout; rlimits only"}) {
        size_t at = text.find(step);
        REQUIRE_MESSAGE(at != std::string::npos, step);
        CHECK(at > last);
        last = at;
    }
}

TEST_CASE("explain: a mask outside any writable directory is not called mount-only")
{
    std::string text = explain(sample_plan(), false);
    size_t mask = text.find("3.4 mask");
    size_t next = text.find("3.5 ", mask);
    REQUIRE(mask != std::string::npos);
    CHECK(text.substr(mask, next - mask).find("mount layer only") == std::string::npos);
    CHECK(has(text.substr(mask, next - mask), "hides the names too"));
}

TEST_CASE("explain: a bare plan")
{
    std::string text = explain(PlanWriter().finish(), false);
    CHECK(has(text, "1. namespaces: none"));
    CHECK(has(text, "3. mounts: 0 steps\n"));
    CHECK(has(text, "6. landlock: none"));
    CHECK(has(text, "required features: none\n"));
    CHECK_FALSE(has(text, "policy:"));
    CHECK(JsonChecker(explain(PlanWriter().finish(), true)).document());
}

TEST_CASE("explain: JSON is valid and carries the same content")
{
    std::string json = explain(sample_plan(), true);
    CHECK(JsonChecker(json).document());
    CHECK(has(json, "\"format_version\":7"));
    CHECK(has(json, "\"required_features\":[\"userns\",\"mountns\",\"landlock\"]"));
    CHECK(has(json, "\"min_landlock_abi\":5"));
    CHECK(has(json, "\"policy_path\":\"/home/u/proj/policy.toml\""));
    CHECK(has(json, "\"create\":[\"user\",\"mount\",\"pid\",\"uts\"]"));
    CHECK(has(json,
              "{\"op\":\"root_readonly\",\"path\":\"/\",\"source\":\"\",\"anchor\":\"\",\"flags\":[\"required\"],"
              "\"origin\":null"));
    CHECK(
        has(json,
            "{\"op\":\"write_deny\",\"path\":\"/home/u/proj/.git/hooks\",\"source\":\"\",\"anchor\":\"/home/u/proj\","
            "\"flags\":[\"materialize_dir\",\"required\"],\"origin\":{\"file\":\"policy.toml\",\"line\":7,\"col\":3}"));
    CHECK(has(json, "mount layer only: Landlock cannot deny inside a writable directory"));
    CHECK(has(json,
              "{\"kind\":\"expand\",\"path\":\"/home/u\",\"access\":[\"read_file\",\"read_dir\",\"execute\"],"
              "\"except\":[\".ssh\",\".gnupg\"],\"optional\":true"));
    CHECK(has(json, "{\"op\":\"set\",\"name\":\"PATH\",\"value\":\"/usr/bin:/bin\""));
    CHECK(has(json, "{\"step\":\"exec\",\"origin\":{\"file\":\"policy.toml\",\"line\":20,\"col\":1}"));

    size_t last = 0;
    for (const char *step :
         {"\"namespaces\"", "\"mounts\"", "\"environment\"", "\"process\"", "\"landlock\"", "\"exec\"", "\"limits\""}) {
        size_t at = json.find(std::string("{\"step\":") + step);
        REQUIRE_MESSAGE(at != std::string::npos, step);
        CHECK(at > last);
        last = at;
    }
}

TEST_CASE("explain: strings are escaped in JSON and made printable in text")
{
    std::vector<uint8_t> plan = sample_plan("/home/u/we\"ird\\na\nme\x01\xff\xc3\xa9");
    std::string json = explain(plan, true);
    CHECK(JsonChecker(json).document());
    CHECK(has(json, "\"/home/u/we\\\"ird\\\\na\\nme\\u0001\\ufffd\xc3\xa9\""));
    std::string text = explain(plan, false);
    CHECK(has(text, "3.4 mask /home/u/we\"ird\\na\\x0ame\\x01\xff\xc3\xa9 [mask_absent]"));
}

TEST_CASE("explain: an invalid plan is refused with the reader's reason")
{
    std::vector<uint8_t> plan = sample_plan();
    std::vector<uint8_t> cut(plan.begin(), plan.begin() + 100);
    std::ostringstream out;
    std::string err;
    CHECK_FALSE(explain_plan(cut, false, out, err));
    CHECK(err == "plan truncated: 100 of " + std::to_string(plan.size()) + " bytes");
    CHECK(out.str().empty());

    std::vector<uint8_t> flipped = plan;
    flipped[plan.size() / 2] ^= 1;
    CHECK_FALSE(explain_plan(flipped, true, out, err));
    CHECK(err == "checksum mismatch");
    CHECK(out.str().empty());

    CHECK_FALSE(explain_plan({}, false, out, err));
    CHECK(err == "plan truncated: 0 of at least 64 bytes");
}

namespace {

// A plan holding only the seccomp step of `flags`, as the compiler lowers it.
std::vector<uint8_t> seccomp_plan(tartaros::seccomp::ProfileFlags flags)
{
    tartaros::ir::PlanWriter w;
    const uint32_t profile = tartaros::profile_bits(flags);
    w.set_seccomp({profile, tartaros::seccomp::kTableMaxNr, {30, 1, 0}, {flags.deny_unix ? 33u : 0u, 1, 0}},
                  tartaros::seccomp::lower_seccomp(tartaros::seccomp::Profile(flags)), true);
    return w.finish();
}

}  // namespace

TEST_CASE("explain: the seccomp step shows the profile, its cost, the action table and the program")
{
    const std::string text = explain(seccomp_plan({true, false}), false);
    CHECK(has(text, "6. landlock: none"));
    CHECK(has(text,
              "7. seccomp: 180-instruction filter (required); profile: baseline + hardening policy:30:1; "
              "AF_UNIX allowed\n"));
    CHECK(has(text,
              "an allowed syscall without argument rules runs at most 15 (target: 16), any allowed call at most "
              "22 (socket(domain=0x2, protocol=0x0, ...))"));
    CHECK(has(text, "     foreign architecture, x32 numbers: KILL_PROCESS\n"));
    CHECK(has(text, "     ptrace (101): ERRNO(EPERM)  (reads and rewrites other processes"));
    CHECK(has(text, "     socket (41): ALLOW except  (families allow-listed"));
    CHECK(has(text, "         ERRNO(EAFNOSUPPORT) for a family other than AF_UNIX, AF_INET, AF_INET6, AF_NETLINK\n"));
    CHECK(has(text, "     clone3 (435): ERRNO(ENOSYS)"));
    CHECK(has(text, "     #470-#511: ERRNO(ENOSYS)"));
    CHECK(has(text, "   - a filter sees the syscall number and six register values, never memory"));
    CHECK(has(text, "   disassembly:\n          0: ld [arch]\n"));
    CHECK(text.find("8. exec") > text.find("disassembly:"));

    const std::string baseline = explain(seccomp_plan({false, true}), false);
    CHECK(has(baseline, "profile: baseline only (harden_syscalls = false) policy:30:1; deny_unix policy:33:1\n"));
    CHECK(has(baseline, "         ERRNO(EPERM) for AF_UNIX (deny_unix)\n"));
    CHECK_FALSE(has(baseline, "ptrace (101)"));

    const std::string json = explain(seccomp_plan({true, true}), true);
    CHECK(JsonChecker(json).document());
    CHECK(has(json,
              "{\"step\":\"seccomp\",\"required\":true,\"harden_syscalls\":true,\"harden_origin\":{\"file\":\"policy\","
              "\"line\":30,\"col\":1},\"deny_unix\":true,\"deny_unix_origin\":{\"file\":\"policy\",\"line\":33,"
              "\"col\":1},\"table_max_nr\":469,"
              "\"length\":181,"));
    CHECK(has(json, "{\"nr\":101,\"name\":\"ptrace\",\"action\":\"ERRNO(EPERM)\""));
    CHECK(has(json, "\"disassembly\":[\"     0: ld [arch]\""));
    CHECK(json.find("{\"step\":\"seccomp\"") < json.find("{\"step\":\"exec\""));
}

TEST_CASE("explain: the implied mask of /run says why, and what stays reachable")
{
    tartaros::ir::PlanWriter w;
    for (const char *path : {"/run", "/tmp", "/home/u/.ssh"}) {
        tp_mount m{};
        m.op = TP_MNT_MASK;
        m.flags = TP_MNTF_REQUIRED | TP_MNTF_OPTIONAL;
        m.path = w.str(path);
        m.source = w.str("");
        m.anchor = w.str("");
        m.origin = {std::string(path) == "/home/u/.ssh" ? 4u : 0u, 1, 0};
        w.add_mount(m);
    }
    w.set_landlock({TP_LL_FS_ALL_ABI7, 0, TP_LL_SCOPE_ABSTRACT_UNIX_SOCKET | TP_LL_SCOPE_SIGNAL, 7, 0}, true);
    w.set_min_landlock_abi(6);
    const std::string text = explain(w.finish(), false);
    const std::string implied = "implied: host services' and other users' unix sockets live here";
    const size_t first = text.find(implied);
    REQUIRE(first != std::string::npos);
    // /run only: the host's /tmp is no host-socket directory the compiler hides (a mask of /tmp
    // is the policy's), nor is the policy's own deny.
    CHECK(text.find(implied, first + 1) == std::string::npos);
    CHECK(has(text, "its host sockets still refuse connections: connect mediation"));
    CHECK(has(text, "   scoped: abstract_unix_socket|signal\n"));
    CHECK(has(text, "the abstract-socket and signal scopes: ABI 6"));
    CHECK(has(text, "connect() to a pathname unix socket is no filesystem right Landlock checks"));
}
