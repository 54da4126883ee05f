/*
 * support.c — the scanner's small helpers: image ids, the clock, strings, growing arrays, hashes, labels and
 * problems, and careful reads of this process's memory.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- Small helpers --------------------------------------------------------- */

/* Image ids are unique in the process, across scanners, and never reused. */
static uint64_t bh_last_image_id;

uint64_t bh_new_image_id(void) { return __atomic_add_fetch(&bh_last_image_id, 1, __ATOMIC_RELAXED); }

uint64_t bh_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

char *bh_strndup(const char *s, size_t n) {
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = 0;
    }
    return copy;
}

char *bh_strdup(const char *s) { return bh_strndup(s, strlen(s)); }

/* Grows `*array` (of `size`-byte elements) to hold one more; returns 0 on failure. */
int bh_reserve(void **array, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return 1;
    size_t grown = *capacity ? *capacity * 2 : 16;
    void *p = realloc(*array, grown * size);
    if (!p) return 0;
    *array = p;
    *capacity = grown;
    return 1;
}

uint64_t bh_hash(uint64_t hash, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < count; i++) hash = (hash ^ p[i]) * 0x100000001b3ull;
    return hash;
}

uint64_t bh_hash_words(uint64_t hash, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    size_t words = count / 8;
    for (size_t i = 0; i < words; i++) {
        uint64_t word;
        memcpy(&word, p + 8 * i, sizeof word);
        hash = (hash ^ word) * 0x9e3779b97f4a7c15ull;
        hash ^= hash >> 29;
    }
    return bh_hash(hash, p + 8 * words, count % 8);
}

/* A label for an image in messages: its path once known, else the loader's name. */
static char *bh_main_path;
static pthread_once_t bh_main_path_once = PTHREAD_ONCE_INIT;

static void bh_find_main_path(void) {
    const char *name = (const char *)getauxval(AT_EXECFN);
    if (!name || !name[0]) return;
    bh_main_path = realpath(name, NULL); /* the working directory of the startup scan; links resolved */
    if (!bh_main_path) bh_main_path = bh_strdup(name);
}

char *bh_main_program_path(void) {
    pthread_once(&bh_main_path_once, bh_find_main_path);
    return bh_main_path ? bh_strdup(bh_main_path) : NULL;
}

const char *bh_label(const bh_image *image) {
    if (image->path) return image->path;
    if (image->is_main) return "main executable";
    return image->name && image->name[0] ? image->name : "(unnamed image)";
}

void bh_add_problem(bh_scanner *s, const char *image, uint64_t id, int transient, const char *format, ...) {
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    /* A message is one line of text, whatever an image's bytes (a section name, a note entry) put into it. */
    for (char *c = message; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c == 0x7f) *c = '?';
    if (!bh_reserve((void **)&s->problems, &s->problem_capacity, s->problem_count, sizeof *s->problems)) return;
    bh_pending_problem *p = &s->problems[s->problem_count];
    p->image_path = bh_strdup(image);
    p->message = bh_strdup(message);
    p->image_id = id;
    p->transient = transient;
    if (p->image_path && p->message) {
        s->problem_count++;
    } else {
        free(p->image_path);
        free(p->message);
    }
}

void bh_wanted_free(bh_wanted_list *list) {
    for (size_t i = 0; i < list->count; i++) free(list->items[i].name);
    free(list->items);
    memset(list, 0, sizeof *list);
}

void bh_image_free(bh_image *image) {
    free(image->phdrs);
    bh_wanted_free(&image->wanted);
    free(image->name);
    free(image->path);
}

/* ---- Reading the image's memory -------------------------------------------- */

/*
 * Copies `count` bytes of this process's memory at `address`. In careful mode the copy goes through
 * process_vm_readv, which fails with EFAULT instead of raising SIGSEGV or SIGBUS (an image file
 * truncated after it was loaded); where that call is not allowed (seccomp), a plain copy of memory the
 * caller has already checked is the fallback. Returns 0 on success.
 */
int bh_copy_memory(int careful, void *destination, uintptr_t address, size_t count) {
    static int unavailable;
    if (careful && !__atomic_load_n(&unavailable, __ATOMIC_RELAXED)) {
        struct iovec local = {destination, count};
        struct iovec remote = {(void *)address, count};
        ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (n == (ssize_t)count) return 0;
        if (n >= 0 || (errno != ENOSYS && errno != EPERM)) return -1;
        __atomic_store_n(&unavailable, 1, __ATOMIC_RELAXED);
    }
    memcpy(destination, (const void *)address, count);
    return 0;
}

/* The PT_LOAD segment that holds [vaddr, vaddr + size) in its file-backed part, or NULL. */
const ElfW(Phdr) *bh_segment_of(const ElfW(Phdr) *phdrs, size_t phnum, uint64_t vaddr, uint64_t size) {
    for (size_t i = 0; i < phnum; i++) {
        const ElfW(Phdr) *ph = &phdrs[i];
        if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && size <= ph->p_filesz &&
            vaddr - ph->p_vaddr <= ph->p_filesz - size)
            return ph;
    }
    return NULL;
}
