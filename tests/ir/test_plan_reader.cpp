// Tests of ir/plan_reader: a writer-built plan round-trips field by field, and every kind
// of damage (truncation, bit flips, forged structure with a valid checksum) is refused
// with a reason, never read out of bounds.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bpf_check.h"
#include "plan_bytes.h"
#include "plan_reader.h"
#include "plan_writer.h"

using tartaros::ir::PlanWriter;
using namespace plan_bytes;

namespace {

constexpr uint64_t kReadExec = TP_LL_FS_READ_FILE | TP_LL_FS_READ_DIR | TP_LL_FS_EXECUTE;

tp_mount mount(PlanWriter &w, uint32_t op, uint32_t flags, const char *path, const char *source, const char *anchor,
               uint32_t line, uint16_t col)
{
    tp_mount m{};
    m.op = op;
    m.flags = flags;
    m.path = w.str(path);
    m.source = w.str(source);
    m.anchor = w.str(anchor);
    m.origin = {line, col, 0};
    return m;
}

tp_landlock_path rule(PlanWriter &w, uint32_t kind, uint64_t access, uint32_t flags, const char *path,
                      const char *except, uint32_t line)
{
    tp_landlock_path r{};
    r.kind = kind;
    r.access = access;
    r.flags = flags;
    r.path = w.str(path);
    r.except = w.str(except);
    r.origin = {line, 1, 0};
    return r;
}

tp_env env(PlanWriter &w, uint32_t op, const char *name, const char *value, uint32_t line)
{
    tp_env e{};
    e.op = op;
    e.name = w.str(name);
    e.value = w.str(value);
    e.origin = {line, 5, 0};
    return e;
}

// The smallest program tp_bpf_check accepts: x86_64 is allowed everything, any other arch killed.
const std::vector<tp_bpf_insn> kAllowNative = {
    {TP_BPF_LD | TP_BPF_W | TP_BPF_ABS, 0, 0, TP_SD_ARCH},
    {TP_BPF_JMP | TP_BPF_JEQ | TP_BPF_K, 0, 1, TP_ARCH_X86_64},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_ALLOW},
    {TP_BPF_RET | TP_BPF_K, 0, 0, TP_RET_KILL_PROCESS},
};

// A plan with every section, as the compiler would produce for a typical project policy.
PlanWriter realistic_writer()
{
    PlanWriter w;
    w.set_meta({w.str("/home/u/proj/policy.toml"), w.str("tartaros-compile 0.1.0"), 1, 0});
    w.set_namespaces({TP_NS_USER | TP_NS_MOUNT | TP_NS_PID | TP_NS_NET | TP_NS_IPC | TP_NS_UTS,
                      TP_NS_USER | TP_NS_MOUNT,
                      w.str(""),
                      {3, 1, 0}},
                     true);
    w.add_mount(mount(w, TP_MNT_ROOT_READONLY, TP_MNTF_REQUIRED, "/", "", "", 0, 0));
    w.add_mount(mount(w, TP_MNT_BIND, 0, "/home/u/proj", "/home/u/proj", "", 5, 12));
    w.add_mount(mount(w, TP_MNT_WRITE_DENY, TP_MNTF_REQUIRED | TP_MNTF_MATERIALIZE_DIR, "/home/u/proj/.git", "",
                      "/home/u/proj", 7, 3));
    w.add_mount(mount(w, TP_MNT_MASK, TP_MNTF_MASK_ABSENT, "/home/u/.ssh", "", "", 9, 3));
    w.add_mount(mount(w, TP_MNT_BIND, TP_MNTF_RDONLY | TP_MNTF_OPTIONAL, "/lib64", "/lib64", "", 0, 0));
    w.add_mount(mount(w, TP_MNT_SYMLINK, 0, "/bin", "usr/bin", "", 0, 0));
    w.add_mount(mount(w, TP_MNT_PROC, 0, "/proc", "", "", 0, 0));
    w.add_mount(mount(w, TP_MNT_DEV, 0, "/dev", "", "", 0, 0));
    w.add_mount(mount(w, TP_MNT_TMPFS, 0, "/tmp", "", "", 11, 1));
    w.set_mounts_required(true);
    w.set_landlock({TP_LL_FS_ALL_ABI7, 0, 0, 6, TP_MNTF_REQUIRED}, true);
    w.add_landlock_path(rule(w, TP_LL_PATH, kReadExec, 0, "/usr", "", 0));
    w.add_landlock_path(rule(w, TP_LL_EXPAND, kReadExec, TP_MNTF_OPTIONAL, "/home/u", ".ssh/.gnupg", 14));
    w.add_landlock_path(rule(w, TP_LL_PATH, TP_LL_FS_ALL_ABI7, 0, "/home/u/proj", "", 5));
    w.add_env(env(w, TP_ENV_PASS, "TERM", "", 16));
    w.add_env(env(w, TP_ENV_SET, "PATH", "/usr/bin:/bin", 17));
    w.add_env(env(w, TP_ENV_SET, "LANG", "C.UTF-8", 18));
    w.set_exec({0, 0, {20, 1, 0}});
    w.set_seccomp({TP_SC_HARDEN, 469, {22, 1, 0}, {0, 0, 0}}, kAllowNative, true);
    w.set_limits(
        {512, 4ull << 30, 50000, TP_CPU_PERIOD_US, 1800000, 5000, {24, 1, 0}, {25, 1, 0}, {26, 1, 0}, {27, 1, 0}},
        true);
    w.add_rlimit({4, 0, 0, 0, {0, 0, 0}});
    w.add_rlimit({7, 0, 1024, 4096, {28, 1, 0}});
    w.set_required_features(TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_LANDLOCK | TP_FEAT_SECCOMP | TP_FEAT_MOUNT_API);
    w.set_min_landlock_abi(3);
    return w;
}

