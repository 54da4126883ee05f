/*
 * scanner_internal.h — what the scanner's files share: the scanner's state, one image's state, and the
 * functions one file calls in another. Not installed (not under include/); nothing here is exported from the
 * library (BH_HIDDEN): the headers under include/ declare what Swift calls, and only that is exported
 * (Tests/BeeHiveTests/AccessBudgetTests.swift keeps the list).
 *
 * The files, by concern:
 *   scanner.c        the scanner's life, scans, drains, identities after unloads, the startup scan
 *   walk.c           the walk over loaded images inside dl_iterate_phdr (memory only, no I/O)
 *   notes.c          notes read from memory (PT_NOTE) and the sections they name (through bh_note.h)
 *   located.c        after the walk: record sections whose bounds the note gives (format 3), copied from memory
 *   image_file.c     after the walk: where the kernel mapped an image's file, opening it, checking it is the same
 *   elf_sections.c   the record sections of an opened file (record format 1 or 2), read with libelf, bounded
 *   elf_library.c    libelf, loaded on demand (dlopen, RTLD_LOCAL) outside every lock
 *   typed_records.c  the bounds of typed records: magic, layout version, an accessor inside executable code
 *   support.c        small helpers: ids, clocks, strings, arrays, hashes, problems, careful memory reads
 */
#ifndef BH_SCANNER_INTERNAL_H
#define BH_SCANNER_INTERNAL_H

#include "bh_scanner.h"

#include <bh_format.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#define BH_HIDDEN __attribute__((visibility("hidden")))

/* Limits on what an image may declare; beyond them the image gets a diagnostic, never a silent drop. */
#define BH_MAX_WANTED BH_FORMAT_MAX_NOTE_SECTIONS          /* distinct record sections one image's notes may name */
#define BH_MAX_SECTION_NAME BH_FORMAT_MAX_SECTION_NAME     /* bytes of one section name */
#define BH_MAX_NOTE_SEGMENT ((unsigned)BH_FORMAT_MAX_NOTE_BYTES)      /* bytes of one PT_NOTE segment */
#define BH_MAX_SECTION_SIZE ((unsigned)BH_FORMAT_MAX_RECORD_SECTION)  /* bytes of one record section */
#define BH_MAX_RESCANS 3 /* walks in one scan when images come and go meanwhile */

typedef struct {
    bh_format_kind kind;
    char *name;
    /* Format version 3: the section's place in memory (link-time address and size), from the note's bounds. */
    int located;
    uint64_t vaddr, size;
} bh_wanted;

typedef struct {
    bh_wanted *items;
    size_t count, capacity;
    size_t dropped;  /* names beyond BH_MAX_WANTED */
    size_t too_long; /* names longer than BH_MAX_SECTION_NAME */
} bh_wanted_list;

