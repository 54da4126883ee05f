/*
 * scanner.c — finds BeeHive record sections in every loaded ELF image.
 *
 * 1. The walk. dl_iterate_phdr visits every loaded image while the loader's lock is held, so the
 *    walk does no file I/O: glibc's dlpi_adds/dlpi_subs tell, in the first callback, whether any
 *    image was loaded or unloaded since the last walk (if not, the walk stops there); for each
 *    image not seen before, its program headers are copied and its PT_NOTE segments are read from
 *    memory, after checking that they lie inside readable, file-backed PT_LOAD segments. An image
 *    that includes beehive.h carries a note (owner "BeeHive", type 1) naming its record sections.
 *    Images without it are done: no file is ever opened for them.
 * 2. After the walk, each marked image is opened through the kernel's mapping of it
 *    (/proc/self/map_files, or the path /proc/self/maps gives, checked by device and inode), never
 *    blocking and only if it is a regular file. libelf reads its section headers (ELF_C_READ: pread,
 *    no mapping, so a file truncated since load gives an error, not SIGBUS); every section with a
 *    listed name is checked (allocated, inside a readable loaded segment, where its address says)
 *    and read from the file into memory. Records are parsed later, in Swift.
 *
 * Identity. An image is known by its load address, program-header address and name; when an image
 * was unloaded since the last walk (dlpi_subs moved), also by the hash of its notes (GNU build-id
 * and BeeHive note) and, for images with records, by the device and inode of the file the kernel
 * mapped. So a new image at an old address is scanned as new and the old one reported unloaded.
 * Every image gets an id, never reused, that travels with its sections, problems and unloading.
 */
#define _GNU_SOURCE
#include "bh_scanner.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define BH_NOTE_OWNER "BeeHive"
#define BH_NOTE_TYPE 1u
#define BH_OLDEST_VERSION 1u
#define BH_NEWEST_VERSION 2u /* 2: records may carry "file" and "line"; typed records ("types=") */
#define BH_GNU_OWNER "GNU"
#define BH_GNU_BUILD_ID 3u

/* Limits on what an image may declare; beyond them the image gets a diagnostic, never a silent drop. */
#define BH_MAX_WANTED 64                   /* distinct record sections one image's notes may name */
#define BH_MAX_SECTION_NAME 1024           /* bytes of one section name */
#define BH_MAX_NOTE_SEGMENT (1u << 20)     /* bytes of one PT_NOTE segment */
#define BH_MAX_SECTION_SIZE (256u << 20)   /* bytes of one record section */
#define BH_MAX_RESCANS 3                   /* walks in one scan when images come and go meanwhile */

typedef struct {
    bh_kind kind;
    char *name;
} bh_wanted;

typedef struct {
    bh_wanted *items;
    size_t count, capacity;
    size_t dropped;           /* names beyond BH_MAX_WANTED */
    size_t too_long;          /* names longer than BH_MAX_SECTION_NAME */
} bh_wanted_list;

typedef struct {
    uint64_t id;
    uintptr_t base;           /* dlpi_addr */
    const void *phdr_address; /* dlpi_phdr */
    uint64_t name_hash;
    uint64_t note_hash;       /* BeeHive notes and GNU build-id */
    uint64_t generation;
    unsigned char marked, pending, opened, delivered, is_main, is_vdso, transient_reported;
    /* Images with records only. */
    ElfW(Phdr) *phdrs;
    size_t phnum;
    bh_wanted_list wanted;
    char *name;               /* the loader's name, for messages until the kernel's path is known */
    char *path;               /* the kernel's path, once known */
    dev_t dev;
    ino_t ino;
    /* The file's size and modification time when it was read: rewritten in place since (same inode), it is
     * another image. (Not the change time: a chmod or a new hard link must not make an image new.) */
    off_t size;
    struct timespec mtime;
} bh_image;

typedef struct {
    bh_section section; /* strings and bytes owned */
} bh_pending_section;

typedef struct {
    char *image_path;
    uint64_t image_id;
    char *message;
    int transient;
} bh_pending_problem;

typedef struct {
    char *image_path;
    uint64_t image_id;
} bh_unloaded;

struct bh_scanner {
    pthread_mutex_t lock;
    int flags;
    int walked;
    size_t pending;
    unsigned long long adds, subs;
    uint64_t generation;

    bh_image *images;
    size_t image_count, image_capacity;

    bh_pending_section *sections;
    size_t section_count, section_capacity;
    bh_pending_problem *problems;
    size_t problem_count, problem_capacity;
    bh_unloaded *unloaded;
    size_t unloaded_count, unloaded_capacity;

    bh_scan_stats stats;
};

/* ---- Small helpers --------------------------------------------------------- */

/* Image ids are unique in the process, across scanners, and never reused. */
static uint64_t bh_last_image_id;

static uint64_t bh_new_image_id(void) { return __atomic_add_fetch(&bh_last_image_id, 1, __ATOMIC_RELAXED); }

static uint64_t bh_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *bh_strndup(const char *s, size_t n) {
    char *copy = malloc(n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = 0;
    }
    return copy;
}

static char *bh_strdup(const char *s) { return bh_strndup(s, strlen(s)); }

/* Grows `*array` (of `size`-byte elements) to hold one more; returns 0 on failure. */
static int bh_reserve(void **array, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return 1;
    size_t grown = *capacity ? *capacity * 2 : 16;
    void *p = realloc(*array, grown * size);
    if (!p) return 0;
    *array = p;
    *capacity = grown;
    return 1;
}

static uint64_t bh_hash(uint64_t hash, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    for (size_t i = 0; i < count; i++) hash = (hash ^ p[i]) * 0x100000001b3ull;
    return hash;
}

#define BH_HASH_SEED 0xcbf29ce484222325ull

/* A label for an image in messages: its path once known, else the loader's name. */
static const char *bh_label(const bh_image *image) {
    if (image->path) return image->path;
    if (image->is_main) return "main executable";
    return image->name && image->name[0] ? image->name : "(unnamed image)";
}