// Header bits whose flip must be refused: all but the checksum (resealing restores it), the
// defined feature bits and the Landlock ABI number, which any value may legitimately take.
bool is_structural_header_bit(std::size_t bit)
{
    auto inside = [bit](std::size_t field_off, std::size_t bits) {
        return bit >= field_off * 8 && bit < field_off * 8 + bits;
    };
    return !inside(offsetof(tp_header, checksum), 64) && !inside(offsetof(tp_header, required_features), 11) &&
        !inside(offsetof(tp_header, min_landlock_abi), 32);
}

bool contains(const std::string &s, const char *part)
{
    return s.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("plan reader: a writer-built plan round-trips every field")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    Buf b(bytes);
    Result r = open_plan(b.mem.get(), b.len);
    REQUIRE_MESSAGE(r.rc == 0, r.err);
    CHECK(r.err.empty());
    const tp_plan &p = r.plan;

    CHECK(p.base == b.mem.get());
    CHECK(p.size == bytes.size());
    CHECK(p.header->format_version == TP_FORMAT_VERSION);
    CHECK(p.header->total_size == bytes.size());
    CHECK(p.header->arch == TP_ARCH_X86_64);
    CHECK(p.header->required_features ==
          (TP_FEAT_USERNS | TP_FEAT_MOUNTNS | TP_FEAT_LANDLOCK | TP_FEAT_SECCOMP | TP_FEAT_MOUNT_API));
    CHECK(p.header->min_landlock_abi == 3);
    CHECK(p.header->section_count == 12);

    REQUIRE(p.meta != nullptr);
    CHECK(std::string(tp_plan_str(&p, p.meta->policy_path)) == "/home/u/proj/policy.toml");
    CHECK(std::string(tp_plan_str(&p, p.meta->compiler)) == "tartaros-compile 0.1.0");
    CHECK(p.meta->policy_version == 1);

    REQUIRE(p.ns != nullptr);
    CHECK(p.ns->flags == (TP_NS_USER | TP_NS_MOUNT | TP_NS_PID | TP_NS_NET | TP_NS_IPC | TP_NS_UTS));
    CHECK(p.ns->required == (TP_NS_USER | TP_NS_MOUNT));
    CHECK(std::string(tp_plan_str(&p, p.ns->hostname)).empty());
    CHECK(p.ns->origin.line == 3);
    CHECK(p.ns_section_flags == TP_SECF_REQUIRED);

    REQUIRE(p.mount_count == 9);
    CHECK(p.mounts_section_flags == TP_SECF_REQUIRED);
    CHECK(p.mounts[0].op == TP_MNT_ROOT_READONLY);
    CHECK(std::string(tp_plan_str(&p, p.mounts[0].path)) == "/");
    CHECK(p.mounts[0].origin.line == 0);
    CHECK(p.mounts[1].op == TP_MNT_BIND);
    CHECK(std::string(tp_plan_str(&p, p.mounts[1].source)) == "/home/u/proj");
    CHECK(p.mounts[1].origin.line == 5);
    CHECK(p.mounts[1].origin.col == 12);
    CHECK(p.mounts[2].op == TP_MNT_WRITE_DENY);
    CHECK(p.mounts[2].flags == (TP_MNTF_REQUIRED | TP_MNTF_MATERIALIZE_DIR));
    CHECK(std::string(tp_plan_str(&p, p.mounts[2].path)) == "/home/u/proj/.git");
    CHECK(std::string(tp_plan_str(&p, p.mounts[2].anchor)) == "/home/u/proj");
    CHECK(p.mounts[3].flags == TP_MNTF_MASK_ABSENT);
    CHECK(p.mounts[4].flags == (TP_MNTF_RDONLY | TP_MNTF_OPTIONAL));
    CHECK(std::string(tp_plan_str(&p, p.mounts[5].source)) == "usr/bin");
    CHECK(p.mounts[8].op == TP_MNT_TMPFS);
    CHECK(std::string(tp_plan_str(&p, p.mounts[8].path)) == "/tmp");

    REQUIRE(p.landlock != nullptr);
    CHECK(p.landlock->handled_access_fs == TP_LL_FS_ALL_ABI7);
    CHECK(p.landlock->abi == 6);
    CHECK(p.landlock->flags == TP_MNTF_REQUIRED);
    CHECK(p.landlock_section_flags == TP_SECF_REQUIRED);
    REQUIRE(p.landlock_path_count == 3);
    CHECK(p.landlock_paths[0].kind == TP_LL_PATH);
    CHECK(p.landlock_paths[0].access == kReadExec);
    CHECK(p.landlock_paths[1].kind == TP_LL_EXPAND);
    CHECK(p.landlock_paths[1].flags == TP_MNTF_OPTIONAL);
    CHECK(std::string(tp_plan_str(&p, p.landlock_paths[1].path)) == "/home/u");
    CHECK(std::string(tp_plan_str(&p, p.landlock_paths[1].except)) == ".ssh/.gnupg");
    CHECK(p.landlock_paths[1].origin.line == 14);
    CHECK(p.landlock_paths[2].access == TP_LL_FS_ALL_ABI7);

    REQUIRE(p.env_count == 3);
    CHECK(p.env[0].op == TP_ENV_PASS);
    CHECK(std::string(tp_plan_str(&p, p.env[0].name)) == "TERM");
    CHECK(p.env[1].op == TP_ENV_SET);
    CHECK(std::string(tp_plan_str(&p, p.env[1].name)) == "PATH");
    CHECK(std::string(tp_plan_str(&p, p.env[1].value)) == "/usr/bin:/bin");
    CHECK(p.env[2].origin.line == 18);
    CHECK(p.env[2].origin.col == 5);

    REQUIRE(p.exec != nullptr);
    CHECK(p.exec->flags == 0);
    CHECK(p.exec->origin.line == 20);

    REQUIRE(p.limits != nullptr);
    CHECK(p.limits_section_flags == TP_SECF_REQUIRED);
    CHECK(p.limits->max_processes == 512);
    CHECK(p.limits->memory_max == 4ull << 30);
    CHECK(p.limits->cpu_quota_us == 50000);
    CHECK(p.limits->timeout_ms == 1800000);
    CHECK(p.limits->grace_ms == 5000);
    CHECK(p.limits->timeout_origin.line == 27);
    REQUIRE(p.rlimit_count == 2);
    CHECK(p.rlimits[0].resource == 4);
    CHECK(p.rlimits[1].soft == 1024);
    CHECK(p.rlimits[1].hard == 4096);
    CHECK(reinterpret_cast<const uint8_t *>(p.rlimits + p.rlimit_count) <= b.mem.get() + b.len);

    // Every pointer the reader hands out lies inside the caller's buffer.
    const uint8_t *end = b.mem.get() + b.len;
    CHECK(reinterpret_cast<const uint8_t *>(p.mounts + p.mount_count) <= end);
    CHECK(reinterpret_cast<const uint8_t *>(p.env + p.env_count) <= end);
    CHECK(reinterpret_cast<const uint8_t *>(p.strtab + p.strtab_size) <= end);
}

