/*
 * bh_atomics.h — internal: the atomic words of BeeHive's core: the lock behind LockedValue (a futex word), flags
 * that publish what was written before them, and relaxed flags and counters.
 *
 * Not API. BeeHive's LockedValue, PublishedFlag and RelaxedWord use it. They do not use the standard library's
 * Synchronization module: importing it anywhere puts libswiftSynchronization.so among a program's own libraries,
 * searched for every symbol the loader binds before main (Docs/Design.md, "No Synchronization library in the core").
 *
 * The lock's word is 0 (unlocked), 1 (locked) or 2 (locked, and a thread may be waiting). Taking a free lock is one
 * compare-and-swap, releasing it one swap, both inlined where Swift calls them; only a lock another thread holds
 * leaves for lock.c, which spins briefly and then waits in the kernel (futex). A pthread mutex costs ~80 instructions
 * per round trip through its calls and type checks; this costs ~10.
 *
 * ThreadSanitizer sees the lock: the acquiring compare-and-swap and swap and the releasing swap are C11 atomics, which
 * it models, so the happens-before edges of every critical section are known to it without annotations (a lock made
 * of system calls it cannot see, like Synchronization.Mutex's on Linux, would make it report races inside the lock).
 */
#ifndef BH_ATOMICS_H
#define BH_ATOMICS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Waits for and takes a lock that was held when bh_lock_acquire first tried it. */
void bh_lock_acquire_contended(uint32_t *word);

/* Wakes one thread waiting in bh_lock_acquire_contended. */
void bh_lock_wake(uint32_t *word);

/* Takes the lock: one compare-and-swap (acquire) when it is free. */
static inline void bh_lock_acquire(uint32_t *word) {
    uint32_t expected = 0;
    if (__builtin_expect(
            !__atomic_compare_exchange_n(word, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED), 0)) {
        bh_lock_acquire_contended(word);
    }
}

/* Releases the lock: one swap (release); a system call only when a thread may be waiting. */
static inline void bh_lock_release(uint32_t *word) {
    if (__builtin_expect(__atomic_exchange_n(word, 0, __ATOMIC_RELEASE) == 2, 0)) {
        bh_lock_wake(word);
    }
}

/* A flag set on one thread and read on others: setting it releases what the setter wrote before, reading it acquires
 * that. */
static inline uint64_t bh_word_acquire(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_ACQUIRE); }

static inline void bh_word_release(uint64_t *word, uint64_t value) { __atomic_store_n(word, value, __ATOMIC_RELEASE); }

/* A flag or a number read and changed from any thread, ordering nothing else (relaxed). */
static inline uint64_t bh_word_load(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_RELAXED); }

static inline void bh_word_store(uint64_t *word, uint64_t value) { __atomic_store_n(word, value, __ATOMIC_RELAXED); }

/* Adds 1 and returns the value before: numbers unique in the process, from any thread. */
static inline uint64_t bh_word_next(uint64_t *word) { return __atomic_fetch_add(word, 1, __ATOMIC_RELAXED); }

#ifdef __cplusplus
}
#endif

#endif
