/* proxy/broker_mask.h — what the broker's log lines say instead of a secret.
 *
 * A broker event (effect_log.h) carries the request's path and a refusal's one-line detail,
 * both chosen by the agent. An agent that puts a credential in a URL (`/bot<token>/x`,
 * `;access_token=…`, or the broker's own token) would write it into the effect log, which
 * outlives the run and is read by people and tools the credential was never meant for. So
 * before a line is written (as exec events do for the token: enforcer/exec_events.h):
 *  - each occurrence of the broker's token becomes '*'s of its length (found by its
 *    fingerprint, TokenPrint: the proxy never keeps the token);
 *  - each occurrence of a capability's value, in any case, becomes '*'s; a value still found
 *    in another form (%-encoded, base64: broker_reflect.h) stars the whole text;
 *  - the value of a `name=value` parameter (after '?', '&' or ';') whose name looks like a
 *    credential (token, key, secret, password, auth, signature, session, credential, jwt)
 *    becomes '*'s.
 * Tokens shorter than 16 bytes are not starred (like exec events): stars would mark every
 * match of a short string in unrelated text.
 */
#pragma once

#include <string>
#include <string_view>

#include "broker_secrets.h"

namespace tproxy {

// The fingerprint of `token` with a fresh random base (len 0 when shorter than 16 bytes).
TokenPrint token_print(std::string_view token);

// `text` with the secrets above starred.
std::string mask_for_log(std::string_view text, const BrokerSecrets &s);

}  // namespace tproxy