TEST_CASE("plan reader: absent optional sections read as NULL and zero")
{
    std::vector<uint8_t> bytes = PlanWriter().finish();
    Buf b(bytes);
    Result r2 = open_plan(b.mem.get(), b.len);
    REQUIRE(r2.rc == 0);
    CHECK(r2.plan.strtab != nullptr);
    CHECK(r2.plan.meta == nullptr);
    CHECK(r2.plan.ns == nullptr);
    CHECK(r2.plan.mounts == nullptr);
    CHECK(r2.plan.mount_count == 0);
    CHECK(r2.plan.landlock == nullptr);
    CHECK(r2.plan.landlock_path_count == 0);
    CHECK(r2.plan.env_count == 0);
    CHECK(r2.plan.exec == nullptr);
}

TEST_CASE("plan reader: truncation at every byte offset is refused")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    for (std::size_t n = 0; n < bytes.size(); n++) {
        Buf b(bytes.data(), n);
        Result r = open_plan(b.mem.get(), b.len);
        REQUIRE_MESSAGE(r.rc == -1, "accepted a plan cut at " << n);
        REQUIRE(contains(r.err, "plan truncated"));
    }
    REQUIRE(bytes.size() > 812);
    Result r = open_plan(bytes.data(), 812);
    CHECK(r.err == "plan truncated: 812 of " + std::to_string(bytes.size()) + " bytes");
    CHECK(open_plan(bytes.data(), 10).err == "plan truncated: 10 of at least 64 bytes");
}

