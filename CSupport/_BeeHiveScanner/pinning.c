/*
 * pinning.c — keeps images of Swift code mapped (see bh_pinning.h).
 *
 * The walk only notes the names, bases and spans of the images loaded since the last walk (their program headers, in
 * memory). After the walk, the Swift runtime's list of the metadata sections each image registered says which hold
 * Swift metadata (a non-empty swift5_* section), and those are pinned (dlopen, which takes the loader's lock). No
 * file is read. An image is known by its base address and name: a pinned image is never unmapped, so its
 * base is never reused by another image, and the set only grows with the Swift images the process loads.
 */
#define _GNU_SOURCE
#include "bh_pinning.h"

#include "scanner_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
/* Bases of the images pinned so far (sorted), guarded by pin_lock. */
static uintptr_t *pinned = NULL;
static size_t pinned_count = 0, pinned_capacity = 0;
/* Images found to hold no Swift metadata (sorted), by base address and name (checked_key): another image loaded
 * later at the same address has another name (a plugin loaded by BeeHive always has a name of its own). */
static uintptr_t *checked = NULL;
static size_t checked_count = 0, checked_capacity = 0;
/* The loader's counters at the last walk: an unchanged dlpi_adds means no image was loaded since. */
static unsigned long long last_adds = 0;

/* An image's key in `checked`: its base, mixed with a hash of its name (FNV-1a). */
static uintptr_t checked_key(uintptr_t base, const char *name) {
    uint64_t hash = 1469598103934665603ull;
    for (const unsigned char *c = (const unsigned char *)name; *c != '\0'; c++) hash = (hash ^ *c) * 1099511628211ull;
    return base ^ (uintptr_t)(hash * 0x9E3779B97F4A7C15ull);
}

/* The head of the runtime's MetadataSections (swift/shims/MetadataSections.h; runtime_layout.h mirrors it for the
 * type walk) and its ranges: version 5 (Swift 6.3) has 15, earlier versions fewer. */
typedef struct {
    uintptr_t start;
    size_t length;
} section_range;

typedef struct {
    uintptr_t version;
    const void *base_address; /* __ehdr_start of the image that registered the sections */
    void *unused0, *unused1;
    section_range ranges[15];
} metadata_sections;

extern void swift_enumerateAllMetadataSections(bool (*body)(const metadata_sections *, void *), void *context)
    __attribute__((weak));

/* Images asked about: each one's span in memory, and whether it registered Swift metadata. */
typedef struct {
    const uintptr_t *low, *high;
    int *swift;
    size_t count;
} swift_probe;

/* An image has Swift metadata the runtime keeps pointers into when it registered a non-empty swift5_* section. SwiftPM
 * links the Swift runtime's registration into C products too, with empty sections: the runtime reads nothing of them,
 * and they may be unloaded. Sections of a version this file does not know count as Swift (pinning is the safe side). */
static bool probe_sections(const metadata_sections *sections, void *context) {
    swift_probe *probe = context;
    uintptr_t base = (uintptr_t)sections->base_address;
    int swift = sections->version != 5;
    for (size_t r = 0; r < 15 && !swift; r++) swift = sections->ranges[r].length != 0;
    for (size_t i = 0; i < probe->count; i++)
        if (base >= probe->low[i] && base < probe->high[i]) probe->swift[i] |= swift;
    return true;
}

/* Which of `count` images (spans [low, high) in memory) registered Swift metadata with the runtime: read from the
 * runtime's own list of registered sections, in memory (no file is read). None when the program has no Swift
 * runtime. */
static void find_swift_images(const uintptr_t *low, const uintptr_t *high, int *swift, size_t count) {
    memset(swift, 0, count * sizeof *swift);
    if (!swift_enumerateAllMetadataSections || count == 0) return;
    swift_probe probe = {low, high, swift, count};
    swift_enumerateAllMetadataSections(probe_sections, &probe);
}

/* The span in memory of a loaded image's PT_LOAD segments, from a careful copy of its program headers (a file
 * truncated under its mapping gives an empty span, not SIGBUS). */
