#include "bh_atomics.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Spins while the holder is likely to release soon (critical sections here are short and call no user code). */
static uint32_t spin(uint32_t *word) {
    for (int round = 0; round < 100; round++) {
        uint32_t state = __atomic_load_n(word, __ATOMIC_RELAXED);
        if (state != 1) {
            return state;
        }
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    }
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

void bh_lock_acquire_contended(uint32_t *word) {
    uint32_t state = spin(word);
    if (state == 0) {
        uint32_t expected = 0;
        if (__atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
    }
    /* From here the word says 2 whenever this thread holds or waits for the lock, so that a release wakes. */
    for (;;) {
        if (state != 2 && __atomic_exchange_n(word, 2, __ATOMIC_ACQUIRE) == 0) {
            return;
        }
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        state = spin(word);
    }
}

void bh_lock_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
