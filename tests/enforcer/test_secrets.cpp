// Unit tests of the broker's secrets on the enforcer's side (enforcer/secrets.h): which
// variables refuse a run and what the refusal says (never the value), the memfd handed to
// tartaros-proxy (shared/broker_secrets_wire.h's layout, sealed), and the wipe of the launcher's
// environment block. Each case runs in a child process: the secrets are the process's
// state, and a refusal exits.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>
#include <vector>

#include "broker_secrets_wire.h"
#include "in_child.h"
#include "secrets.h"

extern char **environ;

namespace {

// A plan with only what secrets.cpp reads: the broker and its capabilities' names.
struct FakeBroker {
    std::string strtab;
    tp_broker broker = {};
    std::vector<tp_broker_cap> caps;
    tp_plan plan = {};
    run_ctx ctx = {};

    tp_str str(const std::string &s)
    {
        tp_str r = {static_cast<uint32_t>(strtab.size()), static_cast<uint32_t>(s.size())};
        strtab += s;
        strtab.push_back('\0');
        return r;
    }
    // `token_env` "" = a random token; one capability per value_env, named cap0, cap1, ...
    FakeBroker(const std::string &token_env, const std::vector<std::string> &value_envs)
    {
        strtab.reserve(4096);  // tp_str offsets only; the pointer is taken at the end
        broker.token_env = token_env.empty() ? tp_str{0, 0} : str(token_env);
        broker.origin = {3, 1, 0};
        for (size_t i = 0; i < value_envs.size(); i++) {
            tp_broker_cap c = {};
            c.name = str("cap" + std::to_string(i));
            c.value_env = str(value_envs[i]);
            c.origin = {static_cast<uint32_t>(10 + i), 1, 0};
            caps.push_back(c);
        }
        if (strtab.empty())
            strtab.push_back('\0');
        plan.strtab = strtab.data();
        plan.strtab_size = static_cast<uint32_t>(strtab.size());
        plan.broker = &broker;
        plan.broker_caps = caps.data();
        plan.broker_cap_count = static_cast<uint32_t>(caps.size());
        ctx.plan = &plan;
        ctx.broker = true;
    }
};

// The memfd's records, or an empty list when its header is wrong.
std::vector<std::string> read_records(int fd)
{
    std::string all;
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;)
        all.append(buf, static_cast<size_t>(n));
    tbs_header h;
    if (all.size() < sizeof h)
        return {};
    memcpy(&h, all.data(), sizeof h);
    if (h.magic != TBS_MAGIC)
        return {};
    std::vector<std::string> out;
    size_t at = sizeof h;
    for (uint32_t i = 0; i < h.count && at + 4 <= all.size(); i++) {
        uint32_t len;
        memcpy(&len, all.data() + at, 4);
        out.push_back(all.substr(at + 4, len));
        at += 4 + len;
    }
    return at == all.size() ? out : std::vector<std::string>{};
}