static void bh_add_problem(bh_scanner *s, const char *image, uint64_t id, int transient, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

static void bh_add_problem(bh_scanner *s, const char *image, uint64_t id, int transient, const char *format, ...) {
    char message[768];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
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

static void bh_wanted_free(bh_wanted_list *list) {
    for (size_t i = 0; i < list->count; i++) free(list->items[i].name);
    free(list->items);
    memset(list, 0, sizeof *list);
}

static void bh_image_free(bh_image *image) {
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
static int bh_copy_memory(int careful, void *destination, uintptr_t address, size_t count) {
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
static const ElfW(Phdr) *bh_segment_of(const ElfW(Phdr) *phdrs, size_t phnum, uint64_t vaddr, uint64_t size) {
    for (size_t i = 0; i < phnum; i++) {
        const ElfW(Phdr) *ph = &phdrs[i];
        if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && size <= ph->p_filesz &&
            vaddr - ph->p_vaddr <= ph->p_filesz - size)
            return ph;
    }
    return NULL;
}

/* ---- Notes, read from memory ----------------------------------------------- */

static int bh_kind_from_prefix(const char *entry, bh_kind *kind, const char **name) {
    static const struct {
        const char *prefix;
        bh_kind kind;
    } table[] = {
        {"services=", BH_KIND_SERVICES},
        {"modules=", BH_KIND_MODULES},
        {"routes=", BH_KIND_ROUTES},
        {"types=", BH_KIND_TYPES},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].prefix);
        if (strncmp(entry, table[i].prefix, n) == 0) {
            *kind = table[i].kind;
            *name = entry + n;
            return 1;
        }
    }
    return 0;
}

static void bh_want(bh_wanted_list *list, bh_kind kind, const char *name, size_t length) {
    if (length == 0) return;
    if (length > BH_MAX_SECTION_NAME) {
        list->too_long++;
        return;
    }
    for (size_t i = 0; i < list->count; i++) {
        const bh_wanted *w = &list->items[i];
        if (w->kind == kind && strlen(w->name) == length && memcmp(w->name, name, length) == 0) return;
    }
    if (list->count == BH_MAX_WANTED) {
        list->dropped++;
        return;
    }
    if (!bh_reserve((void **)&list->items, &list->capacity, list->count, sizeof *list->items)) {
        list->dropped++;
        return;
    }
    char *copy = bh_strndup(name, length);
    if (!copy) {
        list->dropped++;
        return;
    }
    list->items[list->count].kind = kind;
    list->items[list->count].name = copy;
    list->count++;
}

/* What reading an image's notes found. */
typedef struct {
    int marked;
    uint64_t hash;
    bh_wanted_list wanted;
} bh_notes;

/* Parses one BeeHive note descriptor: u32 version, then NUL-terminated "kind=section" strings. */
static void bh_parse_note(bh_scanner *s, const char *image, uint64_t id, int report, const unsigned char *desc,
                          size_t size, bh_notes *notes) {
    uint32_t version;
    if (size < sizeof version) {
        if (report)
            bh_add_problem(s, image, id, 0,
                           "BeeHive note of %zu bytes is too short: expected at least a 4-byte version; "
                           "the note was ignored",
                           size);
        return;
    }
    memcpy(&version, desc, sizeof version);
    if (version < BH_OLDEST_VERSION || version > BH_NEWEST_VERSION) {
        if (report)
            bh_add_problem(s, image, id, 0,
                           "BeeHive note has format version %u; expected version %u to %u; the sections it names "
                           "were not read",
                           version, BH_OLDEST_VERSION, BH_NEWEST_VERSION);
        return;
    }
    const char *p = (const char *)desc + sizeof version;
    const char *end = (const char *)desc + size;
    while (p < end) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "BeeHive note ends inside an entry (\"%.40s\"): expected NUL-terminated "
                               "\"kind=section\" entries; that entry was ignored",
                               p);
            break;
        }
        bh_kind kind;
        const char *name;
        if (nul > p && bh_kind_from_prefix(p, &kind, &name)) bh_want(&notes->wanted, kind, name, (size_t)(nul - name));
        p = nul + 1;
    }
}

/* Reads one PT_NOTE segment's notes from a copy of its bytes. */
static void bh_parse_notes(bh_scanner *s, const char *image, uint64_t id, int report, const unsigned char *p,
                           size_t size, size_t align, size_t segment, bh_notes *notes) {
    const unsigned char *start = p;
    const unsigned char *end = p + size;
    while ((size_t)(end - p) >= 12) {
        uint32_t namesz, descsz, type;
        memcpy(&namesz, p, 4);
        memcpy(&descsz, p + 4, 4);
        memcpy(&type, p + 8, 4);
        const unsigned char *name = p + 12;
        size_t left = (size_t)(end - p);
        /* The descriptor and the next note start at the alignment, counted from the note's start. */
        size_t desc_offset = (12 + (size_t)namesz + align - 1) & ~(align - 1);
        if (desc_offset > left || descsz > left - desc_offset) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "malformed note at offset %zu of PT_NOTE segment %zu: its name (%u bytes) and "
                               "descriptor (%u bytes) exceed the %zu bytes left in the segment; the notes after it "
                               "were not read",
                               (size_t)(p - start), segment, namesz, descsz, left);
            return;
        }
        const unsigned char *desc = p + desc_offset;
        size_t next = (desc_offset + (size_t)descsz + align - 1) & ~(align - 1);
        if (type == BH_NOTE_TYPE && namesz == sizeof BH_NOTE_OWNER &&
            memcmp(name, BH_NOTE_OWNER, sizeof BH_NOTE_OWNER) == 0) {
            notes->marked = 1;
            notes->hash = bh_hash(notes->hash, desc, descsz);
            bh_parse_note(s, image, id, report, desc, descsz, notes);
        } else if (type == BH_GNU_BUILD_ID && namesz == sizeof BH_GNU_OWNER &&
                   memcmp(name, BH_GNU_OWNER, sizeof BH_GNU_OWNER) == 0) {
            notes->hash = bh_hash(notes->hash, desc, descsz);
        }
        if (next >= left) break; /* the last note's padding may be cut short */
        p += next;
    }
}

/*
 * Reads an image's notes from memory: each PT_NOTE segment is first checked to lie inside a readable,
 * file-backed PT_LOAD segment, then copied (carefully, after startup) and parsed. `report` adds problems.
 */
static void bh_read_notes(bh_scanner *s, uintptr_t base, const ElfW(Phdr) *phdrs, size_t phnum, const char *image,
                          uint64_t id, int careful, int report, bh_notes *notes) {
    memset(notes, 0, sizeof *notes);
    notes->hash = BH_HASH_SEED;
    unsigned char stack[4096];
    for (size_t i = 0; i < phnum; i++) {
        const ElfW(Phdr) *ph = &phdrs[i];
        if (ph->p_type != PT_NOTE || ph->p_memsz == 0) continue;
        const ElfW(Phdr) *load = bh_segment_of(phdrs, phnum, ph->p_vaddr, ph->p_memsz);
        if (!load || !(load->p_flags & PF_R)) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u at 0x%llx (%llu bytes) lies outside the image's readable loaded "
                               "segments; expected it inside a readable PT_LOAD segment; its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_vaddr, (unsigned long long)ph->p_memsz);
            continue;
        }
        if (ph->p_memsz > BH_MAX_NOTE_SEGMENT) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u is %llu bytes; expected at most %u; its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_memsz, BH_MAX_NOTE_SEGMENT);
            continue;
        }
        size_t size = (size_t)ph->p_memsz;
        unsigned char *buffer = size <= sizeof stack ? stack : malloc(size);
        if (!buffer) continue;
        if (bh_copy_memory(careful, buffer, base + ph->p_vaddr, size) != 0) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u at 0x%llx cannot be read (the memory faults: is the file "
                               "truncated since it was loaded?); its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_vaddr);
        } else {
            bh_parse_notes(s, image, id, report, buffer, size, ph->p_align == 8 ? 8 : 4, i, notes);
        }
        if (buffer != stack) free(buffer);
    }
}