TEST_CASE("plan reader: every single-bit flip is refused")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    for (std::size_t bit = 0; bit < bytes.size() * 8; bit++) {
        std::vector<uint8_t> damaged = bytes;
        damaged[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
        Result r = open_plan(damaged);
        REQUIRE_MESSAGE(r.rc == -1, "accepted a flip of bit " << bit);
        REQUIRE_FALSE(r.err.empty());
    }
    std::vector<uint8_t> damaged = bytes;
    damaged[bytes.size() - 20] ^= 0x10;
    CHECK(open_plan(damaged).err == "checksum mismatch");
}

TEST_CASE("plan reader: structural bit flips are refused even with a recomputed checksum")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    uint32_t sections = get_u32(bytes, offsetof(tp_header, section_count));
    std::size_t table_end = sizeof(tp_header) + sections * sizeof(tp_section);
    // Every header field except the feature word and Landlock ABI, and every section-table
    // field except the one defined flag bit, is structural: no flip of it may be accepted.
    for (std::size_t bit = 0; bit < table_end * 8; bit++) {
        std::size_t byte = bit / 8;
        if (byte < sizeof(tp_header) && !is_structural_header_bit(bit))
            continue;
        if (byte >= sizeof(tp_header) &&
            (bit - sizeof(tp_header) * 8) % (sizeof(tp_section) * 8) == offsetof(tp_section, flags) * 8)
            continue;
        std::vector<uint8_t> damaged = bytes;
        damaged[byte] ^= static_cast<uint8_t>(1u << (bit % 8));
        reseal(damaged);
        Result r = open_plan(damaged);
        REQUIRE_MESSAGE(r.rc == -1, "accepted resealed flip of bit " << bit);
    }
}