static void image_span(const struct dl_phdr_info *info, uintptr_t *low, uintptr_t *high) {
    *low = *high = 0;
    ElfW(Phdr) phdrs[64];
    size_t phnum = info->dlpi_phnum < 64 ? info->dlpi_phnum : 64;
    if (phnum == 0 || bh_copy_memory(1, phdrs, (uintptr_t)info->dlpi_phdr, phnum * sizeof *phdrs) != 0) return;
    uintptr_t first = UINTPTR_MAX, last = 0;
    for (size_t i = 0; i < phnum; i++) {
        if (phdrs[i].p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + phdrs[i].p_vaddr;
        if (start < first) first = start;
        if (start + phdrs[i].p_memsz > last) last = start + phdrs[i].p_memsz;
    }
    if (first < last) *low = first, *high = last;
}

typedef struct {
    uintptr_t base;
    const char *name;
    uintptr_t low, high;
    int found;
} span_search;

static int find_span(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    span_search *search = context;
    if (info->dlpi_addr != search->base || !info->dlpi_name || strcmp(info->dlpi_name, search->name) != 0) return 0;
    image_span(info, &search->low, &search->high);
    search->found = 1;
    return 1;
}

int bh_loaded_image_has_swift_metadata(uintptr_t base, const char *name) {
    span_search search = {base, name, 0, 0, 0};
    dl_iterate_phdr(find_span, &search);
    if (!search.found) return 0;
    int swift = 0;
    find_swift_images(&search.low, &search.high, &swift, 1);
    return swift;
}

static int contains(const uintptr_t *set, size_t count, uintptr_t base) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (set[mid] == base) return 1;
        if (set[mid] < base) low = mid + 1; else high = mid;
    }
    return 0;
}

static int insert(uintptr_t **set, size_t *count, size_t *capacity, uintptr_t base) {
    if (*count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 32;
        uintptr_t *grown = realloc(*set, grown_capacity * sizeof *grown);
        if (grown == NULL) return 0;
        *set = grown;
        *capacity = grown_capacity;
    }
    size_t at = *count;
    while (at > 0 && (*set)[at - 1] > base) {
        (*set)[at] = (*set)[at - 1];
        at--;
    }
    (*set)[at] = base;
    (*count)++;
    return 1;
}

static int is_pinned(uintptr_t base) { return contains(pinned, pinned_count, base); }
static int remember(uintptr_t base) { return insert(&pinned, &pinned_count, &pinned_capacity, base); }
static int was_checked(uintptr_t key) { return contains(checked, checked_count, key); }

/* Images to pin, found by one walk. */
typedef struct {
    char **names;
    uintptr_t *bases, *lows, *highs;
    size_t count, capacity;
    int changed;  /* dlpi_adds moved since the last walk */
    int failed;   /* out of memory: try again next time */
} candidates;

static int visit(struct dl_phdr_info *info, size_t size, void *context) {
    candidates *found = context;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    if (found->count == 0 && found->changed == 0) {
        if (info->dlpi_adds == last_adds) return 1; /* nothing was loaded since the last walk */
        found->changed = 1;
        last_adds = info->dlpi_adds;
    }
    /* The program itself ("") and images without a name are never unloaded. Nothing of the image is read here: a
     * file truncated under its mapping would fault (SIGBUS); the file is read after the walk. */
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0' || is_pinned(info->dlpi_addr)
        || was_checked(checked_key(info->dlpi_addr, info->dlpi_name)))
        return 0;
    if (found->count == found->capacity) {
        size_t capacity = found->capacity ? found->capacity * 2 : 16;
        char **names = realloc(found->names, capacity * sizeof *names);
        if (names == NULL) { found->failed = 1; return 1; }
        found->names = names;
        uintptr_t *bases = realloc(found->bases, capacity * sizeof *bases);
        if (bases == NULL) { found->failed = 1; return 1; }
        found->bases = bases;
        uintptr_t *lows = realloc(found->lows, capacity * sizeof *lows);
        if (lows == NULL) { found->failed = 1; return 1; }
        found->lows = lows;
        uintptr_t *highs = realloc(found->highs, capacity * sizeof *highs);
        if (highs == NULL) { found->failed = 1; return 1; }
        found->highs = highs;
        found->capacity = capacity;
    }
    char *name = strdup(info->dlpi_name);
    if (name == NULL) { found->failed = 1; return 1; }
    found->names[found->count] = name;
    found->bases[found->count] = info->dlpi_addr;
    image_span(info, &found->lows[found->count], &found->highs[found->count]);
    found->count++;
    return 0;
}

