/*
 * signals.c — catches Unix signals through a self-pipe per catcher (see bh_signals.h).
 *
 * The handler is async-signal-safe: it reads atomics and calls write(2), getpid(2), sigaction(2) and
 * raise(3) only. Catchers live in a fixed table of slots the handler scans; a slot holds the write end of
 * the catcher's pipe (plus one, so that 0 is a free slot) and the set of signals it wants. Installing and
 * uninstalling take a mutex (never the handler).
 *
 * A handler that runs while a catcher is uninstalled could write to a descriptor that is being closed and
 * reused for another file. So the handler counts itself in `in_flight` before it reads any slot, and
 * uninstalling empties the slot, then waits until no handler is in flight, and only then closes.
 *
 * In a child made by fork(2) (no exec), the pipes are shared with the parent: a signal sent to the child
 * must not reach the parent's reader. There the handler puts the signal's previous action back and raises
 * the signal again, so the child behaves as if BeeHive had not been installed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bh_signals.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BH_SIGNAL_SLOTS 32
#define BH_SIGNAL_MAX 64

struct bh_signal_catcher {
    int read_fd;
    int write_fd;
    int slot;
    uint64_t signals; /* bit n-1 for signal n */
    int installed;    /* guarded by `lock` */
};

/* Read by the handler. */
static _Atomic int slot_fds[BH_SIGNAL_SLOTS];          /* write end + 1; 0 = free */
static _Atomic uint64_t slot_signals[BH_SIGNAL_SLOTS]; /* the signals the slot's catcher wants */
static _Atomic int in_flight;
static _Atomic pid_t owner;
static struct sigaction previous[BH_SIGNAL_MAX + 1]; /* written under `lock` before the handler is set */

/* Guarded by `lock`. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int users[BH_SIGNAL_MAX + 1]; /* catchers that want each signal */

static uint64_t bit(int signal) { return (uint64_t)1 << (signal - 1); }

static void handle(int signal) {
    int saved_errno = errno;
    if (getpid() != atomic_load(&owner)) {
        /* A forked child: not ours to deliver. Act as the previous action would. */
        sigaction(signal, &previous[signal], NULL);
        raise(signal);
        errno = saved_errno;
        return;
    }
    atomic_fetch_add(&in_flight, 1);
    unsigned char byte = (unsigned char)signal;
    for (int i = 0; i < BH_SIGNAL_SLOTS; i++) {
        int fd = atomic_load(&slot_fds[i]) - 1;
        if (fd >= 0 && (atomic_load(&slot_signals[i]) & bit(signal))) {
            /* Non-blocking: a full pipe already holds many undelivered signals, so dropping one loses nothing. */
            while (write(fd, &byte, 1) < 0 && errno == EINTR) {}
        }
    }
    atomic_fetch_sub(&in_flight, 1);
    errno = saved_errno;
}

static int is_ours(const struct sigaction *action) {
    return !(action->sa_flags & SA_SIGINFO) && action->sa_handler == handle;
}

/* Stops wanting `signal`; the last catcher to let go puts the previous action back. Under `lock`. */
static void release(int signal) {
    if (--users[signal] > 0) return;
    struct sigaction current;
    if (sigaction(signal, NULL, &current) == 0 && is_ours(&current)) sigaction(signal, &previous[signal], NULL);
}

/* Starts wanting `signal`; the first catcher sets the handler. Under `lock`. Returns 0 or an errno value. */
static int acquire(int signal) {
    if (users[signal] == 0) {
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_handler = handle;
        sigemptyset(&ours.sa_mask);
        ours.sa_flags = SA_RESTART;
        struct sigaction before;
        if (sigaction(signal, NULL, &before) != 0) return errno;
        previous[signal] = before; /* before the handler can run and read it */
        if (sigaction(signal, &ours, NULL) != 0) return errno;
    }
    users[signal]++;
    return 0;
}

bh_signal_catcher *bh_signal_catcher_install(const int *signals, size_t count) {
    uint64_t wanted = 0;
    for (size_t i = 0; i < count; i++) {
        if (signals[i] < 1 || signals[i] > BH_SIGNAL_MAX || signals[i] == SIGKILL || signals[i] == SIGSTOP) {
            errno = EINVAL;
            return NULL;
        }
        wanted |= bit(signals[i]);
    }
    bh_signal_catcher *catcher = calloc(1, sizeof *catcher);
    if (!catcher) return NULL;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) {
        int error = errno;
        free(catcher);
        errno = error;
        return NULL;
    }
    catcher->read_fd = fds[0];
    catcher->write_fd = fds[1];
    catcher->signals = wanted;
    catcher->slot = -1;

    int error = 0;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < BH_SIGNAL_SLOTS; i++) {
        if (atomic_load(&slot_fds[i]) == 0) {
            catcher->slot = i;
            break;
        }
    }
    if (catcher->slot < 0) {
        error = ENOSPC;
    } else {
        atomic_store(&owner, getpid());
        atomic_store(&slot_signals[catcher->slot], wanted);
        atomic_store(&slot_fds[catcher->slot], catcher->write_fd + 1);
        int signal = 1;
        for (; signal <= BH_SIGNAL_MAX && !error; signal++) {
            if (wanted & bit(signal)) error = acquire(signal);
        }
        if (error) {
            /* Undo the signals acquired before the one that failed. */
            for (int undo = 1; undo < signal - 1; undo++) {
                if (wanted & bit(undo)) release(undo);
            }
            atomic_store(&slot_fds[catcher->slot], 0);
            while (atomic_load(&in_flight) != 0) sched_yield();
        } else {
            catcher->installed = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    if (!error) {
        /* A parent may have started this process with the signals blocked (the mask is inherited): then no
         * thread would ever take them. */
        sigset_t set;
        sigemptyset(&set);
        for (int signal = 1; signal <= BH_SIGNAL_MAX; signal++) {
            if (wanted & bit(signal)) sigaddset(&set, signal);
        }
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    }
    if (error) {
        close(fds[0]);
        close(fds[1]);
        free(catcher);
        errno = error;
        return NULL;
    }
    return catcher;
}

int bh_signal_catcher_fd(const bh_signal_catcher *catcher) { return catcher->read_fd; }

int bh_signal_catcher_uninstall(bh_signal_catcher *catcher) {
    pthread_mutex_lock(&lock);
    int first = catcher->installed;
    if (first) {
        catcher->installed = 0;
        for (int signal = 1; signal <= BH_SIGNAL_MAX; signal++) {
            if (catcher->signals & bit(signal)) release(signal);
        }
        atomic_store(&slot_fds[catcher->slot], 0);
        /* A handler that read the slot before it was emptied may still write to the descriptor. */
        while (atomic_load(&in_flight) != 0) sched_yield();
        close(catcher->write_fd);
        catcher->write_fd = -1;
    }
    pthread_mutex_unlock(&lock);
    return first;
}

void bh_signal_catcher_free(bh_signal_catcher *catcher) {
    if (!catcher) return;
    bh_signal_catcher_uninstall(catcher);
    close(catcher->read_fd);
    free(catcher);
}

int bh_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }
