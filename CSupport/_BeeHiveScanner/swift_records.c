/*
 * swift_records.c — the records of the Swift macros (format version 3), found in memory. Each annotation is one
 * 32-byte entry in its image's swift5_tests section, in the shape of swift-testing's test content records with a
 * kind of BeeHive's own. The Swift runtime keeps the bounds of every image's swift5_tests section in its list of
 * registered metadata sections (swift_enumerateAllMetadataSections, weak: a program without the Swift runtime has
 * no such records); no file is read.
 *
 * After a walk, the images that registered a non-empty swift5_tests section get it as one more located section
 * (kind BH_FORMAT_KIND_SWIFT_RECORDS), which located.c copies and identifies like the sections a note locates. When it is
 * copied, the entries of other kinds (swift-testing's own) are zeroed, and BeeHive's are checked before any reader
 * may call one: version, record kind, an accessor inside the image's code.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* swift/shims/MetadataSections.h, version 5 (Swift 6.3): swift5_tests is its 15th range. */
typedef struct {
    uintptr_t start;
    size_t length;
} bh_metadata_range;

typedef struct {
    uintptr_t version;
    const void *base_address; /* __ehdr_start of the image that registered the sections */
    void *unused0, *unused1;
    bh_metadata_range ranges[15];
} bh_metadata_sections;

#define BH_TESTS_RANGE 14
#define BH_TESTS_OLDEST_VERSION 5

extern void swift_enumerateAllMetadataSections(bool (*body)(const bh_metadata_sections *, void *), void *context)
    __attribute__((weak));

typedef struct {
    uintptr_t base_address, start;
    size_t length;
    size_t order; /* in the runtime's list: later is newer */
} bh_tests_range;

typedef struct {
    bh_tests_range *items;
    size_t count, capacity;
} bh_tests_ranges;

/*
 * The runtime keeps the sections of every image it ever registered: an image unloaded with dlclose leaves a pointer
 * to memory that is gone, or that a later image reuses. So each entry is copied carefully (a fault is an entry
 * skipped), and of two entries for one base address the later one, registered by the image loaded last, wins
 * (bh_latest_ranges).
 */
static bool bh_collect_tests(const bh_metadata_sections *registered, void *context) {
    bh_tests_ranges *ranges = context;
    bh_metadata_sections sections;
    if (bh_copy_memory(1, &sections, (uintptr_t)registered, sizeof sections) != 0) return true;
    if (sections.version < BH_TESTS_OLDEST_VERSION) return true;
    const bh_metadata_range *tests = &sections.ranges[BH_TESTS_RANGE];
    if (!bh_reserve((void **)&ranges->items, &ranges->capacity, ranges->count, sizeof *ranges->items)) return true;
    ranges->items[ranges->count] =
        (bh_tests_range){(uintptr_t)sections.base_address, tests->start, tests->length, ranges->count};
    ranges->count++;
    return true;
}