/* BEEHIVE_PIN=off turns pinning off: for tests that show what it prevents, never for a program. */
static pthread_once_t switch_once = PTHREAD_ONCE_INIT;
static int pinning_disabled = 0;

static void read_switch(void) {
    const char *value = getenv("BEEHIVE_PIN");
    pinning_disabled = value != NULL && strcmp(value, "off") == 0;
}

size_t bh_pin_swift_images(void) {
    pthread_once(&switch_once, read_switch);
    if (pinning_disabled) return 0;
    pthread_mutex_lock(&pin_lock);
    candidates found = {0};
    dl_iterate_phdr(visit, &found);
    if (found.failed) last_adds = 0; /* walk again next time */
    size_t pinned_now = 0;
    int *swift = found.count ? calloc(found.count, sizeof *swift) : NULL;
    if (found.count && !swift) {
        for (size_t i = 0; i < found.count; i++) free(found.names[i]);
        found.count = 0;
        last_adds = 0;
    }
    find_swift_images(found.lows, found.highs, swift, found.count);
    for (size_t i = 0; i < found.count; i++) {
        /* Outside the walk: dlopen takes the loader's lock. RTLD_NOLOAD only raises the flags of an image that is
         * loaded (and fails for one unloaded since the walk); the extra reference is given back at once, the
         * NODELETE flag stays. */
        if (!swift[i]) {
            /* No Swift metadata: left unpinned, and not read again. */
            uintptr_t key = checked_key(found.bases[i], found.names[i]);
            if (!insert(&checked, &checked_count, &checked_capacity, key)) last_adds = 0;
            free(found.names[i]);
            continue;
        }
        void *handle = dlopen(found.names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (handle != NULL) {
            dlclose(handle);
            if (remember(found.bases[i])) pinned_now++;
            else last_adds = 0;
        }
        free(found.names[i]);
    }
    free(swift);
    free(found.names);
    free(found.bases);
    free(found.lows);
    free(found.highs);
    pthread_mutex_unlock(&pin_lock);
    return pinned_now;
}

/* The startup note's walk: whether the first image (the executable) holds `self`, then every image after it. */
typedef struct {
    const void *self;
    int first_seen;
    int in_executable;
} startup_walk;

static int note_startup_image(struct dl_phdr_info *info, size_t size, void *context) {
    startup_walk *walk = context;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    if (!walk->first_seen) {
        walk->first_seen = 1;
        uintptr_t address = (uintptr_t)walk->self;
        for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
            const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
            uintptr_t start = info->dlpi_addr + ph->p_vaddr;
            if (ph->p_type == PT_LOAD && address >= start && address - start < ph->p_memsz) walk->in_executable = 1;
        }
        if (!walk->in_executable) return 1; /* BeeHive is in a shared library: nothing is known of the others */
        last_adds = info->dlpi_adds;
        return 0;
    }
    /* Under the loader's lock: no I/O, a key into a sorted array (memory only). */
    if (info->dlpi_name != NULL && info->dlpi_name[0] != '\0'
        && !insert(&checked, &checked_count, &checked_capacity, checked_key(info->dlpi_addr, info->dlpi_name)))
        last_adds = 0;
    return 0;
}

void bh_pin_note_startup_images(const void *self) {
    pthread_mutex_lock(&pin_lock);
    startup_walk walk = {self, 0, 0};
    dl_iterate_phdr(note_startup_image, &walk);
    pthread_mutex_unlock(&pin_lock);
}

size_t bh_pinned_image_count(void) {
    pthread_mutex_lock(&pin_lock);
    size_t count = pinned_count;
    pthread_mutex_unlock(&pin_lock);
    return count;
}
