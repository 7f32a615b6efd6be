/* enforcer/exit_notice.cpp — a robust futex in a shared page (see exit_notice.h). */
#include "exit_notice.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kuapi.h"
#include "raw.h"

struct exit_notice {
    uint32_t futex;  /* init's thread id while it lives; FUTEX_OWNER_DIED once it exits */
    uint32_t armed;  /* init registered the robust list: its exit will wake the futex */
    uint32_t posted; /* `code` is the command's exit code */
    int32_t code;
    uint32_t pokes; /* bumped by init (exit_notice_poke): a futex of its own */
    kuapi::robust_list_head head;
    kuapi::robust_list entry; /* the one entry: `futex`, at head.futex_offset from here */
};

exit_notice *exit_notice_create()
{
    void *page = mmap(nullptr, sizeof(exit_notice), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return page == MAP_FAILED ? nullptr : (exit_notice *)page;
}

void exit_notice_arm(exit_notice *n)
{
    if (n == nullptr)
        return;
    n->futex = (uint32_t)syscall(SYS_gettid) & kuapi::FUTEX_TID_MASK; /* as the kernel names init */
    n->entry.next = &n->head.list;
    n->head.list.next = &n->entry;
    n->head.futex_offset = (long)offsetof(exit_notice, futex) - (long)offsetof(exit_notice, entry);
    n->head.list_op_pending = nullptr;
    if (syscall(SYS_set_robust_list, &n->head, sizeof n->head) == 0)
        __atomic_store_n(&n->armed, 1u, __ATOMIC_RELEASE);
}

void exit_notice_post(exit_notice *n, int code)
{
    if (n == nullptr)
        return;
    n->code = code;
    __atomic_store_n(&n->posted, 1u, __ATOMIC_RELEASE);
}

void exit_notice_poke(exit_notice *n)
{
    if (n == nullptr)
        return;
    __atomic_add_fetch(&n->pokes, 1u, __ATOMIC_RELEASE);
    raw_futex_wake(&n->pokes);
}

namespace {

/* Sleeps until init exits or pokes, unless either happened since `futex` and `pokes` were
 * read. A poke cannot change the robust word (the kernel owns its bits), so it bumps a
 * second one and both are waited on at once: a poke between the caller's look and the sleep
 * wakes it instead of being lost. Before Linux 5.16 (no futex_waitv) the robust word alone,
 * looked at again every 50 ms. */
void wait_for_exit_or_poke(exit_notice *n, uint32_t futex, uint32_t pokes)
{
    if (raw_futex_wait_either(&n->futex, futex, &n->pokes, pokes) == -ENOSYS)
        raw_futex_wait_ms(&n->futex, futex, 50);
}

}  // namespace

bool exit_notice_wait(exit_notice *n, int *code, void (*woken)())
{
    if (n == nullptr || !__atomic_load_n(&n->armed, __ATOMIC_ACQUIRE))
        return false;
    for (;;) {
        const uint32_t pokes = __atomic_load_n(&n->pokes, __ATOMIC_ACQUIRE);
        woken();
        uint32_t v = __atomic_load_n(&n->futex, __ATOMIC_ACQUIRE);
        if (v & kuapi::FUTEX_OWNER_DIED)
            break;
        /* FUTEX_WAITERS tells the kernel to wake us when it marks the owner dead. */
        uint32_t waiting = v | kuapi::FUTEX_WAITERS;
        if (v != waiting &&
            !__atomic_compare_exchange_n(&n->futex, &v, waiting, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            continue;
        wait_for_exit_or_poke(n, waiting, pokes); /* raw: init may be running C code (raw.h) */
    }
    if (!__atomic_load_n(&n->posted, __ATOMIC_ACQUIRE))
        return false;
    *code = n->code;
    return true;
}
