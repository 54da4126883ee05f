/*
 * bh_scanner.h — internal: finds BeeHive record sections in every loaded ELF image.
 *
 * Not API. Swift code reaches it through _BeeHiveDiscovery.
 */
#ifndef BH_SCANNER_H
#define BH_SCANNER_H

#include <bh_format.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Scanner flags. */
enum {
    /* Open every image and read its section headers, not only those that carry a BeeHive note. */
    BH_SCAN_ALL_IMAGES = 1 << 0,
};

/*
 * A record section found in a loaded image. Strings live until the drain callback returns; `bytes` is a
 * copy read from the image's file (malloc'd), and the callback takes ownership of it: it must free() it.
 */
typedef struct {
    const char *image_path; /* the path the kernel mapped (absolute), or the loader's name if unknown */
    uint64_t image_id;      /* this loaded image, unique in the process (never reused) */
    const char *section_name;
    bh_format_kind kind; /* from the image note ("services=…", …), a default name, or the Swift runtime */
    unsigned char *bytes; /* owned by the callback from the moment it is called */
    size_t size;
    uint64_t file_offset; /* sh_offset, so that offsets can be checked with readelf/objdump */
    const void *address;  /* the section in memory (load address + sh_addr), checked to lie in a readable PT_LOAD */
    unsigned section_index;
} bh_section;

/* A problem with one image (cannot be opened, section not loaded, malformed note, …). */
typedef struct {
    const char *image_path;
    uint64_t image_id;
    const char *message;
    /* 1 when the cause can pass (too many open files, out of memory): the image is tried again by the next scan. */
    int transient;
} bh_problem;

/* Counters of the scans a scanner has done. Times are CLOCK_MONOTONIC nanoseconds; opening the images
 * that a mark left pending is counted in the time, not as a scan. */
typedef struct {
    uint64_t scans;               /* calls to bh_scanner_scan */
    uint64_t scans_short_circuit; /* of which ended at once: no image added or removed */
    uint64_t images_seen;         /* images visited in the last full walk */
    uint64_t images_new;          /* images scanned for the first time, over all scans */
    uint64_t images_marked;       /* of those, images with a BeeHive note */
    uint64_t images_opened;       /* of those, images whose files were opened */
    uint64_t images_removed;      /* images that were unloaded, over all scans */
    uint64_t sections_found;      /* record sections found, over all scans */
    uint64_t last_scan_ns;        /* duration of the last scan */
    uint64_t total_scan_ns;       /* duration of all scans */
    uint64_t first_scan_ns;       /* duration of the first scan (for the startup scanner: the walk before main) */
    uint64_t open_ns;             /* time spent opening images' files and reading their sections */
} bh_scan_stats;

typedef struct bh_scanner bh_scanner;

/* Callbacks for bh_scanner_drain; `context` is passed through. */
typedef void (*bh_section_fn)(void *context, const bh_section *section);
typedef void (*bh_problem_fn)(void *context, const bh_problem *problem);
typedef void (*bh_unload_fn)(void *context, const char *image_path, uint64_t image_id);

/* Creates a scanner that has seen no image yet. */
bh_scanner *bh_scanner_create(int flags);
void bh_scanner_destroy(bh_scanner *scanner);

/*
 * Makes the scanner read only the record sections named in `names` (`count` of them, none when 0): the others are
 * neither copied from memory nor read from a file, and their images report no section. Call before the first scan.
 * Returns 0, or -1 when memory is short (then the scanner reads every section). Thread-safe.
 */
int bh_scanner_keep_only(bh_scanner *scanner, const char *const *names, size_t count);

/*
 * Scans every loaded image this scanner has not scanned yet and queues what it finds. The walk over the
 * loaded images (dl_iterate_phdr) reads program headers and notes from memory only; files are opened
 * after it returns. Costs one call of dl_iterate_phdr's callback when no image was added or removed
 * and no image waits for a retry. Returns the number of sections queued by this call. Thread-safe.
 */
size_t bh_scanner_scan(bh_scanner *scanner);

/* Opens images marked but not opened yet, then hands every queued unloaded image, problem and section to the
 * callbacks, in that order, then forgets them. Thread-safe. */
void bh_scanner_drain(bh_scanner *scanner, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                      bh_unload_fn on_unload);

/* Whether a drain would hand anything out (sections, problems, unloaded or unopened images). Thread-safe. */
int bh_scanner_has_pending(bh_scanner *scanner);

/*
 * How many images the dynamic loader has loaded in this process so far (glibc's dlpi_adds): it grows
 * with every dlopen. About 0.1 µs. Thread-safe.
 */
uint64_t bh_loaded_image_count(void);

/* How many images the dynamic loader has unloaded in this process so far (glibc's dlpi_subs). Thread-safe. */
uint64_t bh_unloaded_image_count(void);

/* The base address of the loaded image that holds `address` (dladdr), or 0. Thread-safe. */
uintptr_t bh_image_base(const void *address);

/*
 * An address inside the image of id `id` as the scanner last saw it loaded (its program headers), or NULL when the
 * scanner knows no such image. The image may have been unloaded since. Thread-safe.
 */
const void *bh_scanner_image_address(bh_scanner *scanner, uint64_t id);

/* An address inside the main program (its program headers, from the auxiliary vector). Thread-safe. */
const void *bh_main_program_address(void);

/* Copies the scanner's counters. Thread-safe. */
bh_scan_stats bh_scanner_stats(bh_scanner *scanner);

/*
 * The scanner that ran from a constructor before main (with the flags from the environment
 * variable BEEHIVE_SCAN: "all" sets BH_SCAN_ALL_IMAGES). Its results wait for the first drain.
 */
bh_scanner *bh_startup_scanner(void);

#ifdef __cplusplus
}
#endif

#endif /* BH_SCANNER_H */