/* ---- The walk: inside dl_iterate_phdr, memory only ------------------------- */

typedef struct {
    bh_scanner *scanner;
    size_t visited;
    int short_circuit;
    int force;        /* walk every image even if the counters did not move */
    int careful;      /* copy notes with process_vm_readv */
    int subs_changed; /* an image was unloaded since the last walk */
} bh_walk;

static uint64_t bh_name_hash(const char *name) {
    return name ? bh_hash(BH_HASH_SEED, name, strnlen(name, 4096)) : BH_HASH_SEED;
}

static bh_image *bh_find_image(bh_scanner *s, uintptr_t base, const void *phdr, uint64_t name_hash) {
    for (size_t i = 0; i < s->image_count; i++) {
        bh_image *image = &s->images[i];
        if (image->base == base && image->phdr_address == phdr && image->name_hash == name_hash &&
            image->generation != s->generation)
            return image;
    }
    return NULL;
}

static int bh_is_vdso(struct dl_phdr_info *info) {
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!vdso) return 0;
    const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *)vdso;
    return (uintptr_t)info->dlpi_phdr == vdso + ehdr->e_phoff;
}

static void bh_want_defaults(bh_wanted_list *wanted) {
    bh_want(wanted, BH_KIND_SERVICES, "beehive_services", 16);
    bh_want(wanted, BH_KIND_MODULES, "beehive_mods", 12);
    bh_want(wanted, BH_KIND_ROUTES, "beehive_routes", 14);
    bh_want(wanted, BH_KIND_TYPES, "beehive_types", 13);
}

static int bh_visit_image(bh_scanner *s, bh_walk *walk, struct dl_phdr_info *info, bh_image *known,
                          const ElfW(Phdr) *phdrs, size_t phnum, int is_main, uint64_t name_hash, const char *label);

static int bh_visit(struct dl_phdr_info *info, size_t size, void *data) {
    bh_walk *walk = data;
    bh_scanner *s = walk->scanner;
    if (walk->visited++ == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        if (s->walked && !walk->force && info->dlpi_adds == s->adds && info->dlpi_subs == s->subs) {
            walk->short_circuit = 1;
            return 1; /* nothing was loaded or unloaded since the last walk */
        }
        walk->subs_changed = s->walked && info->dlpi_subs != s->subs;
        s->adds = info->dlpi_adds;
        s->subs = info->dlpi_subs;
    }
    int is_main = walk->visited == 1 && (!info->dlpi_name || !info->dlpi_name[0]);
    uint64_t name_hash = bh_name_hash(info->dlpi_name);
    const char *label = is_main ? "main executable" : (info->dlpi_name ? info->dlpi_name : "");

    bh_image *known = bh_find_image(s, info->dlpi_addr, info->dlpi_phdr, name_hash);
    if (known && !walk->subs_changed) {
        known->generation = s->generation;
        return 0;
    }
    /* The program headers, copied first: after startup, an image's file may have been truncated since load. */
    ElfW(Phdr) stack_phdrs[64];
    size_t phnum = info->dlpi_phnum;
    ElfW(Phdr) *phdrs = phnum <= 64 ? stack_phdrs : malloc(phnum * sizeof *phdrs);
    if (!phdrs || (phnum && bh_copy_memory(walk->careful, phdrs, (uintptr_t)info->dlpi_phdr,
                                           phnum * sizeof *phdrs) != 0)) {
        if (!known) {
            /* Remembered without its headers, so that the next walks neither read nor report it again. */
            uint64_t id = 0;
            if (bh_reserve((void **)&s->images, &s->image_capacity, s->image_count, sizeof *s->images)) {
                bh_image *image = &s->images[s->image_count++];
                memset(image, 0, sizeof *image);
                image->id = id = bh_new_image_id();
                image->base = info->dlpi_addr;
                image->phdr_address = info->dlpi_phdr;
                image->name_hash = name_hash;
                image->generation = s->generation;
                image->is_main = (unsigned char)is_main;
                s->stats.images_new++;
            }
            bh_add_problem(s, label, id, 0,
                           "the image's %zu program headers cannot be read (the memory faults: is the file truncated "
                           "since it was loaded?); the image was not scanned",
                           phnum);
        }
        if (phdrs != stack_phdrs) free(phdrs);
        if (known) known->generation = s->generation; /* cannot tell: keep what it registered */
        return 0;
    }
    int result = bh_visit_image(s, walk, info, known, phdrs, phnum, is_main, name_hash, label);
    if (phdrs != stack_phdrs) free(phdrs);
    return result;
}

/* Scans an image whose program headers were copied: a new one, or a known one after images were unloaded. */
static int bh_visit_image(bh_scanner *s, bh_walk *walk, struct dl_phdr_info *info, bh_image *known,
                          const ElfW(Phdr) *phdrs, size_t phnum, int is_main, uint64_t name_hash, const char *label) {
    if (known) {
        /* An address may have been reused: the notes (build-id, BeeHive note) must match too. */
        bh_notes notes;
        bh_read_notes(s, info->dlpi_addr, phdrs, phnum, bh_label(known), known->id, walk->careful, 0, &notes);
        bh_wanted_free(&notes.wanted);
        if (notes.hash == known->note_hash) {
            known->generation = s->generation;
            return 0;
        }
    }

    if (!bh_reserve((void **)&s->images, &s->image_capacity, s->image_count, sizeof *s->images)) return 0;
    bh_image *image = &s->images[s->image_count++];
    memset(image, 0, sizeof *image);
    image->id = bh_new_image_id();
    image->base = info->dlpi_addr;
    image->phdr_address = info->dlpi_phdr;
    image->name_hash = name_hash;
    image->generation = s->generation;
    image->is_main = (unsigned char)is_main;
    s->stats.images_new++;

    bh_notes notes;
    bh_read_notes(s, info->dlpi_addr, phdrs, phnum, label, image->id, walk->careful, 1, &notes);
    image->note_hash = notes.hash;
    if (notes.marked) s->stats.images_marked++;
    if (!notes.marked) {
        bh_wanted_free(&notes.wanted);
        if (!(s->flags & BH_SCAN_ALL_IMAGES)) return 0;
        bh_want_defaults(&notes.wanted);
    }
    if (notes.wanted.dropped)
        bh_add_problem(s, label, image->id, 0,
                       "the BeeHive notes name more than %d record sections; expected at most %d; %zu were not read",
                       BH_MAX_WANTED, BH_MAX_WANTED, notes.wanted.dropped);
    if (notes.wanted.too_long)
        bh_add_problem(s, label, image->id, 0,
                       "the BeeHive notes name %zu record sections whose names exceed %d bytes; expected shorter "
                       "names; those sections were not read",
                       notes.wanted.too_long, BH_MAX_SECTION_NAME);
    if (notes.wanted.count == 0) {
        bh_wanted_free(&notes.wanted);
        return 0;
    }
    image->phdrs = malloc(phnum * sizeof *image->phdrs);
    image->name = bh_strdup(label);
    if (!image->phdrs || !image->name) {
        bh_add_problem(s, label, image->id, 1, "out of memory while recording the image; will retry");
        free(image->phdrs);
        free(image->name);
        bh_wanted_free(&notes.wanted);
        s->image_count--; /* forget it: the next walk sees it as new */
        s->walked = 0;
        return 0;
    }
    memcpy(image->phdrs, phdrs, phnum * sizeof *image->phdrs);
    image->phnum = phnum;
    image->wanted = notes.wanted;
    image->marked = 1;
    image->is_vdso = (unsigned char)bh_is_vdso(info);
    image->pending = 1;
    s->pending++;
    return 0;
}

/* ---- After the walk: /proc/self/maps --------------------------------------- */

typedef struct {
    uintptr_t start, end;
    dev_t dev;
    ino_t ino;
    char *path; /* "" for anonymous mappings */
} bh_mapping;

typedef struct {
    bh_mapping *items;
    size_t count, capacity;
    char *text;
} bh_maps;

static void bh_maps_free(bh_maps *maps) {
    free(maps->items);
    free(maps->text);
    memset(maps, 0, sizeof *maps);
}

/* Reads /proc/self/maps. Returns 0 on success. */
static int bh_maps_read(bh_maps *maps) {
    memset(maps, 0, sizeof *maps);
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity);
    for (;;) {
        if (!text) break;
        if (capacity - size < 4096) {
            char *grown = realloc(text, capacity * 2);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            capacity *= 2;
        }
        ssize_t n = read(fd, text + size, capacity - size - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        size += (size_t)n;
    }
    close(fd);
    if (!text) return -1;
    text[size] = 0;
    maps->text = text;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        unsigned long start, end, offset, ino;
        unsigned major, minor;
        int consumed = 0;
        if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu %n", &start, &end, &offset, &major, &minor, &ino, &consumed) >=
                6 &&
            bh_reserve((void **)&maps->items, &maps->capacity, maps->count, sizeof *maps->items)) {
            bh_mapping *m = &maps->items[maps->count++];
            m->start = start;
            m->end = end;
            m->dev = makedev(major, minor);
            m->ino = (ino_t)ino;
            m->path = consumed > 0 ? line + consumed : line + strlen(line);
        }
        line = next;
    }
    return 0;
}

static const bh_mapping *bh_maps_find(const bh_maps *maps, uintptr_t address) {
    for (size_t i = 0; i < maps->count; i++)
        if (address >= maps->items[i].start && address < maps->items[i].end) return &maps->items[i];
    return NULL;
}

/* The address of an image's first file-backed loadable byte: where the kernel mapped its file. */
static uintptr_t bh_first_load(const bh_image *image) {
    for (size_t i = 0; i < image->phnum; i++)
        if (image->phdrs[i].p_type == PT_LOAD && image->phdrs[i].p_filesz > 0)
            return image->base + image->phdrs[i].p_vaddr;
    return image->base;
}

/* ---- Sections, found with libelf after the walk ---------------------------- */

static int bh_is_transient(int error) {
    return error == EMFILE || error == ENFILE || error == ENOMEM || error == EINTR || error == EAGAIN ||
           error == ENOBUFS;
}

static const char *bh_file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

static void bh_queue_section(bh_scanner *s, bh_image *image, const char *name, bh_kind kind, unsigned char *bytes,
                             size_t size, uint64_t file_offset, uint64_t address, unsigned index) {
    if (!bh_reserve((void **)&s->sections, &s->section_capacity, s->section_count, sizeof *s->sections)) {
        bh_add_problem(s, bh_label(image), image->id, 0, "out of memory while queueing section %s", name);
        free(bytes);
        return;
    }
    bh_section *sec = &s->sections[s->section_count].section;
    sec->image_path = bh_strdup(bh_label(image));
    sec->section_name = bh_strdup(name);
    if (!sec->image_path || !sec->section_name) {
        free((void *)sec->image_path);
        free((void *)sec->section_name);
        free(bytes);
        bh_add_problem(s, bh_label(image), image->id, 0, "out of memory while queueing section %s", name);
        return;
    }
    sec->image_id = image->id;
    sec->kind = kind;
    sec->bytes = bytes;
    sec->size = size;
    sec->file_offset = file_offset;
    sec->address = (const void *)(uintptr_t)(image->base + address);
    sec->section_index = index;
    s->section_count++;
    s->stats.sections_found++;
}

static void bh_init_libelf(void) { elf_version(EV_CURRENT); }

/* Does the file's program header table equal the one the loader mapped? Catches a file rewritten since load. */
static int bh_phdrs_match(Elf *elf, const bh_image *image) {
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) != 0 || phnum != image->phnum) return 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        const ElfW(Phdr) *mem = &image->phdrs[i];
        if (!gelf_getphdr(elf, (int)i, &ph)) return 0;
        if (ph.p_type != mem->p_type || ph.p_offset != mem->p_offset || ph.p_vaddr != mem->p_vaddr ||
            ph.p_filesz != mem->p_filesz || ph.p_memsz != mem->p_memsz || ph.p_flags != mem->p_flags)
            return 0;
    }
    return 1;
}

/*
 * Typed records (format version 2): 16 bytes each, u32 magic "BHTR", u32 layout version, then an accessor
 * function pointer. An entry whose magic or version is unknown, or whose accessor is not inside one of this
 * image's executable segments, is reported and zeroed in the copy, so that readers see padding and never
 * call it. All-zero entries are padding. A tail shorter than an entry is reported.
 */
