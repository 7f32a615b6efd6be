// compiler/model/syscall_constants.h — the names a .tart `syscalls` rule may use for argument values
// (AF_NETLINK, TIOCSTI, CLONE_NEWUSER...) and for its errno (EPERM, EACCES...).
//
// Values are x86_64 Linux's, as the compiler's native syscall table (syscall_table.h): they are
// taken from the C library's and the kernel's headers at build time, so they cannot drift from
// the system's own. Families: AF_*, SOCK_*, IPPROTO_*, NETLINK_*, CLONE_*, PROT_*, MAP_*,
// MADV_*, MFD_*, O_*, AT_*, F_*, MS_*, TIOC*, FIO*, PR_*, PTRACE_*, PER_* (and the personality
// flags such as ADDR_NO_RANDOMIZE), SIG*. Names are unique; a value may have several names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

// The value of constant `name` as the kernel reads a 32-bit argument (AT_FDCWD is 0xffffff9c).
std::optional<uint32_t> syscall_constant(std::string_view name);

// Every constant's name, for "did you mean" hints.
const std::vector<std::string> &syscall_constant_names();

// The errno number of `name` (EPERM → 1), 1..4095.
std::optional<uint16_t> errno_number(std::string_view name);

// The usual name of errno `number` (EAGAIN, not EWOULDBLOCK), or "" for a number with none.
std::string_view errno_name(uint16_t number);

// Every errno name, for "did you mean" hints.
const std::vector<std::string> &errno_names();

}  // namespace tartaros