static int bh_compare_ranges(const void *a, const void *b) {
    const bh_tests_range *x = a, *y = b;
    if (x->base_address != y->base_address) return x->base_address < y->base_address ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* Sorts the ranges by base address and keeps, of each address, the one registered last: n log n in the images. */
static void bh_latest_ranges(bh_tests_ranges *ranges) {
    qsort(ranges->items, ranges->count, sizeof *ranges->items, bh_compare_ranges);
    size_t kept = 0;
    for (size_t i = 0; i < ranges->count; i++) {
        if (kept > 0 && ranges->items[kept - 1].base_address == ranges->items[i].base_address) kept--;
        ranges->items[kept++] = ranges->items[i];
    }
    ranges->count = kept;
}

typedef struct {
    bh_scanner *scanner;
    const bh_tests_ranges *ranges;
} bh_swift_walk;

static bh_image *bh_current_image(bh_scanner *s, const struct dl_phdr_info *info) {
    for (size_t i = 0; i < s->image_count; i++) {
        bh_image *image = &s->images[i];
        if (image->base == info->dlpi_addr && image->phdr_address == info->dlpi_phdr) return image;
    }
    return NULL;
}

/* Adds an image's swift5_tests section (`range`) to what is read from it, once its bounds are checked against the
 * image's loaded segments. Keeps a copy of the program headers, which located.c reads with. */
static void bh_locate_tests(bh_scanner *s, bh_image *image, const struct dl_phdr_info *info,
                            const bh_tests_range *range) {
    size_t phnum = info->dlpi_phnum;
    if (!image->phdrs) {
        ElfW(Phdr) *phdrs = phnum > 0 && phnum < 0xffff ? malloc(phnum * sizeof *phdrs) : NULL; /* e_phnum is 16 bits */
        if (!phdrs) return; /* out of memory, or no headers: the next search tries again */
        if (bh_copy_memory(1, phdrs, (uintptr_t)info->dlpi_phdr, phnum * sizeof *phdrs) != 0) {
            free(phdrs);
            return;
        }
        image->phdrs = phdrs;
        image->phnum = phnum;
    }
    if (!image->name) image->name = bh_strdup(info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "");
    image->swift_located = 1; /* found once: reported once, read once */
    bh_want_swift_tests(s, image, range->start, range->length);
}

void bh_want_swift_tests(bh_scanner *s, bh_image *image, uintptr_t start, size_t length) {
    uint64_t vaddr = (uint64_t)(start - image->base);
    if (length > BH_MAX_SECTION_SIZE || !bh_segment_of(image->phdrs, image->phnum, vaddr, length)) {
        bh_add_problem(s, bh_label(image), image->id, 0,
                       "section " BH_FORMAT_SWIFT_TESTS_SECTION " (registered with the Swift runtime at 0x%llx, %zu "
                       "bytes): expected it inside the image's readable loaded segments, found it outside; its "
                       "records were not read",
                       (unsigned long long)start, length);
        return;
    }
    bh_wanted *wanted = bh_want(&image->wanted, BH_FORMAT_KIND_SWIFT_RECORDS, BH_FORMAT_SWIFT_TESTS_SECTION,
                                strlen(BH_FORMAT_SWIFT_TESTS_SECTION));
    if (!wanted) return;
    wanted->located = 1;
    wanted->vaddr = vaddr;
    wanted->size = length;
    image->marked = 1;
    if (!image->pending) {
        image->pending = 1;
        s->pending++;
    }
}

/* A candidate without a copy: an image's program headers follow its ELF header, which the runtime names. The ranges
 * are sorted by that address: one binary search per image. */
static int bh_visit_swift(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    bh_swift_walk *walk = data;
    uintptr_t headers = (uintptr_t)info->dlpi_phdr;
    size_t low = 0, high = walk->ranges->count; /* the first range whose address lies above the headers */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (walk->ranges->items[middle].base_address <= headers) low = middle + 1;
        else high = middle;
    }
    if (low == 0) return 0;
    const bh_tests_range *range = &walk->ranges->items[low - 1];
    if (headers - range->base_address > 4096 || range->length == 0) return 0;
    bh_image *image = bh_current_image(walk->scanner, info);
    if (image && !image->swift_located) bh_locate_tests(walk->scanner, image, info, range);
    return 0;
}

/*
 * The ranges of the last enumeration, for every scanner of the process (a new hive's scan enumerates once). They are
 * taken again, without a copy of the runtime's entries (a system call each), when the loader's counts (adds, subs)
 * are the ones the last enumeration's walk saw and the runtime's list holds the same entries: the list only grows, by
 * an image's constructor, which may run after the loader counted the image, so the entries are compared too (their
 * addresses, not their contents). Guarded by its own mutex, taken under a scanner's lock and never around a call out.
 */
typedef struct {
    const void **items;
    size_t count, capacity;
} bh_entry_list;

static pthread_mutex_t bh_last_lock = PTHREAD_MUTEX_INITIALIZER;
static bh_tests_ranges bh_last_ranges;
static bh_entry_list bh_last_entries;
static unsigned long long bh_last_adds, bh_last_subs;
static int bh_has_last;

static bool bh_list_entry(const bh_metadata_sections *registered, void *context) {
    bh_entry_list *list = context;
    if (!bh_reserve((void **)&list->items, &list->capacity, list->count, sizeof *list->items)) return false;
    list->items[list->count++] = registered;
    return true;
}

/* A malloc'd copy of `from`, into `to`; 0 when memory is short. */
static int bh_copy_ranges(const bh_tests_ranges *from, bh_tests_ranges *to) {
    size_t bytes = from->count * sizeof *from->items;
    bh_tests_range *items = bytes ? malloc(bytes) : NULL;
    if (bytes && !items) return 0;
    if (bytes) memcpy(items, from->items, bytes);
    *to = (bh_tests_ranges){items, from->count, from->count};
    return 1;
}

/* Copies the last enumeration's ranges into `ranges` if its walk saw the loader counts `adds` and `subs` and the
 * runtime lists the same `entries` (listed by the caller, who keeps them). */
static int bh_take_last_ranges(unsigned long long adds, unsigned long long subs, const bh_entry_list *entries,
                               bh_tests_ranges *ranges) {
    int taken = 0;
    pthread_mutex_lock(&bh_last_lock);
    if (bh_has_last && bh_last_adds == adds && bh_last_subs == subs && bh_last_entries.count == entries->count &&
        (entries->count == 0 ||
         memcmp(bh_last_entries.items, entries->items, entries->count * sizeof *entries->items) == 0))
        taken = bh_copy_ranges(&bh_last_ranges, ranges);
    pthread_mutex_unlock(&bh_last_lock);
    return taken;
}

