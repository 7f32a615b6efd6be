/* proxy/resolver.cpp — the lookup thread pool (see resolver.h). */
#include "resolver.h"

#include <netdb.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cstring>
#include <system_error>

namespace tproxy {

Resolver::Resolver(unsigned threads, size_t max_pending, Start start) : max_pending_(max_pending), unstarted_(threads)
{
    efd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (efd_ < 0)
        throw std::system_error(errno, std::generic_category(), "eventfd");
    if (start == Start::Now)
        start_threads();
}

// Throws std::system_error when the kernel refuses a thread; those started stay, the rest are
// tried again at the next lookup.
void Resolver::start_threads()
{
    for (; unstarted_ > 0; unstarted_--)
        threads_.emplace_back([this] { work(); });
}

Resolver::~Resolver()
{
    {
        std::lock_guard lk(mu_);
        stopping_ = true;
    }
    cv_.notify_all();
    // A thread inside getaddrinfo finishes that lookup first (bounded by resolv.conf's
    // timeout); joining keeps ASan/LSan and the process exit orderly.
    for (auto &t : threads_)
        t.join();
    close(efd_);
}

bool Resolver::submit(uint64_t token, const std::string &name)
{
    if (unstarted_ > 0) {
        try {
            start_threads();
        } catch (const std::system_error &) {
            if (threads_.empty())
                return false;
        }
    }
    {
        std::lock_guard lk(mu_);
        if (pending_ >= max_pending_)
            return false;
        pending_++;
        jobs_.push_back({token, name});
    }
    cv_.notify_one();
    return true;
}

std::vector<Resolver::Result> Resolver::drain()
{
    uint64_t n;
    while (read(efd_, &n, sizeof n) > 0) {
    }
    std::lock_guard lk(mu_);
    std::vector<Result> out;
    out.swap(done_);
    pending_ -= out.size();
    return out;
}

void Resolver::work()
{
    for (;;) {
        Job job;
        {
            std::unique_lock lk(mu_);
            cv_.wait(lk, [this] { return stopping_ || !jobs_.empty(); });
            if (stopping_)
                return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        addrinfo hints{};
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        addrinfo *res = nullptr;
        Result r{job.token, getaddrinfo(job.name.c_str(), nullptr, &hints, &res), {}};
        for (addrinfo *ai = res; ai; ai = ai->ai_next) {
            Resolved one{};
            std::memcpy(&one.addr, ai->ai_addr, ai->ai_addrlen);
            one.len = ai->ai_addrlen;
            r.addrs.push_back(one);
        }
        if (res)
            freeaddrinfo(res);
        {
            std::lock_guard lk(mu_);
            done_.push_back(std::move(r));
        }
        uint64_t one = 1;
        (void)!write(efd_, &one, sizeof one);
    }
}

}  // namespace tproxy