bool is_hex(const std::string &s)
{
    return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

TEST_CASE("the memfd holds the token then each value in plan order and is sealed")
{
    ChildResult r = in_child([] {
        setenv("T_TOKEN", "tok-123", 1);
        setenv("T_A", "Bearer-ish value\twith inner blanks", 1);
        setenv("T_B", "b", 1);
        FakeBroker fb("T_TOKEN", {"T_A", "T_B"});
        secrets_read(&fb.ctx);
        int fd = secrets_memfd();
        int seals = fcntl(fd, F_GET_SEALS);
        bool sealed = seals == (F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE);
        bool cloexec = (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0;
        bool unwritable = write(fd, "x", 1) < 0;
        std::vector<std::string> rec = read_records(fd);
        size_t len = 0;
        const char *token = secrets_token(&len);
        bool token_kept = token != nullptr && std::string(token, len) == "tok-123";
        bool ok = rec == std::vector<std::string>{"tok-123", "Bearer-ish value\twith inner blanks", "b"};
        return ok && sealed && cloexec && unwritable && token_kept ? 0 : 1;
    });
    CHECK(r.code == 0);
    CHECK(r.err.empty());
}

TEST_CASE("without token_env the token is 64 random hex digits")
{
    int pipefd[2];
    REQUIRE(pipe(pipefd) == 0);
    auto one_token = [&] {
        return in_child([&] {
            setenv("T_A", "v", 1);
            FakeBroker fb("", {"T_A"});
            secrets_read(&fb.ctx);
            size_t len = 0;
            const char *token = secrets_token(&len);
            (void)!write(pipefd[1], token, len);
            return 0;
        });
    };
    REQUIRE(one_token().code == 0);
    REQUIRE(one_token().code == 0);
    close(pipefd[1]);
    char buf[256];
    ssize_t n = read(pipefd[0], buf, sizeof buf);
    close(pipefd[0]);
    REQUIRE(n == 128);
    std::string first(buf, 64), second(buf + 64, 64);
    CHECK(is_hex(first));
    CHECK(is_hex(second));
    CHECK(first != second);
}

TEST_CASE("a missing or unusable variable refuses naming it and its capability but never the value")
{
    struct Case {
        const char *what;
        const char *value;  // nullptr: unset
        const char *reason;
    };
    const std::string too_long(TBS_MAX_VALUE + 1, 'k');
    const Case cases[] = {
        {"unset", nullptr, "is not set"},
        {"empty", "", "is empty"},
        {"too long", too_long.c_str(), "longer than the limit of 16384 bytes"},
        {"a newline", "zq\nzq", "cannot go into an HTTP header"},
        {"a carriage return", "zq\rzq", "cannot go into an HTTP header"},
        {"a leading space", " zqzq", "cannot go into an HTTP header"},
        {"a trailing tab", "zqzq\t", "cannot go into an HTTP header"},
        {"a byte outside ASCII", "zq\xc3\xa9zq", "cannot go into an HTTP header"},
        {"a DEL", "zq\x7fzq", "cannot go into an HTTP header"},
        {"a control byte", "zq\x01zq", "cannot go into an HTTP header"},
    };
    for (const Case &c : cases) {
        CAPTURE(c.what);
        ChildResult r = in_child([&] {
            setenv("T_OK", "fine", 1);
            if (c.value)
                setenv("T_BAD", c.value, 1);
            FakeBroker fb("", {"T_OK", "T_BAD"});
            secrets_read(&fb.ctx);
            return 0;
        });
        CHECK(r.code == 78);
        CHECK(r.err.rfind("tartaros: broker capability cap1 (policy line 11:1): its value_env T_BAD ", 0) == 0);
        CHECK(r.err.find(c.reason) != std::string::npos);
        CHECK(r.err.find('\n') == r.err.size() - 1);
        if (c.value && strlen(c.value) > 2) {
            CHECK(r.err.find("zq") == std::string::npos);
            CHECK(r.err.find("kkkk") == std::string::npos);
        }
    }
}

TEST_CASE("an unusable token_env refuses naming the variable")
{
    ChildResult r = in_child([] {
        setenv("T_A", "v", 1);
        setenv("T_TOKEN", "zq\nzq", 1);
        FakeBroker fb("T_TOKEN", {"T_A"});
        secrets_read(&fb.ctx);
        return 0;
    });
    CHECK(r.code == 78);
    CHECK(r.err.rfind("tartaros: broker (policy line 3:1): its token_env T_TOKEN holds a byte", 0) == 0);
    CHECK(r.err.find("zq") == std::string::npos);
}

TEST_CASE("without a broker run nothing is read and nothing refuses")
{
    ChildResult r = in_child([] {
        FakeBroker fb("T_UNSET_TOKEN", {"T_UNSET"});
        fb.ctx.broker = false;
        secrets_read(&fb.ctx);
        size_t len = 1;
        return secrets_token(&len) == nullptr && len == 0 ? 0 : 1;
    });
    CHECK(r.code == 0);
    CHECK(r.err.empty());
}

TEST_CASE("the launcher's secret variables are zeroed in place and removed from environ")
{
    ChildResult r = in_child([] {
        // An environment block as the kernel lays it out: NAME=VALUE strings back to back.
        static char block[] = "PATH=/bin\0T_TOKEN=tok\0T_A=alpha\0T_AB=keep\0T_A=again\0HOME=/h";
        char *vars[] = {block, block + 10, block + 22, block + 32, block + 42, block + 52, nullptr};
        char **saved = environ;
        environ = vars;
        FakeBroker fb("T_TOKEN", {"T_A"});
        secrets_read(&fb.ctx);
        int fd = secrets_memfd();
        secrets_forget_launcher(&fb.plan);
        std::vector<std::string> left;
        for (char **e = environ; *e; e++)
            left.emplace_back(*e);
        environ = saved;
        std::string bytes(block, sizeof block);
        bool wiped = bytes.find("tok") == std::string::npos && bytes.find("alpha") == std::string::npos &&
            bytes.find("again") == std::string::npos && bytes.find("T_TOKEN") == std::string::npos;
        bool kept = left == std::vector<std::string>{"PATH=/bin", "T_AB=keep", "HOME=/h"};
        // The proxy's copy is intact, and the token stays for init until it is forgotten.
        bool handed = read_records(fd) == std::vector<std::string>{"tok", "alpha"};
        size_t len = 0;
        bool token_kept = secrets_token(&len) != nullptr && len == 3;
        secrets_forget_token();
        bool token_gone = secrets_token(&len) == nullptr;
        return wiped && kept && handed && token_kept && token_gone ? 0 : 1;
    });
    CHECK(r.code == 0);
}

TEST_CASE("secrets_is_name matches the token_env and every value_env exactly")
{
    FakeBroker fb("T_TOKEN", {"T_A", "T_B"});
    CHECK(secrets_is_name(&fb.plan, "T_TOKEN", 7));
    CHECK(secrets_is_name(&fb.plan, "T_A", 3));
    CHECK(secrets_is_name(&fb.plan, "T_B=x", 3));
    CHECK_FALSE(secrets_is_name(&fb.plan, "T_AB", 4));
    CHECK_FALSE(secrets_is_name(&fb.plan, "T_", 2));
    CHECK_FALSE(secrets_is_name(&fb.plan, "T_TOKEN2", 8));
    FakeBroker random_token("", {"T_A"});
    CHECK_FALSE(secrets_is_name(&random_token.plan, "", 0));
    tp_plan none = {};
    CHECK_FALSE(secrets_is_name(&none, "T_A", 3));
}
