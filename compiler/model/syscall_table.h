// compiler/model/syscall_table.h — the native (x86_64) system call table the seccomp profile and its
// verifier are written against.
//
// The entries live in ir/syscall_names.cpp, shared with the enforcer. Invariants: numbers are
// the kernel's (arch/x86/entry/syscalls/syscall_64.tbl, common and 64 ABIs) up to kTableMaxNr;
// names are unique; numbers with no entry (335–423) are holes the kernel answers with ENOSYS. The table is the compiler's, not libseccomp's: libseccomp 2.5.4
// stops at set_mempolicy_home_node (450) and would not know open_tree_attr (467).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace tartaros::seccomp {

struct SyscallEntry {
    uint32_t nr;
    std::string_view name;
};

// Highest number in the table (file_setattr, Linux 6.17).
inline constexpr uint32_t kTableMaxNr = 469;
// Numbers above kTableMaxNr up to this one are reserved for syscalls newer than the table.
inline constexpr uint32_t kFutureMaxNr = 511;

// Every entry, ascending by number.
std::span<const SyscallEntry> syscall_table();
std::optional<uint32_t> syscall_number(std::string_view name);
// The name of `nr`, or "" for a hole or a number beyond the table.
std::string_view syscall_name(uint32_t nr);

}  // namespace tartaros::seccomp