#define BH_TYPED_RECORD_SIZE 16u
#define BH_TYPED_RECORD_MAGIC 0x52544842u
#define BH_TYPED_RECORD_LAYOUT 1u
static void bh_check_typed_records(bh_scanner *s, const bh_image *image, const char *name, unsigned char *bytes,
                                   size_t size) {
    const char *label = bh_label(image);
    size_t whole = size - size % BH_TYPED_RECORD_SIZE;
    if (whole != size)
        bh_add_problem(s, label, image->id, 0,
                       "section %s is %zu bytes; expected a multiple of %u (typed records); the last %zu bytes "
                       "were ignored",
                       name, size, BH_TYPED_RECORD_SIZE, size - whole);
    for (size_t offset = 0; offset < size; offset += BH_TYPED_RECORD_SIZE) {
        unsigned char *entry = bytes + offset;
        if (offset >= whole) {
            memset(entry, 0, size - offset);
            break;
        }
        uint32_t magic, layout;
        uint64_t accessor;
        memcpy(&magic, entry, 4);
        memcpy(&layout, entry + 4, 4);
        memcpy(&accessor, entry + 8, 8);
        if (magic == 0 && layout == 0 && accessor == 0) continue;
        const char *problem = NULL;
        if (magic != BH_TYPED_RECORD_MAGIC) {
            problem = "expected the magic 0x52544842 (\"BHTR\")";
        } else if (layout != BH_TYPED_RECORD_LAYOUT) {
            problem = "expected layout version 1 (the record was written by another version of BeeHive)";
        } else {
            int inside = 0;
            for (size_t i = 0; i < image->phnum && !inside; i++) {
                const ElfW(Phdr) *ph = &image->phdrs[i];
                uintptr_t start = image->base + ph->p_vaddr;
                inside = ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && accessor >= start &&
                         accessor - start < ph->p_memsz;
            }
            if (!inside) problem = "expected its accessor inside an executable segment of the image";
        }
        if (problem) {
            bh_add_problem(s, label, image->id, 0,
                           "section %s, typed record at offset 0x%zx (magic 0x%x, version %u, accessor 0x%llx): %s; "
                           "it was skipped, and its service resolves by name",
                           name, offset, magic, layout, (unsigned long long)accessor, problem);
            memset(entry, 0, BH_TYPED_RECORD_SIZE);
        }
    }
}

/* Checks one wanted section and reads it from the file. */
static void bh_read_section(bh_scanner *s, bh_image *image, int fd, off_t file_size, const GElf_Shdr *shdr,
                            const char *name, bh_kind kind, unsigned index) {
    const char *label = bh_label(image);
    if (!(shdr->sh_flags & SHF_ALLOC) || shdr->sh_type == SHT_NOBITS) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) is not loaded into memory (flags 0x%llx, type %u); expected an "
                       "allocated PROGBITS section; its records were not read",
                       name, index, (unsigned long long)shdr->sh_flags, (unsigned)shdr->sh_type);
        return;
    }
    if (shdr->sh_size == 0) return; /* no records */
    const ElfW(Phdr) *load = bh_segment_of(image->phdrs, image->phnum, shdr->sh_addr, shdr->sh_size);
    if (!load) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) at 0x%llx+%llu lies outside every loaded segment; expected it inside a "
                       "PT_LOAD segment; its records were not read",
                       name, index, (unsigned long long)shdr->sh_addr, (unsigned long long)shdr->sh_size);
        return;
    }
    if (!(load->p_flags & PF_R)) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) lies in a loaded segment without read permission (flags 0x%x); "
                       "expected a readable segment; its records were not read",
                       name, index, (unsigned)load->p_flags);
        return;
    }
    if (shdr->sh_offset < load->p_offset || shdr->sh_offset - load->p_offset != shdr->sh_addr - load->p_vaddr) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u): its file offset 0x%llx disagrees with its address 0x%llx in the "
                       "segment at file offset 0x%llx; expected the offset the address implies; its records were "
                       "not read",
                       name, index, (unsigned long long)shdr->sh_offset, (unsigned long long)shdr->sh_addr,
                       (unsigned long long)load->p_offset);
        return;
    }
    if (shdr->sh_size > BH_MAX_SECTION_SIZE) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) is %llu bytes; expected at most %u; its records were not read", name,
                       index, (unsigned long long)shdr->sh_size, BH_MAX_SECTION_SIZE);
        return;
    }
    if ((uint64_t)file_size < shdr->sh_offset || (uint64_t)file_size - shdr->sh_offset < shdr->sh_size) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) ends at file offset 0x%llx, but the file has %lld bytes (truncated "
                       "since it was loaded?); its records were not read",
                       name, index, (unsigned long long)(shdr->sh_offset + shdr->sh_size), (long long)file_size);
        return;
    }
    size_t size = (size_t)shdr->sh_size;
    unsigned char *bytes = malloc(size);
    if (!bytes) {
        bh_add_problem(s, label, image->id, 0, "out of memory reading section %s (%zu bytes)", name, size);
        return;
    }
    if (kind == BH_KIND_TYPES) {
        /* Typed records hold pointers that the loader relocated: read them from memory, not from the file. */
        if (bh_copy_memory(1, bytes, image->base + shdr->sh_addr, size) != 0) {
            bh_add_problem(s, label, image->id, 0,
                           "section %s (index %u): its %zu bytes could not be read from memory; its typed records "
                           "were not read (their services resolve by name)",
                           name, index, size);
            free(bytes);
            return;
        }
        bh_check_typed_records(s, image, name, bytes, size);
        bh_queue_section(s, image, name, kind, bytes, size, shdr->sh_offset, shdr->sh_addr, index);
        return;
    }
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, bytes + done, size - done, (off_t)(shdr->sh_offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    if (done < size) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u): read %zu of %zu bytes from the file (truncated since it was "
                       "loaded?); its records were not read",
                       name, index, done, size);
        free(bytes);
        return;
    }
    bh_queue_section(s, image, name, kind, bytes, size, shdr->sh_offset, shdr->sh_addr, index);
}

/* Whether the section name table holds `name` as a whole name (after a NUL, or at its start). */
static int bh_name_table_holds(Elf *elf, size_t shstrndx, const char *name) {
    Elf_Scn *scn = elf_getscn(elf, shstrndx);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!data || !data->d_buf) return 0;
    const char *table = data->d_buf;
    size_t size = data->d_size, length = strlen(name);
    for (size_t i = 0; i + length < size; i++) {
        if ((i == 0 || table[i - 1] == '\0') && memcmp(table + i, name, length) == 0 && table[i + length] == '\0')
            return 1;
    }
    return 0;
}

