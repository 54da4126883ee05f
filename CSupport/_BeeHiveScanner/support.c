/*
 * support.c — the scanner's small helpers: image ids, the clock, strings, growing arrays, hashes, labels and
 * problems, and careful reads of this process's memory.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <errno.h>
#include <pthread.h>
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

/*
 * Copies kept while nothing is unloaded. A careful copy is a system call (about 1 us), and each new hive's scan copied
 * the same program headers, notes and record sections again. What a loaded segment without write permission holds
 * cannot change while its image stays mapped, and nothing can be mapped at its address before something is unloaded:
 * so such a copy is kept, for every scanner of the process, while the loader's count of unloaded images (dlpi_subs)
 * is the one the copying scan saw; the first copy made under a higher count empties the store. A scan that takes an
 * unloaded image's copy after the image went walks again (scanner.c) and drops what that image queued. At most
 * BH_KEPT_COPIES copies of at most BH_KEPT_COPY_BYTES each, BH_KEPT_BYTES in all (beyond that, copies are made each
 * time); the store's own mutex is held only over a look-up and a memcpy of that bounded size.
 */
#define BH_KEPT_COPIES 256
#define BH_KEPT_COPY_BYTES (64u << 10)
#define BH_KEPT_BYTES (1u << 20)

typedef struct {
    uintptr_t address;
    size_t count;
    unsigned char *bytes;
} bh_kept_copy;

static struct {
    pthread_mutex_t lock;
    unsigned long long subs;
    bh_kept_copy items[BH_KEPT_COPIES];
    size_t count, bytes;
} bh_kept = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Keeps a copy (`bytes`) of read-only image memory, unless it is kept already or the store is full. */
static void bh_keep_copy(const bh_scanner *s, const void *bytes, uintptr_t address, size_t count) {
    if (!s->knows_subs || count == 0 || count > BH_KEPT_COPY_BYTES) return;
    unsigned char *copy = NULL;
    pthread_mutex_lock(&bh_kept.lock);
    if (s->subs > bh_kept.subs) { /* images were unloaded since the kept copies were made */
        for (size_t i = 0; i < bh_kept.count; i++) free(bh_kept.items[i].bytes);
        bh_kept.count = bh_kept.bytes = 0;
        bh_kept.subs = s->subs;
    }
    int room = s->subs == bh_kept.subs && bh_kept.count < BH_KEPT_COPIES && bh_kept.bytes + count <= BH_KEPT_BYTES;
    for (size_t i = 0; room && i < bh_kept.count; i++)
        if (bh_kept.items[i].address == address && bh_kept.items[i].count == count) room = 0; /* kept already */
    if (room && (copy = malloc(count))) {
        memcpy(copy, bytes, count);
        bh_kept.items[bh_kept.count++] = (bh_kept_copy){address, count, copy};
        bh_kept.bytes += count;
    }
    pthread_mutex_unlock(&bh_kept.lock);
}

int bh_copy_loaded(const bh_scanner *s, void *destination, uintptr_t address, size_t count, uintptr_t base,
                   const ElfW(Phdr) *phdrs, size_t phnum) {
    if (s->knows_subs && count <= BH_KEPT_COPY_BYTES) {
        int found = 0;
        pthread_mutex_lock(&bh_kept.lock);
        for (size_t i = 0; bh_kept.subs == s->subs && i < bh_kept.count && !found; i++) {
            if (bh_kept.items[i].address == address && bh_kept.items[i].count == count) {
                memcpy(destination, bh_kept.items[i].bytes, count);
                found = 1;
            }
        }
        pthread_mutex_unlock(&bh_kept.lock);
        if (found) return 0;
    }
    if (bh_copy_memory(1, destination, address, count) != 0) return -1;
    const ElfW(Phdr) *load = bh_segment_of(phdrs, phnum, (uint64_t)(address - base), count);
    if (load && !(load->p_flags & PF_W)) bh_keep_copy(s, destination, address, count);
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