TEST_CASE("plan reader: forged counts, offsets, types and strings are refused")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    std::size_t mounts = section_data(bytes, TP_SEC_MOUNTS);
    std::size_t strtab_size = get_u32(bytes, section_field(bytes, TP_SEC_STRTAB, offsetof(tp_section, size)));

    SUBCASE("count without matching size")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, count)), 10,
                             "section 3 (mounts): size 360 is not 10 records of 40 bytes");
    }
    SUBCASE("count and size both past the file")
    {
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, size)), 40 * 1000);
        expect_refused_after(forged, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, count)), 1000,
                             "lie outside");
    }
    SUBCASE("oversized count")
    {
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, size)), 40 * (TP_MAX_RECORDS + 1));
        expect_refused_after(forged, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, count)),
                             TP_MAX_RECORDS + 1, "exceed the limit of 65536");
    }
    SUBCASE("count * size wrapping 32 bits")
    {
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, section_field(bytes, TP_SEC_STRTAB, offsetof(tp_section, size)), 0);
        expect_refused_after(forged, section_field(bytes, TP_SEC_STRTAB, offsetof(tp_section, count)), 0u, "");
        std::vector<uint8_t> wrap = bytes;
        put_u32(wrap, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, size)), 0);
        put_u32(wrap, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, record_size)), 40);
        expect_refused_after(wrap, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, count)), 0x80000000u,
                             "exceed the limit");
    }
    SUBCASE("offset + size wrapping 32 bits")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, offset)), 0xFFFFFF00u,
                             "lie outside");
    }
    SUBCASE("misaligned section offset")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, offset)),
                             static_cast<uint32_t>(mounts + 4), "not 8-aligned");
    }
    SUBCASE("section inside the section table")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_EXEC, offsetof(tp_section, offset)), 64,
                             "overlaps the header or section table");
    }
    SUBCASE("overlapping sections")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_EXEC, offsetof(tp_section, offset)),
                             static_cast<uint32_t>(mounts + 8), "section 7 (exec) overlaps section 3 (mounts)");
    }
    SUBCASE("unknown section type")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_ENV, offsetof(tp_section, type)), 99,
                             "section 6: unknown type 99");
    }
    SUBCASE("wrong record size")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_MOUNTS, offsetof(tp_section, record_size)), 32,
                             "section 3 (mounts): record size 32, expected 40");
    }
    SUBCASE("a type twice")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_META, offsetof(tp_section, type)), TP_SEC_NAMESPACES,
                             "type appears more than once");
    }
    SUBCASE("singleton with two records")
    {
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, section_field(bytes, TP_SEC_EXEC, offsetof(tp_section, size)), 32);
        expect_refused_after(forged, section_field(bytes, TP_SEC_EXEC, offsetof(tp_section, count)), 2,
                             "expected exactly 1");
    }
    SUBCASE("no string table")
    {
        expect_refused_after(bytes, section_field(bytes, TP_SEC_STRTAB, offsetof(tp_section, type)), TP_SEC_ENV, "");
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, offsetof(tp_header, section_count), 0);
        expect_refused_after(forged, offsetof(tp_header, section_count), 0, "plan has no string table");
    }
    SUBCASE("too many sections")
    {
        expect_refused_after(bytes, offsetof(tp_header, section_count), TP_MAX_SECTIONS + 1, "exceed the limit");
    }
    SUBCASE("section table past the end")
    {
        std::vector<uint8_t> small = PlanWriter().finish();
        expect_refused_after(small, offsetof(tp_header, section_count), 2, "runs past the end");
    }
    SUBCASE("string offset past the table")
    {
        expect_refused_after(bytes, mounts + offsetof(tp_mount, path) + offsetof(tp_str, off),
                             static_cast<uint32_t>(strtab_size), "mount 0: path (offset");
    }
    SUBCASE("string offset + length wrapping 32 bits")
    {
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, mounts + offsetof(tp_mount, path) + offsetof(tp_str, off), 0xFFFFFFF0u);
        expect_refused_after(forged, mounts + offsetof(tp_mount, path) + offsetof(tp_str, len), 0x20, "lies outside");
    }
    SUBCASE("string length ending on the table's last byte")
    {
        std::size_t path_off = get_u32(bytes, mounts + offsetof(tp_mount, path) + offsetof(tp_str, off));
        expect_refused_after(bytes, mounts + offsetof(tp_mount, path) + offsetof(tp_str, len),
                             static_cast<uint32_t>(strtab_size - path_off), "lies outside");
    }
    SUBCASE("string with a NUL inside")
    {
        std::size_t tab = section_data(bytes, TP_SEC_STRTAB);
        std::size_t env = section_data(bytes, TP_SEC_ENV);
        uint32_t name_off = get_u32(bytes, env + offsetof(tp_env, name) + offsetof(tp_str, off));
        std::vector<uint8_t> forged = bytes;
        forged[tab + name_off + 2] = 0;
        reseal(forged);
        Result r = open_plan(forged);
        CHECK(r.rc == -1);
        CHECK(r.err == "env 0: name contains a NUL byte");
    }
    SUBCASE("string without its NUL")
    {
        std::size_t tab = section_data(bytes, TP_SEC_STRTAB);
        std::size_t env = section_data(bytes, TP_SEC_ENV);
        uint32_t name_off = get_u32(bytes, env + offsetof(tp_env, name) + offsetof(tp_str, off));
        std::vector<uint8_t> forged = bytes;
        forged[tab + name_off + 4] = 'X';  // "TERM\0" -> "TERMX"
        reseal(forged);
        Result r = open_plan(forged);
        CHECK(r.rc == -1);
        CHECK(r.err == "env 0: name is not NUL-terminated");
    }
    SUBCASE("relative mount path")
    {
        uint32_t off = get_u32(bytes, mounts + sizeof(tp_mount) + offsetof(tp_mount, path) + offsetof(tp_str, off));
        std::vector<uint8_t> forged = bytes;
        put_u32(forged, mounts + sizeof(tp_mount) + offsetof(tp_mount, path) + offsetof(tp_str, len),
                get_u32(bytes, mounts + sizeof(tp_mount) + offsetof(tp_mount, path) + offsetof(tp_str, len)) - 1);
        expect_refused_after(forged, mounts + sizeof(tp_mount) + offsetof(tp_mount, path) + offsetof(tp_str, off),
                             off + 1, "mount 1: path \"home/u/proj\" is not absolute");
    }
}