/* Reads the wanted sections of an opened image file. */
static void bh_scan_file(bh_scanner *s, bh_image *image, int fd, off_t file_size) {
    static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
    pthread_once(&elf_once, bh_init_libelf);
    const char *label = bh_label(image);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        unsigned char magic[4] = {0};
        ssize_t n = pread(fd, magic, sizeof magic, 0);
        bh_add_problem(s, label, image->id, 0,
                       "expected an ELF file; found %s (%lld bytes, starting %02x %02x %02x %02x); its records were "
                       "not read",
                       n <= 0 ? "an empty file" : "a file without the ELF magic", (long long)file_size, magic[0],
                       magic[1], magic[2], magic[3]);
        goto done;
    }
    if (!bh_phdrs_match(elf, image)) {
        bh_add_problem(s, label, image->id, 0,
                       "the file on disk differs from the loaded image (its program headers changed: rebuilt or "
                       "rewritten since it was loaded); its records were not read");
        goto done;
    }
    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || shnum == 0) {
        GElf_Ehdr ehdr;
        /* libelf counts no sections when the table lies past the end of the file: say so. */
        if (gelf_getehdr(elf, &ehdr) && ehdr.e_shoff != 0 && ehdr.e_shnum != 0 &&
            (uint64_t)file_size < ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize)
            bh_add_problem(s, label, image->id, 0,
                           "the image's %u section headers at file offset 0x%llx lie past the end of the file "
                           "(%lld bytes: truncated since it was loaded?); expected them inside the file to locate the "
                           "%zu record sections its BeeHive note names (%s%s); their records were not read",
                           (unsigned)ehdr.e_shnum, (unsigned long long)ehdr.e_shoff, (long long)file_size,
                           image->wanted.count, image->wanted.items[0].name, image->wanted.count > 1 ? ", …" : "");
        else
            bh_add_problem(s, label, image->id, 0,
                           "the image has no section headers (stripped with --strip-sections?); expected them to "
                           "locate the %zu record sections its BeeHive note names (%s%s); their records were not read",
                           image->wanted.count, image->wanted.items[0].name, image->wanted.count > 1 ? ", …" : "");
        goto done;
    }
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
        bh_add_problem(s, label, image->id, 0,
                       "the section name table cannot be read (%s); expected a valid e_shstrndx; the record "
                       "sections were not read",
                       elf_errmsg(-1));
        goto done;
    }
    unsigned char found[BH_MAX_WANTED] = {0};
    size_t unreadable = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
        if (!name) {
            unreadable++;
            continue;
        }
        for (size_t w = 0; w < image->wanted.count; w++) {
            if (strcmp(name, image->wanted.items[w].name) != 0) continue;
            found[w] = 1;
            bh_read_section(s, image, fd, file_size, &shdr, name, image->wanted.items[w].kind,
                            (unsigned)elf_ndxscn(scn));
        }
    }
    /* beehive.h names every kind of section in the note, so a missing one normally means no records of that
     * kind. Records may have been lost when section names could not be read, or when the section name table holds
     * the name (linkers and strip write only the names of sections they emit) but no header carries it: an sh_name
     * pointing at another name. */
    for (size_t w = 0; w < image->wanted.count; w++) {
        if (found[w]) continue;
        const char *name = image->wanted.items[w].name;
        if (unreadable > 0)
            bh_add_problem(s, label, image->id, 0,
                           "the BeeHive note names section %s, but no section of that name was found, and %zu section "
                           "headers have names that cannot be read (corrupt sh_name or string table); expected readable "
                           "section headers; records in them may be lost",
                           name, unreadable);
        else if (bh_name_table_holds(elf, shstrndx, name))
            bh_add_problem(s, label, image->id, 0,
                           "the section name table holds %s, but no section header carries that name (a corrupt "
                           "sh_name?); expected the header of the record section the BeeHive note names; its records "
                           "were not read",
                           name);
    }
done:
    if (elf) elf_end(elf);
}

/* /proc/self/maps, read at most once per scan and only when the fast path fails. */
typedef struct {
    bh_maps maps;
    int state; /* 0 not read, 1 read, -1 unreadable */
} bh_lazy_maps;

static const bh_mapping *bh_lazy_find(bh_lazy_maps *lazy, uintptr_t address) {
    if (lazy->state == 0) lazy->state = bh_maps_read(&lazy->maps) == 0 ? 1 : -1;
    return lazy->state == 1 ? bh_maps_find(&lazy->maps, address) : NULL;
}

/*
 * Where the kernel mapped an image's file: the /proc/self/map_files entry of its first file-backed segment
 * and the file's absolute path. The entry's range is computed from the program headers (one readlink); if the
 * kernel's range differs (merged or split mappings), /proc/self/maps gives it. Returns 0 when found.
 */
static int bh_locate(const bh_image *image, bh_lazy_maps *lazy, char *link, size_t link_size, char *path,
                     size_t path_size, int *deleted) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
    uintptr_t start = 0, end = 0;
    for (size_t i = 0; i < image->phnum; i++) {
        const ElfW(Phdr) *ph = &image->phdrs[i];
        if (ph->p_type != PT_LOAD || ph->p_filesz == 0) continue;
        start = (image->base + ph->p_vaddr) & ~mask;
        end = (image->base + ph->p_vaddr + ph->p_filesz + mask) & ~mask;
        break;
    }
    ssize_t n = -1;
    if (start) {
        snprintf(link, link_size, "/proc/self/map_files/%lx-%lx", (unsigned long)start, (unsigned long)end);
        n = readlink(link, path, path_size - 1);
    }
    if (n <= 0) {
        const bh_mapping *mapping = start ? bh_lazy_find(lazy, start) : NULL;
        if (!mapping) return -1;
        snprintf(link, link_size, "/proc/self/map_files/%lx-%lx", (unsigned long)mapping->start,
                 (unsigned long)mapping->end);
        n = readlink(link, path, path_size - 1);
        if (n <= 0) n = (ssize_t)strlen(strncpy(path, mapping->path, path_size - 1));
        if (n <= 0) return -1;
    }
    path[n] = 0;
    const char *suffix = " (deleted)";
    size_t length = strlen(suffix);
    *deleted = (size_t)n > length && strcmp(path + n - length, suffix) == 0;
    if (*deleted) path[n - length] = 0;
    return path[0] == '/' ? 0 : -1;
}

/* The hash the walk computed from memory, computed from the file: its notes, read with pread. */
static uint64_t bh_file_note_hash(bh_scanner *s, const bh_image *image, int fd) {
    bh_notes notes;
    memset(&notes, 0, sizeof notes);
    notes.hash = BH_HASH_SEED;
    for (size_t i = 0; i < image->phnum; i++) {
        const ElfW(Phdr) *ph = &image->phdrs[i];
        if (ph->p_type != PT_NOTE || ph->p_filesz == 0 || ph->p_filesz > BH_MAX_NOTE_SEGMENT) continue;
        unsigned char *buffer = malloc((size_t)ph->p_filesz);
        if (buffer && pread(fd, buffer, (size_t)ph->p_filesz, (off_t)ph->p_offset) == (ssize_t)ph->p_filesz)
            bh_parse_notes(s, "", 0, 0, buffer, (size_t)ph->p_filesz, ph->p_align == 8 ? 8 : 4, i, &notes);
        free(buffer);
    }
    bh_wanted_free(&notes.wanted);
    return notes.hash;
}

