/*
 * bh_signals.h — internal: catches Unix signals from the moment of installation, through a self-pipe.
 *
 * Not API. BeeHive's SystemEventHandlers uses it.
 *
 * bh_signal_catcher_install sets a real signal handler (sigaction) for each signal before it returns;
 * from then on every delivery writes the signal's number, one byte, to a pipe of the catcher (both ends
 * non-blocking and close-on-exec). Nothing can be lost between installation and the moment a reader
 * starts watching the pipe: the bytes wait there. Several catchers may be installed at once; each gets
 * every delivery of the signals it asked for.
 */
#ifndef BH_SIGNALS_H
#define BH_SIGNALS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bh_signal_catcher bh_signal_catcher;

/*
 * Catches `signals` (`count` of them, each in 1…64) from now on, and unblocks them in the calling thread (a
 * parent may have started the process with them blocked; the mask is inherited). Returns NULL and sets errno on failure
 * (EINVAL: a signal that cannot be caught; EMFILE/ENFILE: no descriptor for the pipe; ENOSPC: too many
 * catchers at once); then nothing was changed.
 */
bh_signal_catcher *bh_signal_catcher_install(const int *signals, size_t count);

/* The read end of the catcher's pipe: one byte per delivery, the signal's number. Non-blocking. */
int bh_signal_catcher_fd(const bh_signal_catcher *catcher);

/*
 * Stops catching: when no other catcher wants a signal any more, its previous action comes back (unless
 * someone replaced the handler meanwhile, then theirs stays). Closes the write end. Safe to call twice and
 * from any thread, but not from a signal handler. Returns 1 the first time, 0 after.
 */
int bh_signal_catcher_uninstall(bh_signal_catcher *catcher);

/* Uninstalls if needed, closes the read end and frees the catcher. Call it once, when nobody reads any more. */
void bh_signal_catcher_free(bh_signal_catcher *catcher);

/* pipe2(fds, O_CLOEXEC), which Swift's Glibc module does not offer. Returns 0, or -1 with errno set. */
int bh_pipe_cloexec(int fds[2]);

#ifdef __cplusplus
}
#endif

#endif /* BH_SIGNALS_H */
