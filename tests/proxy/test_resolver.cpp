// The lookup pool: its threads start with it or with its first lookup, and every accepted
// lookup gives one result on the event fd. "localhost" comes from /etc/hosts, so no DNS.
#include <doctest/doctest.h>

#include <poll.h>

#include <vector>

#include "resolver.h"

namespace {

// The results of `want` lookups, waiting for each on the pool's event fd (at most 10 s).
std::vector<tproxy::Resolver::Result> wait_for(tproxy::Resolver &r, size_t want)
{
    std::vector<tproxy::Resolver::Result> got;
    for (int round = 0; round < 100 && got.size() < want; round++) {
        pollfd p{r.event_fd(), POLLIN, 0};
        if (poll(&p, 1, 100) == 1)
            for (tproxy::Resolver::Result &one : r.drain())
                got.push_back(std::move(one));
    }
    return got;
}

}  // namespace

TEST_CASE("resolver: started on the first lookup, no thread before it")
{
    tproxy::Resolver r(3, 8, tproxy::Resolver::Start::OnFirstLookup);
    CHECK(r.thread_count() == 0);
    REQUIRE(r.submit(7, "localhost"));
    CHECK(r.thread_count() == 3);
    REQUIRE(r.submit(8, "localhost"));
    CHECK(r.thread_count() == 3);
    const std::vector<tproxy::Resolver::Result> got = wait_for(r, 2);
    REQUIRE(got.size() == 2);
    for (const tproxy::Resolver::Result &one : got) {
        CHECK((one.token == 7 || one.token == 8));
        CHECK(one.gai_error == 0);
        CHECK(!one.addrs.empty());
    }
}

TEST_CASE("resolver: started with the pool; the queue is bounded")
{
    tproxy::Resolver r(2, 1, tproxy::Resolver::Start::Now);
    CHECK(r.thread_count() == 2);
    REQUIRE(r.submit(1, "localhost"));
    CHECK_FALSE(r.submit(2, "localhost"));  // one pending already: the caller answers 503
    const std::vector<tproxy::Resolver::Result> got = wait_for(r, 1);
    REQUIRE(got.size() == 1);
    CHECK(got[0].token == 1);
    CHECK(r.submit(3, "localhost"));  // drained: room again
    CHECK(wait_for(r, 1).size() == 1);
}