/*
 * Opens a marked image and reads its sections. As root the exact file mapped is opened through
 * /proc/self/map_files; otherwise (the kernel allows only readlink there) the file at the mapped absolute
 * path is opened and must carry the same notes (GNU build-id, BeeHive note) as the loaded image.
 */
static void bh_open_image(bh_scanner *s, bh_image *image, bh_lazy_maps *lazy) {
    char link[64], path[4096 + 32];
    int deleted = 0;
    if (bh_locate(image, lazy, link, sizeof link, path, sizeof path, &deleted) == 0) {
        free(image->path);
        image->path = bh_strdup(path);
    } else {
        link[0] = 0;
        snprintf(path, sizeof path, "%s", image->is_main ? "/proc/self/exe" : (image->name ? image->name : ""));
    }
    const char *label = bh_label(image);
    if (image->is_vdso || !path[0]) { /* no file behind it */
        image->pending = 0;
        s->pending--;
        return;
    }

    int fd = link[0] ? open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
    int exact = fd >= 0;
    if (fd < 0 && !deleted) fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int error = errno;
        int transient = bh_is_transient(error);
        if (!transient || !image->transient_reported)
            bh_add_problem(s, label, image->id, transient, "cannot open the image file to read its sections: %s%s%s",
                           strerror(error), deleted ? " (the file was deleted since it was loaded)" : "",
                           transient ? "; will retry at the next rescan" : "");
        if (transient) {
            image->transient_reported = 1;
            return; /* stays pending */
        }
        image->pending = 0;
        s->pending--;
        return;
    }
    image->pending = 0;
    s->pending--;
    s->stats.images_opened++;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        bh_add_problem(s, label, image->id, 0, "cannot stat the image file: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        bh_add_problem(s, label, image->id, 0,
                       "expected the image file to be a regular file; found %s; its records were not read",
                       bh_file_kind(st.st_mode));
    } else if (!exact && bh_file_note_hash(s, image, fd) != image->note_hash) {
        bh_add_problem(s, label, image->id, 0,
                       "the file at this path is not the one that was loaded (its notes, build-id included, differ: "
                       "replaced since load); its records were not read");
    } else {
        image->dev = st.st_dev;
        image->ino = st.st_ino;
        image->size = st.st_size;
        image->mtime = st.st_mtim;
        image->opened = 1;
        bh_scan_file(s, image, fd, st.st_size);
    }
    close(fd);
}

/* ---- Scans ----------------------------------------------------------------- */

bh_scanner *bh_scanner_create(int flags) {
    bh_scanner *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->flags = flags;
    return s;
}

static void bh_free_pending(bh_scanner *s) {
    for (size_t i = 0; i < s->section_count; i++) {
        free((void *)s->sections[i].section.image_path);
        free((void *)s->sections[i].section.section_name);
        free(s->sections[i].section.bytes);
    }
    for (size_t i = 0; i < s->problem_count; i++) {
        free(s->problems[i].image_path);
        free(s->problems[i].message);
    }
    for (size_t i = 0; i < s->unloaded_count; i++) free(s->unloaded[i].image_path);
    s->section_count = s->problem_count = s->unloaded_count = 0;
}

