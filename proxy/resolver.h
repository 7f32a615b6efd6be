/* proxy/resolver.h — name lookups off the event loop.
 *
 * A fixed pool of threads runs blocking getaddrinfo; results come back through a queue and
 * an eventfd the event loop polls. Chosen over getaddrinfo_a because that one creates its
 * threads inside glibc, as many as glibc decides, signals completion by signal or a further
 * thread, and gives no bound on outstanding lookups. This pool is of a fixed size (the proxy's
 * seccomp filter lets it create threads, never processes), has a bounded queue (submit fails
 * when full: the caller answers 503), and a lookup whose connection has gone is simply
 * dropped when it completes (tokens are never reused while pending).
 *
 * The threads start with the pool, or with its first lookup (Start::OnFirstLookup): most
 * commands of an agent never name a host, and a pool started at every sandbox's start cost
 * each run about 0.3 ms (its threads' creation beside the command's start, their exit at
 * its end; bench/README.md).
 * Invariant: every accepted submit produces exactly one Result, delivered on the loop thread.
 */
#pragma once

#include <netinet/in.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace tproxy {

struct Resolved {
    sockaddr_storage addr;
    socklen_t len;
};

class Resolver {
public:
    struct Result {
        uint64_t token;
        int gai_error;  // 0 on success
        std::vector<Resolved> addrs;
    };

    enum class Start { Now, OnFirstLookup };
    Resolver(unsigned threads, size_t max_pending, Start start = Start::Now);
    ~Resolver();
    Resolver(const Resolver &) = delete;
    Resolver &operator=(const Resolver &) = delete;

    int event_fd() const { return efd_; }
    // False when max_pending lookups are already queued or running, or when no thread could
    // be started for the first one. Call from the loop thread only.
    bool submit(uint64_t token, const std::string &name);
    // Takes every finished lookup; call when event_fd() is readable.
    std::vector<Result> drain();

    // The lookup threads running now.
    size_t thread_count() const { return threads_.size(); }

private:
    void start_threads();
    struct Job {
        uint64_t token;
        std::string name;
    };
    void work();

    int efd_;
    size_t max_pending_;
    size_t pending_ = 0;
    unsigned unstarted_;  // threads still to start (at the first lookup)
    bool stopping_ = false;
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Job> jobs_;
    std::vector<Result> done_;
    std::vector<std::thread> threads_;
};

}  // namespace tproxy