TEST_CASE("plan reader: header damage")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    SUBCASE("wrong magic")
    {
        std::vector<uint8_t> forged = bytes;
        forged[0] = 'X';
        reseal(forged);
        CHECK(open_plan(forged).err == "not a TartarOS plan (bad magic)");
    }
    SUBCASE("wrong version")
    {
        expect_refused_after(bytes, offsetof(tp_header, format_version), 1,
                             "plan format version 1, this reader supports only 7");
    }
    SUBCASE("wrong header size")
    {
        expect_refused_after(bytes, offsetof(tp_header, header_size), 72, "header size 72, expected 64");
    }
    SUBCASE("wrong architecture")
    {
        expect_refused_after(bytes, offsetof(tp_header, arch), 0xC00000B7u, "architecture");
    }
    SUBCASE("reserved fields")
    {
        expect_refused_after(bytes, offsetof(tp_header, reserved0), 1, "reserved");
        expect_refused_after(bytes, offsetof(tp_header, reserved1) + 4, 1, "reserved");
    }
    SUBCASE("unknown feature bits")
    {
        expect_refused_after(bytes, offsetof(tp_header, required_features) + 4, 1, "unknown required features");
    }
    SUBCASE("section table elsewhere")
    {
        expect_refused_after(bytes, offsetof(tp_header, section_table_off), 72, "section table at offset 72");
    }
    SUBCASE("trailing bytes")
    {
        std::vector<uint8_t> longer = bytes;
        longer.resize(bytes.size() + 8, 0);
        Result r = open_plan(longer);
        CHECK(r.rc == -1);
        CHECK(contains(r.err, "8 trailing bytes"));
    }
    SUBCASE("larger than the limit")
    {
        std::vector<uint8_t> huge = bytes;
        huge.resize(TP_MAX_PLAN_SIZE + 8, 0);
        put_u32(huge, offsetof(tp_header, total_size), TP_MAX_PLAN_SIZE + 8);
        reseal(huge);
        Result r = open_plan(huge);
        CHECK(r.rc == -1);
        CHECK(contains(r.err, "exceeds the limit"));
    }
    SUBCASE("misaligned buffer")
    {
        for (std::size_t shift : {1u, 4u}) {
            std::unique_ptr<uint64_t[]> mem(new uint64_t[bytes.size() / 8 + 1]);
            uint8_t *start = reinterpret_cast<uint8_t *>(mem.get()) + shift;
            std::memcpy(start, bytes.data(), bytes.size());
            Result r = open_plan(start, static_cast<uint32_t>(bytes.size()));
            CHECK(r.rc == -1);
            CHECK(r.err == "plan buffer is not 8-byte aligned");
        }
    }
    SUBCASE("null buffer and tiny error buffer")
    {
        tp_plan p;
        char err[8];
        CHECK(tp_plan_open(nullptr, 0, &p, err, sizeof err) == -1);
        CHECK(std::string(err) == "no plan");
        CHECK(tp_plan_open(bytes.data(), 3, &p, err, sizeof err) == -1);
        CHECK(std::strlen(err) == 7);  // cut to the buffer, still terminated
        CHECK(tp_plan_open(bytes.data(), 3, &p, nullptr, 0) == -1);
    }
}

TEST_CASE("plan reader: record fields out of range are refused")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    std::size_t mounts = section_data(bytes, TP_SEC_MOUNTS);
    std::size_t rules = section_data(bytes, TP_SEC_LANDLOCK_FS);
    std::size_t ruleset = section_data(bytes, TP_SEC_LANDLOCK);
    std::size_t envs = section_data(bytes, TP_SEC_ENV);
    std::size_t exec = section_data(bytes, TP_SEC_EXEC);
    std::size_t meta = section_data(bytes, TP_SEC_META);
    std::size_t ns = section_data(bytes, TP_SEC_NAMESPACES);

    expect_refused_after(bytes, mounts + offsetof(tp_mount, op), 0, "mount 0: unknown operation 0");
    expect_refused_after(bytes, mounts + offsetof(tp_mount, op), TP_MNT_TMPFS + 1, "mount 0: unknown operation 11");
    expect_refused_after(bytes, mounts + offsetof(tp_mount, flags), 1u << 10, "mount 0: unknown flags 0x400");
    std::vector<uint8_t> no_source = bytes;
    put_u32(no_source, mounts + sizeof(tp_mount) + offsetof(tp_mount, source) + offsetof(tp_str, len), 0);
    expect_refused_after(no_source, mounts + sizeof(tp_mount) + offsetof(tp_mount, source) + offsetof(tp_str, off), 0,
                         "mount 1: source \"\" is not absolute");
    expect_refused_after(bytes, rules + offsetof(tp_landlock_path, kind), 3, "landlock rule 0: unknown kind 3");
    expect_refused_after(bytes, rules + offsetof(tp_landlock_path, flags), TP_MNTF_RDONLY,
                         "landlock rule 0: unknown flags 0x1");
    expect_refused_after(bytes, rules + offsetof(tp_landlock_path, access) + 2, 1,
                         "landlock rule 0: rights 0x10000 are not handled");
    expect_refused_after(bytes, ruleset + offsetof(tp_landlock_ruleset, handled_access_fs), 0x7,
                         "landlock rule 0: rights 0x8 are not handled");
    expect_refused_after(bytes, ruleset + offsetof(tp_landlock_ruleset, handled_access_net), 4, "network rights");
    expect_refused_after(bytes, ruleset + offsetof(tp_landlock_ruleset, scoped), 4, "unknown scopes");
    expect_refused_after(bytes, ruleset + offsetof(tp_landlock_ruleset, flags), 3, "landlock: unknown flags 0x3");
    expect_refused_after(bytes, envs + offsetof(tp_env, op), 3, "env 0: unknown operation 3");
    expect_refused_after(bytes, envs + offsetof(tp_env, reserved), 1, "env 0: reserved field is not zero");
    std::vector<uint8_t> no_name = bytes;
    put_u32(no_name, envs + offsetof(tp_env, name) + offsetof(tp_str, len), 0);
    expect_refused_after(no_name, envs + offsetof(tp_env, name) + offsetof(tp_str, off), 0,
                         "env 0: invalid variable name \"\"");
    expect_refused_after(bytes, exec + offsetof(tp_exec, flags), 2, "exec: unknown flags 0x2");
    expect_refused_after(bytes, exec + offsetof(tp_exec, reserved), 1, "exec: reserved field is not zero");
    expect_refused_after(bytes, meta + offsetof(tp_meta, reserved), 1, "meta: reserved field is not zero");
    expect_refused_after(bytes, ns + offsetof(tp_namespaces, flags), 1u << 7, "namespaces: unknown flags 0x80");
    expect_refused_after(bytes, ns + offsetof(tp_namespaces, required), TP_NS_CGROUP,
                         "namespaces: required 0x40 names namespaces that are not created");
}

