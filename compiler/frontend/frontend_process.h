// compiler/frontend/frontend_process.h — the TOML front-end's [process] table: the isolation switches
// and the resource limits (max_processes, memory_max, cpu_max, timeout, timeout_grace,
// rlimits). The values' grammar is units.h; the ranges are ir/plan.h's TP_* bounds, so a
// policy the front-end accepts always lowers to limits the plan reader accepts.
//
// Every wrong value is an error at the value (an unknown rlimit resource: at its key) whose
// message quotes it as written and says what to write instead; `timeout_grace` without
// `timeout` is an error at `timeout_grace`.
#pragma once

#include <toml++/toml.h>

#include "policy.h"
#include "toml_schema.h"

namespace tartaros {

void read_process_table(TomlSchemaReader &reader, const toml::table &table, ProcessPolicy &process);

}  // namespace tartaros