/* Remembers `ranges`, collected from the runtime's `entries` after a walk that saw the loader counts `adds` and
 * `subs`; takes `entries` over. */
static void bh_keep_last_ranges(unsigned long long adds, unsigned long long subs, bh_entry_list *entries,
                                const bh_tests_ranges *ranges) {
    bh_tests_ranges copy;
    if (!bh_copy_ranges(ranges, &copy)) return; /* out of memory: the next scanner enumerates again */
    pthread_mutex_lock(&bh_last_lock);
    bh_tests_range *old_ranges = bh_last_ranges.items;
    const void **old_entries = bh_last_entries.items;
    bh_last_ranges = copy;
    bh_last_entries = *entries;
    *entries = (bh_entry_list){0};
    bh_last_adds = adds;
    bh_last_subs = subs;
    bh_has_last = 1;
    pthread_mutex_unlock(&bh_last_lock);
    free(old_ranges);
    free(old_entries);
}

/* Whether the scanner reads Swift records at all: not when the runtime is absent or the hive left them out. */
static int bh_reads_swift_records(const bh_scanner *s) {
    return swift_enumerateAllMetadataSections &&
           bh_scanner_keeps(s, BH_FORMAT_SWIFT_TESTS_SECTION, strlen(BH_FORMAT_SWIFT_TESTS_SECTION));
}

int bh_swift_search_due(const bh_scanner *s) { return bh_reads_swift_records(s) && !s->swift_searched; }

void bh_find_swift_records(bh_scanner *s) {
    /* Once after main, then after walks that saw images come or go: a rescan with nothing new costs nothing more. */
    if (!bh_reads_swift_records(s) || (s->swift_searched && s->swift_adds == s->adds && s->swift_subs == s->subs))
        return;
    s->swift_searched = 1;
    s->swift_adds = s->adds;
    s->swift_subs = s->subs;
    bh_tests_ranges ranges = {0};
    bh_entry_list entries = {0};
    swift_enumerateAllMetadataSections(bh_list_entry, &entries);
    if (!bh_take_last_ranges(s->adds, s->subs, &entries, &ranges)) {
        swift_enumerateAllMetadataSections(bh_collect_tests, &ranges);
        bh_latest_ranges(&ranges);
        bh_keep_last_ranges(s->adds, s->subs, &entries, &ranges);
    }
    free(entries.items);
    if (ranges.count > 0) {
        bh_swift_walk walk = {s, &ranges};
        dl_iterate_phdr(bh_visit_swift, &walk);
    }
    free(ranges.items);
}

size_t bh_keep_swift_records(bh_scanner *s, const bh_image *image, unsigned char *bytes, size_t size) {
    const size_t entry_size = BH_FORMAT_SWIFT_RECORD_SIZE;
    size_t kept = 0;
    for (size_t offset = 0; offset + entry_size <= size; offset += entry_size) {
        unsigned char *entry = bytes + offset;
        uint32_t kind, version;
        uint64_t accessor, record_kind;
        memcpy(&kind, entry, 4);
        memcpy(&version, entry + 4, 4);
        memcpy(&accessor, entry + BH_FORMAT_SWIFT_RECORD_ACCESSOR_OFFSET, 8);
        memcpy(&record_kind, entry + BH_FORMAT_SWIFT_RECORD_KIND_OFFSET, 8);
        const char *problem = NULL;
        if (kind != BH_FORMAT_SWIFT_RECORD_KIND) {
            /* another library's (swift-testing's tests): zeroed below, without a word */
        } else if (version != BH_FORMAT_SWIFT_RECORD_VERSION) {
            problem = "expected version 3 (the record was written by another version of BeeHive)";
        } else if (record_kind < 1 || record_kind > BH_FORMAT_SWIFT_RECORD_KIND_API) {
            problem = "expected record kind 1 (service), 2 (module), 3 (route) or 4 (API)";
        } else if (!bh_in_code(image, accessor)) {
            problem = "expected its accessor inside an executable segment of the image";
        }
        if (problem)
            bh_add_problem(s, bh_label(image), image->id, 0,
                           "section " BH_FORMAT_SWIFT_TESTS_SECTION ", BeeHive record at offset 0x%zx (version %u, "
                           "record kind %llu, accessor 0x%llx): %s; it was skipped",
                           offset, version, (unsigned long long)record_kind, (unsigned long long)accessor, problem);
        if (problem || kind != BH_FORMAT_SWIFT_RECORD_KIND) {
            memset(entry, 0, entry_size); /* in place, so that every entry keeps its offset in the section */
            continue;
        }
        kept++;
    }
    return kept > 0 ? size : 0;
}
