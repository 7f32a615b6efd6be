// Tests of ir/plan_writer: the bytes depend only on the calls, strings are interned once,
// the layout is the one ir/FORMAT.md describes.
#include <doctest/doctest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "plan_reader.h"
#include "plan_writer.h"

using tartaros::ir::PlanWriter;

namespace {

// The same sequence of calls, run on a fresh writer each time.
std::vector<uint8_t> build(const char *home)
{
    PlanWriter w;
    w.set_meta({w.str("/p/policy.toml"), w.str("tartaros-compile 0.1.0"), 1, 0});
    tp_mount m{};
    m.op = TP_MNT_BIND;
    m.path = w.str(home);
    m.source = w.str(home);
    m.origin = {4, 2, 0};
    w.add_mount(m);
    tp_env e{};
    e.op = TP_ENV_SET;
    e.name = w.str("HOME");
    e.value = w.str(home);
    w.add_env(e);
    w.set_exec({TP_EXEC_INHERIT_ENV, 0, {9, 1, 0}});
    w.set_required_features(TP_FEAT_MOUNTNS);
    return w.finish();
}

tp_section section_entry(const std::vector<uint8_t> &bytes, uint32_t index)
{
    tp_section s;
    std::memcpy(&s, bytes.data() + sizeof(tp_header) + index * sizeof(tp_section), sizeof s);
    return s;
}

}  // namespace

TEST_CASE("plan writer: the same calls give identical bytes")
{
    std::vector<uint8_t> a = build("/home/u");
    std::vector<uint8_t> b = build("/home/u");
    CHECK(a == b);
    CHECK(a != build("/home/v"));

    PlanWriter w;
    w.str("x");
    CHECK(w.finish() == w.finish());
}

TEST_CASE("plan writer: strings are interned once, in first-use order")
{
    PlanWriter w;
    tp_str empty = w.str("");
    tp_str usr = w.str("/usr");
    tp_str bin = w.str("/bin");
    CHECK(empty.off == 0);
    CHECK(empty.len == 0);
    CHECK(w.str("").off == 0);
    CHECK(usr.off == 1);
    CHECK(usr.len == 4);
    CHECK(bin.off == 6);  // after "/usr\0"
    tp_str again = w.str(std::string("/u") + "sr");
    CHECK(again.off == usr.off);
    CHECK(again.len == usr.len);

    // The empty string is {0, 0} even when interned after others.
    PlanWriter w2;
    tp_str first = w2.str("/a");
    CHECK(first.off == 1);
    CHECK(w2.str("").off == 0);

    std::vector<uint8_t> bytes = w.finish();
    tp_section strtab = section_entry(bytes, 0);
    REQUIRE(strtab.type == TP_SEC_STRTAB);
    CHECK(strtab.size == 11);
    CHECK(std::memcmp(bytes.data() + strtab.offset, "\0/usr\0/bin\0", 11) == 0);
}

TEST_CASE("plan writer: layout, padding and checksum")
{
    std::vector<uint8_t> bytes = build("/home/u");
    REQUIRE(bytes.size() % 8 == 0);
    tp_header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    CHECK(std::memcmp(h.magic, TP_MAGIC, 8) == 0);
    CHECK(h.format_version == TP_FORMAT_VERSION);
    CHECK(h.total_size == bytes.size());
    CHECK(h.section_table_off == sizeof(tp_header));
    CHECK(h.required_features == TP_FEAT_MOUNTNS);
    CHECK(h.checksum == tp_checksum(bytes.data(), h.total_size, offsetof(tp_header, checksum)));
    REQUIRE(h.section_count == 5);  // strtab, meta, mounts, env, exec

    std::vector<bool> covered(bytes.size(), false);
    uint32_t previous_type = 0;
    std::size_t end = sizeof(tp_header) + h.section_count * sizeof(tp_section);
    for (uint32_t i = 0; i < h.section_count; i++) {
        tp_section s = section_entry(bytes, i);
        CHECK(s.type > previous_type);
        previous_type = s.type;
        CHECK(s.offset % 8 == 0);
        CHECK(s.offset >= end);
        for (std::size_t b = end; b < s.offset; b++)
            CHECK(bytes[b] == 0);  // padding between sections
        end = s.offset + s.size;
    }
    for (std::size_t b = end; b < bytes.size(); b++)
        CHECK(bytes[b] == 0);
    CHECK(section_entry(bytes, 0).type == TP_SEC_STRTAB);
    CHECK(section_entry(bytes, 4).type == TP_SEC_EXEC);
}

TEST_CASE("plan writer: empty sections and required flags")
{
    PlanWriter w;
    std::vector<uint8_t> bare = w.finish();
    tp_header h;
    std::memcpy(&h, bare.data(), sizeof h);
    CHECK(h.section_count == 1);  // only the string table, holding the empty string
    CHECK(section_entry(bare, 0).size == 1);

    w.set_mounts_required(true);
    w.set_landlock({TP_LL_FS_READ_FILE, 0, 0, 1, 0}, true);
    std::vector<uint8_t> bytes = w.finish();
    std::memcpy(&h, bytes.data(), sizeof h);
    REQUIRE(h.section_count == 3);
    CHECK(section_entry(bytes, 1).type == TP_SEC_MOUNTS);
    CHECK(section_entry(bytes, 1).count == 0);
    CHECK(section_entry(bytes, 1).flags == TP_SECF_REQUIRED);
    CHECK(section_entry(bytes, 2).type == TP_SEC_LANDLOCK);
    CHECK(section_entry(bytes, 2).flags == TP_SECF_REQUIRED);

    tp_plan plan;
    char err[200];
    REQUIRE_MESSAGE(tp_plan_open(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, err, sizeof err) == 0, err);
    CHECK(plan.mount_count == 0);
    CHECK(plan.mounts_section_flags == TP_SECF_REQUIRED);
}
