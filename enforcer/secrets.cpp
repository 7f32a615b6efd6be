/* enforcer/secrets.cpp — see secrets.h. */
#include "secrets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "broker_secrets_wire.h"
#include "report.h"
#include "sealed_memfd.h"
#include "write_all.h"

extern char **environ;

namespace {

constexpr size_t kRandomTokenBytes = 32; /* 256 bits, 64 hex digits */

struct secret {
    const char *value; /* a value: inside the environment block; the token: g_token */
    uint32_t len;
};

/* Record 0 is the token, record i the value of the plan's capability i - 1 (the memfd's
 * order, shared/broker_secrets_wire.h). */
secret g_records[TBS_MAX_RECORDS];
uint32_t g_record_count;
char g_token[TBS_MAX_VALUE];
size_t g_token_len;

/* explicit_bzero: stores the compiler may not drop as dead, and no system call (raw-safe). */
void wipe(void *p, size_t n)
{
    explicit_bzero(p, n);
}

/* shared/broker_secrets_wire.h: printable ASCII, with space and tab allowed only inside. */
bool header_safe(const char *v, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)v[i];
        bool inner_blank = (c == ' ' || c == '\t') && i > 0 && i + 1 < len;
        if ((c < 0x21 || c > 0x7e) && !inner_blank)
            return false;
    }
    return true;
}

/* Why a variable's value cannot be used, or NULL. The text never quotes the value. */
const char *unusable(const char *value, size_t *len)
{
    if (value == nullptr)
        return "is not set in the environment tartaros-exec was started with";
    *len = strnlen(value, TBS_MAX_VALUE + 1);
    if (*len == 0)
        return "is empty";
    if (*len > TBS_MAX_VALUE)
        return "is longer than the limit of 16384 bytes";
    if (!header_safe(value, *len))
        return "holds a byte that cannot go into an HTTP header (a control character, a byte outside "
               "ASCII, or whitespace at either end)";
    return nullptr;
}

void random_token()
{
    static const char kHex[] = "0123456789abcdef";
    unsigned char bytes[kRandomTokenBytes];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fail(EXIT_STARTUP, "cannot make the broker's token: getrandom: %s", strerror(errno));
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof bytes; i++) {
        g_token[2 * i] = kHex[bytes[i] >> 4];
        g_token[2 * i + 1] = kHex[bytes[i] & 15];
    }
    wipe(bytes, sizeof bytes);
    g_token_len = 2 * sizeof bytes;
}

void read_token(const tp_plan *plan)
{
    const tp_broker *b = plan->broker;
    if (b->token_env.len == 0)
        return random_token();
    const char *name = tp_plan_str(plan, b->token_env);
    const char *value = getenv(name);
    size_t len = 0;
    const char *why = unusable(value, &len);
    if (why != nullptr) {
        char origin[64];
        refuse("broker%s: its token_env %s %s", origin_text(b->origin.line, b->origin.col, origin, sizeof origin), name,
               why);
    }
    memcpy(g_token, value, len);
    g_token_len = len;
}

void read_value(const tp_plan *plan, uint32_t i)
{
    const tp_broker_cap *cap = &plan->broker_caps[i];
    const char *name = tp_plan_str(plan, cap->value_env);
    const char *value = getenv(name);
    size_t len = 0;
    const char *why = unusable(value, &len);
    if (why != nullptr) {
        char origin[64];
        refuse("broker capability %s%s: its value_env %s %s", tp_plan_str(plan, cap->name),
               origin_text(cap->origin.line, cap->origin.col, origin, sizeof origin), name, why);
    }
    g_records[1 + i] = {value, (uint32_t)len};
}

bool same_name(const tp_plan *plan, tp_str s, const char *name, size_t len)
{
    return s.len == len && memcmp(tp_plan_str(plan, s), name, len) == 0;
}

}  // namespace

void secrets_read(const run_ctx *ctx)
{
    const tp_plan *plan = ctx->plan;
    if (!ctx->broker)
        return;
    read_token(plan);
    for (uint32_t i = 0; i < plan->broker_cap_count; i++)
        read_value(plan, i);
    g_records[0] = {g_token, (uint32_t)g_token_len};
    g_record_count = 1 + plan->broker_cap_count;
}

int secrets_memfd()
{
    int fd = sealed_memfd_create("tartaros-broker-secrets");
    if (fd < 0)
        fail(EXIT_STARTUP, "cannot hand the broker its secrets: memfd_create: %s", strerror(errno));
    tbs_header header = {TBS_MAGIC, g_record_count};
    bool ok = write_all(fd, &header, sizeof header);
    for (uint32_t i = 0; ok && i < g_record_count; i++) {
        uint32_t len = g_records[i].len;
        ok = write_all(fd, &len, sizeof len) && write_all(fd, g_records[i].value, len);
    }
    if (!ok || !sealed_memfd_seal(fd))
        fail(EXIT_STARTUP, "cannot hand the broker its secrets: %s", strerror(errno));
    return fd;
}

void secrets_forget_launcher(const tp_plan *plan)
{
    if (plan->broker == nullptr)
        return;
    for (char **e = environ; e != nullptr && *e != nullptr;) {
        size_t name_len = strcspn(*e, "=");
        if ((*e)[name_len] != '=' || !secrets_is_name(plan, *e, name_len)) {
            e++;
            continue;
        }
        wipe(*e, strlen(*e));
        char **rest = e;
        do
            rest[0] = rest[1];
        while (*rest++ != nullptr);
    }
    for (uint32_t i = 1; i < g_record_count; i++)
        g_records[i] = {nullptr, 0};
}

bool secrets_is_name(const tp_plan *plan, const char *name, size_t len)
{
    const tp_broker *b = plan->broker;
    if (b == nullptr)
        return false;
    if (b->token_env.len != 0 && same_name(plan, b->token_env, name, len))
        return true;
    for (uint32_t i = 0; i < plan->broker_cap_count; i++)
        if (same_name(plan, plan->broker_caps[i].value_env, name, len))
            return true;
    return false;
}

const char *secrets_token(size_t *len)
{
    *len = g_token_len;
    return g_token_len > 0 ? g_token : nullptr;
}

void secrets_forget_token()
{
    wipe(g_token, g_token_len);
    g_token_len = 0;
    g_records[0] = {nullptr, 0};
}