// Found by fuzz_plan: a refusal quoted the plan's strings byte for byte, so a path holding a
// CR, a newline or an escape sequence split the one refusal line or wrote to the terminal.
TEST_CASE("plan reader: a refusal that quotes the plan shows its control bytes as '?'")
{
    PlanWriter w;
    w.add_mount(mount(w, TP_MNT_BIND, 0, "\rroot/.ssh\n\x1b[2Jx\x7f", "/a", "", 1, 1));
    Result r = open_plan(w.finish());
    REQUIRE(r.rc == -1);
    CHECK(r.err == "mount 0: path \"?root/.ssh??[2Jx?\" is not absolute");
}

TEST_CASE("plan reader: semantic limits")
{
    SUBCASE("path longer than TP_MAX_PATH")
    {
        PlanWriter w;
        std::string longest = "/" + std::string(TP_MAX_PATH - 1, 'a');
        w.add_mount(mount(w, TP_MNT_TMPFS, 0, longest.c_str(), "", "", 1, 1));
        CHECK(open_plan(w.finish()).rc == 0);
        PlanWriter w2;
        std::string too_long = longest + "b";
        w2.add_mount(mount(w2, TP_MNT_TMPFS, 0, too_long.c_str(), "", "", 1, 1));
        CHECK(open_plan(w2.finish()).err == "mount 0: path is 4097 bytes long, the limit is 4096");
    }
    SUBCASE("except list on a plain path rule")
    {
        PlanWriter w;
        w.set_landlock({TP_LL_FS_ALL_ABI7, 0, 0, 6, 0}, false);
        w.add_landlock_path(rule(w, TP_LL_PATH, kReadExec, 0, "/usr", "bin", 1));
        CHECK(open_plan(w.finish()).err == "landlock rule 0: an except list needs kind EXPAND");
    }
    SUBCASE("Landlock rules without a ruleset")
    {
        PlanWriter w;
        w.add_landlock_path(rule(w, TP_LL_PATH, kReadExec, 0, "/usr", "", 1));
        CHECK(open_plan(w.finish()).err == "plan has Landlock rules but no Landlock ruleset");
    }
    SUBCASE("passed variable with a value")
    {
        PlanWriter w;
        w.add_env(env(w, TP_ENV_PASS, "HOME", "/root", 1));
        CHECK(open_plan(w.finish()).err == "env 0: a passed variable has no value");
    }
    SUBCASE("variable name with '='")
    {
        PlanWriter w;
        w.add_env(env(w, TP_ENV_SET, "A=B", "c", 1));
        CHECK(open_plan(w.finish()).err == "env 0: invalid variable name \"A=B\"");
    }
    SUBCASE("symlink without a target")
    {
        PlanWriter w;
        w.add_mount(mount(w, TP_MNT_SYMLINK, 0, "/bin", "", "", 1, 1));
        CHECK(open_plan(w.finish()).err == "mount 0: symlink has no target");
    }
    SUBCASE("relative anchor")
    {
        PlanWriter w;
        w.add_mount(mount(w, TP_MNT_WRITE_DENY, 0, "/a/b", "", "a", 1, 1));
        CHECK(open_plan(w.finish()).err == "mount 0: anchor \"a\" is not absolute");
    }
}