void bh_scanner_destroy(bh_scanner *s) {
    if (!s) return;
    bh_free_pending(s);
    for (size_t i = 0; i < s->image_count; i++) bh_image_free(&s->images[i]);
    free(s->images);
    free(s->sections);
    free(s->problems);
    free(s->unloaded);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Forgets what is queued for an image that never reached a drain. */
static void bh_drop_queued(bh_scanner *s, uint64_t id) {
    size_t kept = 0;
    for (size_t i = 0; i < s->section_count; i++) {
        bh_section *sec = &s->sections[i].section;
        if (sec->image_id != id) {
            s->sections[kept++] = s->sections[i];
            continue;
        }
        free((void *)sec->image_path);
        free((void *)sec->section_name);
        free(sec->bytes);
    }
    s->section_count = kept;
    kept = 0;
    for (size_t i = 0; i < s->problem_count; i++) {
        if (s->problems[i].image_id != id) {
            s->problems[kept++] = s->problems[i];
            continue;
        }
        free(s->problems[i].image_path);
        free(s->problems[i].message);
    }
    s->problem_count = kept;
}

/* Removes an image that is gone; reports it if it may have registered anything. */
static void bh_forget_image(bh_scanner *s, bh_image *image) {
    s->stats.images_removed++;
    if (image->pending) s->pending--;
    if (image->delivered) {
        if (bh_reserve((void **)&s->unloaded, &s->unloaded_capacity, s->unloaded_count, sizeof *s->unloaded)) {
            s->unloaded[s->unloaded_count].image_path = bh_strdup(bh_label(image));
            s->unloaded[s->unloaded_count].image_id = image->id;
            if (s->unloaded[s->unloaded_count].image_path) s->unloaded_count++;
        }
    } else {
        bh_drop_queued(s, image->id);
    }
    bh_image_free(image);
}

/* One walk over the loaded images, then the unloaded images are forgotten. Call with the lock held. */
static int bh_walk_images(bh_scanner *s, int force, int careful, int counts_as_scan) {
    uint64_t start = bh_now_ns();
    s->generation++;
    bh_walk walk = {s, 0, 0, force, careful, 0};
    dl_iterate_phdr(bh_visit, &walk);
    s->stats.scans += counts_as_scan;
    if (walk.short_circuit) {
        s->stats.scans_short_circuit++;
    } else {
        s->walked = 1;
        s->stats.images_seen = walk.visited;
        size_t kept = 0;
        for (size_t i = 0; i < s->image_count; i++) {
            bh_image *image = &s->images[i];
            if (image->generation == s->generation)
                s->images[kept++] = *image;
            else
                bh_forget_image(s, image);
        }
        s->image_count = kept;
    }
    uint64_t elapsed = bh_now_ns() - start;
    s->stats.last_scan_ns = counts_as_scan ? elapsed : s->stats.last_scan_ns + elapsed;
    if (s->stats.scans == 1 && counts_as_scan) s->stats.first_scan_ns = elapsed;
    s->stats.total_scan_ns += elapsed;
    return walk.subs_changed;
}

/* Whether `st` is the file an image was read from, unchanged: same device and inode, and not rewritten in place
 * since (same size and modification time). */
static int bh_unchanged(const bh_image *image, const struct stat *st) {
    return st->st_dev == image->dev && st->st_ino == image->ino && st->st_size == image->size &&
           st->st_mtim.tv_sec == image->mtime.tv_sec && st->st_mtim.tv_nsec == image->mtime.tv_nsec;
}

/*
 * After a walk in which images were unloaded: an image with records whose mapping now belongs to another
 * file (same address, name and notes, another device and inode), or to its file rewritten in place since it was
 * read (a plugin closed, copied over with `cp`, opened again: same inode), is a new image; the old one is reported
 * unloaded. Where /proc/self/map_files cannot be followed (not root), the mapped path must be the same.
 */
static int bh_same_file(bh_image *image, bh_lazy_maps *lazy) {
    char link[64], path[4096 + 32];
    int deleted = 0;
    if (bh_locate(image, lazy, link, sizeof link, path, sizeof path, &deleted) != 0) return 1; /* cannot tell */
    struct stat st;
    if (stat(link, &st) == 0) return bh_unchanged(image, &st);
    const bh_mapping *mapping = bh_lazy_find(lazy, bh_first_load(image));
    if (mapping) {
        if (mapping->dev != image->dev || mapping->ino != image->ino) return 0;
        /* The same inode: by its path (stat opens nothing), was it rewritten in place? */
        if (!deleted && stat(path, &st) == 0 && st.st_dev == image->dev && st.st_ino == image->ino)
            return bh_unchanged(image, &st);
        return 1;
    }
    return !image->path || strcmp(path, image->path) == 0;
}

static void bh_verify_identities(bh_scanner *s, bh_lazy_maps *lazy) {
    size_t count = s->image_count;
    for (size_t i = 0; i < count; i++) {
        bh_image *image = &s->images[i];
        if (!image->opened || bh_same_file(image, lazy)) continue;
        /* Keep the copies the new image needs, report the old one. */
        bh_image fresh = *image;
        fresh.id = bh_new_image_id();
        fresh.path = NULL;
        fresh.opened = fresh.delivered = fresh.transient_reported = 0;
        fresh.pending = 1;
        fresh.phdrs = malloc(image->phnum * sizeof *image->phdrs);
        fresh.name = image->name ? bh_strdup(image->name) : NULL;
        bh_wanted_list wanted = {0};
        for (size_t w = 0; w < image->wanted.count; w++)
            bh_want(&wanted, image->wanted.items[w].kind, image->wanted.items[w].name,
                    strlen(image->wanted.items[w].name));
        fresh.wanted = wanted;
        if (fresh.phdrs) memcpy(fresh.phdrs, image->phdrs, image->phnum * sizeof *image->phdrs);
        bh_forget_image(s, image);
        if (!fresh.phdrs) {
            bh_image_free(&fresh);
            s->images[i] = s->images[--s->image_count];
            s->walked = 0; /* seen again as new by the next walk */
            continue;
        }
        s->images[i] = fresh;
        s->pending++;
    }
}

/* Opens every pending image. Call with the lock held; the loader's lock is not held. */
static void bh_open_pending(bh_scanner *s, int subs_changed) {
    int verify = subs_changed && s->image_count > 0;
    if (s->pending == 0 && !verify) return;
    uint64_t start = bh_now_ns();
    bh_lazy_maps lazy = {0};
    if (verify) bh_verify_identities(s, &lazy);
    for (size_t i = 0; i < s->image_count && s->pending > 0; i++)
        if (s->images[i].pending) bh_open_image(s, &s->images[i], &lazy);
    if (lazy.state == 1) bh_maps_free(&lazy.maps);
    s->stats.open_ns += bh_now_ns() - start;
}

static int bh_read_subs(struct dl_phdr_info *info, size_t size, void *data) {
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(unsigned long long *)data = info->dlpi_subs;
    return 1;
}

static unsigned long long bh_current_subs(void) {
    unsigned long long subs = 0;
    dl_iterate_phdr(bh_read_subs, &subs);
    return subs;
}

/*
 * Walks, then opens what the walk found. An image unloaded while files were being read is caught by
 * walking again (at most BH_MAX_RESCANS times), so nothing it queued reaches a drain. Call with the lock held.
 */
static void bh_scan_locked(bh_scanner *s, int counts_as_scan) {
    int force = s->pending > 0;
    for (int round = 0; round < BH_MAX_RESCANS; round++) {
        int subs_changed = bh_walk_images(s, force, 1, counts_as_scan && round == 0);
        bh_open_pending(s, subs_changed);
        if (bh_current_subs() == s->subs) break;
        force = 0;
    }
}

size_t bh_scanner_scan(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    size_t before = s->section_count;
    bh_scan_locked(s, 1);
    size_t found = s->section_count - before;
    pthread_mutex_unlock(&s->lock);
    return found;
}

void bh_scanner_mark(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    /* Before main: the images were just mapped by the loader, so their notes are read directly. */
    bh_walk_images(s, 0, 0, 1);
    pthread_mutex_unlock(&s->lock);
}

void bh_scanner_drain(bh_scanner *s, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                      bh_unload_fn on_unload) {
    pthread_mutex_lock(&s->lock);
    if (s->pending > 0) bh_scan_locked(s, 0);
    for (size_t i = 0; i < s->unloaded_count; i++)
        if (on_unload) on_unload(context, s->unloaded[i].image_path, s->unloaded[i].image_id);
    for (size_t i = 0; i < s->problem_count; i++) {
        bh_problem problem = {s->problems[i].image_path, s->problems[i].image_id, s->problems[i].message,
                              s->problems[i].transient};
        if (on_problem) on_problem(context, &problem);
    }
    for (size_t i = 0; i < s->section_count; i++) {
        bh_section *section = &s->sections[i].section;
        for (size_t j = 0; j < s->image_count; j++)
            if (s->images[j].id == section->image_id) s->images[j].delivered = 1;
        if (on_section) {
            on_section(context, section);
            section->bytes = NULL; /* the callback owns them now */
        }
    }
    bh_free_pending(s);
    pthread_mutex_unlock(&s->lock);
}

int bh_scanner_has_pending(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    int pending = s->section_count + s->problem_count + s->unloaded_count + s->pending > 0;
    pthread_mutex_unlock(&s->lock);
    return pending;
}

static int bh_read_adds(struct dl_phdr_info *info, size_t size, void *data) {
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(uint64_t *)data = info->dlpi_adds;
    return 1; /* the first image carries the counter */
}

uint64_t bh_loaded_image_count(void) {
    uint64_t adds = 0;
    dl_iterate_phdr(bh_read_adds, &adds);
    return adds;
}

bh_scan_stats bh_scanner_stats(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    bh_scan_stats stats = s->stats;
    pthread_mutex_unlock(&s->lock);
    return stats;
}

/* ---- The startup scan ------------------------------------------------------ */

static bh_scanner *bh_startup;

bh_scanner *bh_startup_scanner(void) { return bh_startup; }

__attribute__((constructor)) static void bh_scan_at_startup(void) {
    const char *mode = getenv("BEEHIVE_SCAN");
    int flags = (mode && strcmp(mode, "all") == 0) ? BH_SCAN_ALL_IMAGES : 0;
    if (mode && strcmp(mode, "off") == 0) return;
    bh_startup = bh_scanner_create(flags);
    if (bh_startup) bh_scanner_mark(bh_startup); /* files wait for the first drain */
}
