// compiler/frontend/secret_detector.h — what looks like a secret in a policy's text (lint rule
// "secret-in-policy", docs/lint-rules.md).
//
// Three kinds of evidence, from the most to the least certain:
//  - a token format that says what it is: GitHub (ghp_ gho_ ghu_ ghs_ ghr_ github_pat_),
//    GitLab (glpat-), Slack (xoxa- xoxb- xoxp- xoxr- xoxs-), OpenAI-style and Anthropic (sk-,
//    sk-ant-), AWS access key ids (AKIA, ASIA), Google (AIza), npm (npm_), PyPI (pypi-AgE),
//    Hugging Face (hf_), Stripe (sk_live_ rk_live_ sk_test_ rk_test_), JSON Web Tokens, PEM
//    private keys, and a password in a URL (scheme://user:password@host);
//  - a long random-looking string: a run of base64 characters, split at '/' and at a '=' that
//    is not padding (and at '_' and '-' when they are frequent enough to separate words), with
//    a piece of at least 20 characters that mixes upper case, lower case and digits, changes
//    character class often, has a high entropy and is mostly not words. Paths, domains (split
//    at '.'), identifiers (CamelCase, snake_case, ENV_NAMES, Key=90s), UUIDs and hex digests do
//    not pass: they lack a character class, change class rarely or are made of words;
//  - a string under a key whose name says it holds a secret (password, api_key,
//    GITHUB_TOKEN = "..."), unless it is a reference ($VAR, an ENV_NAME, a path).
// Everything is scanned: values, keys, comments, and text that is not valid TOML.
// Known blind spots: random secrets of one case or of hex digits only (entropy cannot tell
// them from digests), and secrets shorter than 20 characters under an innocent key.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tartaros {

struct SecretMatch {
    size_t offset = 0;  // byte offset in the text where the secret starts
    std::string what;   // "a GitHub token", "a long random string", ...
};

// Every token format, URL password and long random string in `text`, in text order.
std::vector<SecretMatch> find_secrets_in_text(std::string_view text);

// Whether a key or variable name says its value is a secret: its last word (split at '_',
// '-', '.' and lower-to-upper case changes) ends with token, secret, password, passwd,
// passphrase or apikey, or its last two words are api/access/private/secret/auth + key.
bool names_a_secret(std::string_view name);

// Whether `value`, held by a key that names a secret, is one: at least 8 characters, no
// spaces, and not a reference ($VAR, ${VAR}, an ENV_NAME, a path).
bool looks_like_secret_value(std::string_view value);

// The random-string test of one piece (no separator left): see the top of this file.
bool looks_random(std::string_view piece);

}  // namespace tartaros