TEST_CASE("plan reader: limits and rlimits out of range are refused")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    Result ok = open_plan(bytes);
    REQUIRE(ok.rc == 0);
    std::size_t limits = section_data(bytes, TP_SEC_LIMITS);
    std::size_t rlimits = section_data(bytes, TP_SEC_RLIMITS);
    auto put_u64 = [](std::vector<uint8_t> b, std::size_t off, uint64_t v) {
        std::memcpy(b.data() + off, &v, sizeof v);
        return b;
    };
    expect_refused_after(put_u64(bytes, limits + offsetof(tp_limits, max_processes), TP_MAX_PROCESSES + 1),
                         limits + offsetof(tp_limits, cpu_period_us), TP_CPU_PERIOD_US, "max_processes 4194305");
    expect_refused_after(put_u64(bytes, limits + offsetof(tp_limits, memory_max), 4096),
                         limits + offsetof(tp_limits, cpu_period_us), TP_CPU_PERIOD_US, "memory_max 4096 is outside");
    expect_refused_after(bytes, limits + offsetof(tp_limits, cpu_quota_us), 999, "cpu quota 999 us");
    expect_refused_after(bytes, limits + offsetof(tp_limits, cpu_period_us), 50000, "cpu quota 50000 us per 50000 us");
    expect_refused_after(put_u64(bytes, limits + offsetof(tp_limits, grace_ms), 0),
                         limits + offsetof(tp_limits, cpu_period_us), TP_CPU_PERIOD_US, "a grace goes with a timeout");
    std::vector<uint8_t> none = bytes;
    for (std::size_t off : {offsetof(tp_limits, max_processes), offsetof(tp_limits, memory_max),
                            offsetof(tp_limits, timeout_ms), offsetof(tp_limits, grace_ms)})
        none = put_u64(none, limits + off, 0);
    expect_refused_after(none, limits + offsetof(tp_limits, cpu_quota_us), 0, "limits: the section sets no limit");
    expect_refused_after(bytes, rlimits + offsetof(tp_rlimit, resource), 5, "rlimit 0: unknown resource 5");
    expect_refused_after(bytes, rlimits + offsetof(tp_rlimit, resource), 16, "rlimit 0: unknown resource 16");
    expect_refused_after(bytes, rlimits + offsetof(tp_rlimit, reserved), 1, "rlimit 0: unknown resource 4 or reserved");
    expect_refused_after(bytes, rlimits + sizeof(tp_rlimit) + offsetof(tp_rlimit, resource), 4,
                         "rlimit 1: resources not in ascending order");
    expect_refused_after(bytes, rlimits + sizeof(tp_rlimit) + offsetof(tp_rlimit, soft), 5000,
                         "rlimit 1: soft limit above the hard limit");
}

TEST_CASE("plan reader: the seccomp program is checked at load, not trusted")
{
    std::vector<uint8_t> bytes = realistic_writer().finish();
    {
        Buf b(bytes);
        Result r = open_plan(b.mem.get(), b.len);
        REQUIRE(r.rc == 0);
        REQUIRE(r.plan.seccomp != nullptr);
        CHECK(r.plan.seccomp->profile == TP_SC_HARDEN);
        CHECK(r.plan.seccomp->harden_origin.line == 22);
        CHECK((r.plan.seccomp_section_flags & TP_SECF_REQUIRED) != 0);
        REQUIRE(r.plan.seccomp_insn_count == kAllowNative.size());
        CHECK(std::memcmp(r.plan.seccomp_prog, kAllowNative.data(), kAllowNative.size() * sizeof(tp_bpf_insn)) == 0);
    }
    auto with_program = [](const std::vector<tp_bpf_insn> &prog, uint32_t profile = TP_SC_HARDEN) {
        PlanWriter w;
        w.set_seccomp({profile, 469, {1, 1, 0}, {0, 0, 0}}, prog, true);
        return open_plan(w.finish());
    };
    std::vector<tp_bpf_insn> far_jump = kAllowNative;
    far_jump[1].jf = 2;
    CHECK(with_program(far_jump).err ==
          "seccomp program refused: instruction 1: jump target 4 beyond the end (length 4)");
    std::vector<tp_bpf_insn> no_arch = kAllowNative;
    no_arch[0].k = TP_SD_NR;
    CHECK(with_program(no_arch).err ==
          "seccomp program refused: instruction 0: the program does not start by loading the architecture");
    CHECK(with_program({}).err == "seccomp program refused: empty seccomp program");
    CHECK(with_program(kAllowNative, 4).err == "seccomp: unknown profile flags 0x4");

    PlanWriter only_profile;
    only_profile.set_seccomp({0, 469, {0, 0, 0}, {0, 0, 0}}, kAllowNative, false);
    std::vector<uint8_t> cut = only_profile.finish();
    // Drop the program's section from the table: a profile without its program.
    tp_header h;
    std::memcpy(&h, cut.data(), sizeof h);
    h.section_count -= 1;
    std::memcpy(cut.data(), &h, sizeof h);
    reseal(cut);
    CHECK(open_plan(cut).err == "plan has a seccomp profile without its program, or a program without its profile");

    // A plan whose header needs seccomp cannot lose its filter to a shorter section table
    // (the last four: seccomp, its program, limits, rlimits).
    std::vector<uint8_t> stripped = bytes;
    std::memcpy(&h, stripped.data(), sizeof h);
    h.section_count -= 4;
    std::memcpy(stripped.data(), &h, sizeof h);
    reseal(stripped);
    CHECK(open_plan(stripped).err == "the header requires seccomp, but the plan has no seccomp filter");
}