typedef struct {
    uint64_t id;
    uintptr_t base;           /* dlpi_addr */
    const void *phdr_address; /* dlpi_phdr */
    uint64_t name_hash;
    uint64_t note_hash; /* BeeHive notes and GNU build-id */
    uint64_t generation;
    unsigned char marked, pending, opened, delivered, is_main, is_vdso, transient_reported;
    unsigned char located_read; /* the sections the note locates were copied from memory (located.c) */
    unsigned char swift_located; /* the Swift runtime gave its swift5_tests section (swift_records.c) */
    uint64_t records_hash;      /* of those sections' bytes: part of the identity of an image not read from a file
                                 * (not of the main program's, which is never unloaded) */
    /* Images with records only. */
    ElfW(Phdr) *phdrs;
    size_t phnum;
    bh_wanted_list wanted;
    char *name; /* the loader's name, for messages until the kernel's path is known */
    char *path; /* the kernel's path, once known */
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
    /* An image waits for its file to be read and libelf is not loaded yet: the scan loads it with no lock held
     * (scanner.c), then reads again. */
    int wants_libelf;
    /* This scan's load of libelf failed for a cause that can pass (an errno value, EMFILE…): images that need it
     * stay pending, with a warning, until the next scan. */
    int libelf_error;
    size_t pending;
    unsigned long long adds, subs;
    int knows_subs; /* the loader gives dlpi_subs (glibc, musl): copies may be kept (support.c) */
    uint64_t generation;
    /* The loader's counters when the Swift runtime's sections were last searched (swift_records.c). */
    int swift_searched;
    unsigned long long swift_adds, swift_subs;

    /* The record sections this scanner reads, by name (bh_scanner_keep_only): when `filters_sections` is set, the
     * others are left in memory, neither copied nor read from a file. */
    int filters_sections;
    char **kept_sections;
    size_t kept_count;

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

/* What reading an image's notes found. */
typedef struct {
    int marked;
    uint64_t hash;
    bh_wanted_list wanted;
} bh_notes;

/* One line of /proc/self/maps. */
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

/* /proc/self/maps, read at most once per scan and only when the fast path fails. */
typedef struct {
    bh_maps maps;
    int state; /* 0 not read, 1 read, -1 unreadable */
} bh_lazy_maps;

#define BH_HASH_SEED 0xcbf29ce484222325ull

/* ---- support.c ---- */
BH_HIDDEN uint64_t bh_new_image_id(void);
BH_HIDDEN uint64_t bh_now_ns(void);
BH_HIDDEN char *bh_strndup(const char *s, size_t n);
BH_HIDDEN char *bh_strdup(const char *s);
BH_HIDDEN int bh_reserve(void **array, size_t *capacity, size_t count, size_t size);
BH_HIDDEN uint64_t bh_hash(uint64_t hash, const void *bytes, size_t count);
/* The same, 8 bytes at a time (about an eighth of the work): for record sections, which may be large. */
BH_HIDDEN uint64_t bh_hash_words(uint64_t hash, const void *bytes, size_t count);
BH_HIDDEN const char *bh_label(const bh_image *image);
/* A copy of the main program's path as it was executed (AT_EXECFN), resolved (realpath: absolute, links resolved)
 * at the first call, the startup scan's, before main can change the working directory. No file is opened. */
BH_HIDDEN char *bh_main_program_path(void);
BH_HIDDEN void bh_add_problem(bh_scanner *s, const char *image, uint64_t id, int transient, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
BH_HIDDEN void bh_wanted_free(bh_wanted_list *list);
BH_HIDDEN void bh_image_free(bh_image *image);
BH_HIDDEN int bh_copy_memory(int careful, void *destination, uintptr_t address, size_t count);
/* A careful copy of `count` bytes at `address`, taken from the copies kept for the scan's count of unloaded images
 * when one was kept, else made and kept if it lies in a loaded segment of the image (`base`, `phdrs`, which may be
 * the copy itself) without write permission. Returns 0 on success. */
BH_HIDDEN int bh_copy_loaded(const bh_scanner *s, void *destination, uintptr_t address, size_t count, uintptr_t base,
                             const ElfW(Phdr) *phdrs, size_t phnum);
BH_HIDDEN const ElfW(Phdr) *bh_segment_of(const ElfW(Phdr) *phdrs, size_t phnum, uint64_t vaddr, uint64_t size);

/* ---- notes.c ---- */
BH_HIDDEN bh_wanted *bh_want(bh_wanted_list *list, bh_format_kind kind, const char *name, size_t length);
BH_HIDDEN void bh_want_defaults(bh_wanted_list *wanted);
/* A copy of `from` (names, kinds and places) into `to`, which it overwrites. */
BH_HIDDEN void bh_wanted_copy(const bh_wanted_list *from, bh_wanted_list *to);
/* Whether the scanner reads the record section `name` (bh_scanner_keep_only); every section unless it was told. */
BH_HIDDEN int bh_scanner_keeps(const bh_scanner *s, const char *name, size_t length);
/* Takes the sections the scanner does not read out of an image's list. */
BH_HIDDEN void bh_drop_unkept(const bh_scanner *s, bh_wanted_list *list);
BH_HIDDEN void bh_read_notes(bh_scanner *s, uintptr_t base, const ElfW(Phdr) *phdrs, size_t phnum, const char *image,
                             uint64_t id, int careful, int report, bh_notes *notes);
BH_HIDDEN uint64_t bh_file_note_hash(bh_scanner *s, const bh_image *image, int fd);

/* ---- walk.c ---- */
BH_HIDDEN int bh_walk_images(bh_scanner *s, int careful, int counts_as_scan);

/* ---- image_file.c ---- */
BH_HIDDEN void bh_maps_free(bh_maps *maps);
BH_HIDDEN const bh_mapping *bh_lazy_find(bh_lazy_maps *lazy, uintptr_t address);
BH_HIDDEN uintptr_t bh_first_load(const bh_image *image);
BH_HIDDEN int bh_locate(const bh_image *image, bh_lazy_maps *lazy, char *link, size_t link_size, char *path,
                        size_t path_size, int *deleted);
BH_HIDDEN void bh_open_image(bh_scanner *s, bh_image *image, bh_lazy_maps *lazy);
BH_HIDDEN int bh_same_file(bh_image *image, bh_lazy_maps *lazy);

/* ---- elf_sections.c ---- */
BH_HIDDEN void bh_scan_file(bh_scanner *s, bh_image *image, int fd, off_t file_size);
BH_HIDDEN void bh_queue_section(bh_scanner *s, bh_image *image, const char *name, bh_format_kind kind, unsigned char *bytes,
                                size_t size, uint64_t file_offset, uint64_t address, unsigned index);

/* ---- located.c ---- */
BH_HIDDEN int bh_read_located(bh_scanner *s, bh_image *image);
BH_HIDDEN int bh_same_records(const bh_image *image);

/* ---- swift_records.c ---- */
/* After a walk: the images that registered a non-empty swift5_tests section with the Swift runtime read it too. */
BH_HIDDEN void bh_find_swift_records(bh_scanner *s);
/* Whether the Swift runtime's sections were never searched by this scanner (a drain searches them first). */
BH_HIDDEN int bh_swift_search_due(const bh_scanner *s);
/* Wants an image's swift5_tests section at [start, start + length) if it lies in the image's loaded segments (copied
 * program headers needed); reports it otherwise. */
BH_HIDDEN void bh_want_swift_tests(bh_scanner *s, bh_image *image, uintptr_t start, size_t length);
/* Zeroes the entries of a copied swift5_tests section that are not BeeHive's well-formed records (reporting the
 * malformed ones of BeeHive's kind); returns the section's size, or 0 when no record is left. */
BH_HIDDEN size_t bh_keep_swift_records(bh_scanner *s, const bh_image *image, unsigned char *bytes, size_t size);

/* ---- typed_records.c ---- */
BH_HIDDEN void bh_check_typed_records(bh_scanner *s, const bh_image *image, const char *name, unsigned char *bytes,
                                      size_t size);
/* Whether `address` lies in an executable PT_LOAD segment of the image: typed records' and Swift records' accessors
 * must. */
BH_HIDDEN int bh_in_code(const bh_image *image, uint64_t address);

/* ---- scanner.c ---- */
BH_HIDDEN void bh_forget_image(bh_scanner *s, bh_image *image);
/* Walks the loaded images and marks those with a BeeHive note, without opening any file: what the constructor does
 * before main. The next scan or drain opens the marked images. */
BH_HIDDEN void bh_scanner_mark(bh_scanner *scanner);

/* ---- pinning.c (bh_pinning.h has what Swift calls) ---- */
/* Called before `main` by the startup scan. When `self` lies in the executable, every image loaded now came with the
 * program (the executable's constructors run after its libraries'): such images are never unloaded, so they need no
 * pin, and the first hive is spared a dlopen per image (~125 K instructions each). When BeeHive lives in a shared
 * library (a plugin may have loaded it), nothing is assumed. Takes the loader's lock; does no I/O. */
BH_HIDDEN void bh_pin_note_startup_images(const void *self);
/* Whether the loaded image of base `base` and loader's name `name` registered Swift metadata (a non-empty swift5_*
 * section) with the Swift runtime. Memory only; 0 for an image that is not loaded or a program without Swift. */
BH_HIDDEN int bh_loaded_image_has_swift_metadata(uintptr_t base, const char *name);

#endif /* BH_SCANNER_INTERNAL_H */
