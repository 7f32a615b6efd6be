// compiler/model/syscall_table.cpp — the x86_64 system call table (see syscall_table.h), read from
// the one copy in ir/syscall_names.cpp that the enforcer names denied calls by as well.
#include "syscall_table.h"

#include <algorithm>
#include <vector>

#include "syscall_names.h"

namespace tartaros::seccomp {
namespace {

static_assert(kTableMaxNr == TP_SYSCALL_MAX_NR);

std::vector<SyscallEntry> make_table()
{
    const tp_syscall_entry *entries = tp_syscall_entries();
    std::vector<SyscallEntry> table;
    table.reserve(tp_syscall_count());
    for (uint32_t i = 0; i < tp_syscall_count(); i++)
        table.push_back({entries[i].nr, entries[i].name});
    return table;
}

const std::vector<SyscallEntry> &table()
{
    static const std::vector<SyscallEntry> entries = make_table();
    return entries;
}

}  // namespace

std::span<const SyscallEntry> syscall_table()
{
    return table();
}

std::optional<uint32_t> syscall_number(std::string_view name)
{
    for (const SyscallEntry &e : table())
        if (e.name == name)
            return e.nr;
    return std::nullopt;
}

std::string_view syscall_name(uint32_t nr)
{
    const char *name = tp_syscall_name(nr);
    return name != nullptr ? std::string_view(name) : std::string_view{};
}

}  // namespace tartaros::seccomp
