// compiler/lower/lower_broker.h — [broker] → the plan's broker sections, its environment and the
// placement of its credentials directory.
//
// With a broker the plan carries (ir/plan.h): TP_SEC_BROKER (required, like every layer),
// TP_SEC_BROKER_CAPS in policy order (methods and path prefixes joined by one space), the
// network mode TP_NET_BROKER with one TP_NAME_BROKER_HOST name per allowed_hosts entry
// (lower_net.h), two TP_ENV_SET steps right after the proxy's (broker_environment), and the
// credentials directory: a TMPFS step with TP_MNTF_CREDENTIALS at TP_CREDENTIALS_DIR and a
// Landlock rule granting kCredentialsRights there (lower_fs.h) (the rule trie's Credentials rule,
// fs_trie.h). None of it depends on anything but the policy.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lower_fs.h"
#include "plan_origin.h"
#include "plan_writer.h"
#include "policy.h"

namespace tartaros {

// "http://127.0.0.1:<port>".
std::string broker_url(const BrokerPolicy &broker);

// The variables that point the agent at the broker, in the order they are set:
// TARTAROS_BROKER_URL and CREDENTIALS_DIRECTORY; none without a broker.
std::vector<std::pair<std::string, std::string>> broker_environment(const std::optional<BrokerPolicy> &broker);

// "GET POST", "/a /b": a list as the plan carries it.
std::string space_joined(const std::vector<Located<std::string>> &words);

// Writes TP_SEC_BROKER and TP_SEC_BROKER_CAPS.
void write_broker(ir::PlanWriter &w, const BrokerPolicy &broker, const PlanOrigins &origin);

// The enforcer creates the credentials mountpoint inside a tmpfs the sandbox made (the empty
// root of read_scope "granted", the mask over /run, ...), never in a directory of the host.
// Returns the step of `mounts` that decides TP_CREDENTIALS_DIR's parent when that step shows
// the host's directory (a bind, the read-only root), else null; also null without a
// credentials step.
const MountStep *credentials_parent_from_host(const std::vector<MountStep> &mounts);

}  // namespace tartaros
