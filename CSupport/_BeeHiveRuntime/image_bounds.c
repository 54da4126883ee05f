/*
 * image_bounds.c — internal: the readable loaded segments of every image (see image_bounds.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr */
#endif
#include "image_bounds.h"

#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bh_bounds *bounds;
    size_t capacity;
    size_t image_capacity;
    int failed;
} bh_bounds_builder;

static int bh_bounds_add_image(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    bh_bounds_builder *builder = context;
    bh_bounds *bounds = builder->bounds;
    if (bounds->images == builder->image_capacity) {
        size_t capacity = builder->image_capacity ? builder->image_capacity * 2 : 32;
        uintptr_t *starts = realloc(bounds->image_starts, capacity * sizeof *starts);
        if (!starts) return builder->failed = 1;
        bounds->image_starts = starts;
        builder->image_capacity = capacity;
    }
    uint32_t image = (uint32_t)bounds->images;
    uintptr_t lowest = UINTPTR_MAX;
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_R) || !header->p_memsz) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        uintptr_t end = start + header->p_memsz;
        if (end <= start) continue; /* wraps around: no such segment */
        if (bounds->count == builder->capacity) {
            size_t capacity = builder->capacity ? builder->capacity * 2 : 128;
            bh_segment *segments = realloc(bounds->segments, capacity * sizeof *segments);
            if (!segments) return builder->failed = 1;
            bounds->segments = segments;
            builder->capacity = capacity;
        }
        bounds->segments[bounds->count++] = (bh_segment){start, end, image, (header->p_flags & PF_X) != 0};
        if (start < lowest) lowest = start;
    }
    bounds->image_starts[bounds->images++] = lowest == UINTPTR_MAX ? 0 : lowest;
    return 0;
}

static int bh_segment_order(const void *a, const void *b) {
    uintptr_t x = ((const bh_segment *)a)->start, y = ((const bh_segment *)b)->start;
    return x < y ? -1 : x > y;
}

/* Sorts segments by their start. They come as ascending runs, about one per image (an image's PT_LOAD headers are in
 * ascending order), so merging neighbouring runs until one is left costs O(n log runs) inline comparisons, where
 * qsort calls a comparison function n log n times (~50 K instructions for a process's ~100 segments). */
static void bh_sort_segments(bh_segment *segments, size_t count) {
    bh_segment *scratch = count > 1 ? malloc(count * sizeof *scratch) : NULL;
    if (!scratch) {
        if (count > 1) qsort(segments, count, sizeof *segments, bh_segment_order);
        return;
    }
    bh_segment *from = segments, *to = scratch;
    for (;;) {
        size_t runs = 0;
        for (size_t first = 0; first < count; runs++) {
            size_t second = first + 1; /* the first run is [first, second), the next [second, end) */
            while (second < count && from[second - 1].start <= from[second].start) second++;
            size_t end = second < count ? second + 1 : second;
            while (end < count && from[end - 1].start <= from[end].start) end++;
            size_t a = first, b = second, out = first;
            while (a < second && b < end) to[out++] = from[b].start < from[a].start ? from[b++] : from[a++];
            while (a < second) to[out++] = from[a++];
            while (b < end) to[out++] = from[b++];
            first = end;
        }
        bh_segment *swap = from;
        from = to;
        to = swap;
        if (runs <= 1) break;
    }
    if (from != segments) memcpy(segments, from, count * sizeof *segments);
    free(scratch);
}

int bh_bounds_take(bh_bounds *bounds) {
    memset(bounds, 0, sizeof *bounds);
    bh_bounds_builder builder = {bounds, 0, 0, 0};
    dl_iterate_phdr(bh_bounds_add_image, &builder);
    if (builder.failed) {
        bh_bounds_free(bounds);
        return 0;
    }
    bh_sort_segments(bounds->segments, bounds->count);
    return 1;
}

void bh_bounds_free(bh_bounds *bounds) {
    free(bounds->segments);
    free(bounds->image_starts);
    memset(bounds, 0, sizeof *bounds);
}

const bh_segment *bh_bounds_find(const bh_bounds *bounds, uintptr_t address, size_t size) {
    size_t low = 0, high = bounds->count; /* the last segment that starts at or before `address` */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (bounds->segments[middle].start <= address) low = middle + 1;
        else high = middle;
    }
    if (low == 0) return NULL;
    const bh_segment *segment = &bounds->segments[low - 1];
    if (address >= segment->end || size > segment->end - address) return NULL;
    return segment;
}

int bh_bounds_in_image(const bh_bounds *bounds, uint32_t image, uintptr_t address, size_t size) {
    const bh_segment *segment = bh_bounds_find(bounds, address, size);
    return segment && segment->image == image;
}

/* ---- Snapshots shared by walks -------------------------------------------------------------------------------- */

/* A snapshot and what the loader had counted when it was taken; immutable, freed by its last holder. */
typedef struct {
    bh_bounds bounds; /* first: a walk's pointer to it is the holder's */
    unsigned long long adds, subs;
    size_t holders; /* the walks that hold it, and the cache while it is current */
} bh_held_bounds;

static pthread_mutex_t bh_held_lock = PTHREAD_MUTEX_INITIALIZER;
static bh_held_bounds *bh_current;

static int bh_read_counts(struct dl_phdr_info *info, size_t size, void *context) {
    unsigned long long *counts = context;
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        counts[0] = info->dlpi_adds;
        counts[1] = info->dlpi_subs;
    }
    return 1; /* the first image says it */
}

static void bh_held_drop(bh_held_bounds *held) {
    if (held && --held->holders == 0) {
        bh_bounds_free(&held->bounds);
        free(held);
    }
}

const bh_bounds *bh_bounds_acquire(void) {
    /* Counted before the snapshot: an image loaded in between makes the next walk take another, never miss one. */
    unsigned long long counts[2] = {0, 0};
    dl_iterate_phdr(bh_read_counts, counts);
    pthread_mutex_lock(&bh_held_lock);
    bh_held_bounds *current = bh_current;
    if (current && counts[0] && current->adds == counts[0] && current->subs == counts[1]) {
        current->holders++;
        pthread_mutex_unlock(&bh_held_lock);
        return &current->bounds;
    }
    pthread_mutex_unlock(&bh_held_lock);
    bh_held_bounds *fresh = calloc(1, sizeof *fresh);
    if (!fresh) return NULL;
    if (!bh_bounds_take(&fresh->bounds)) {
        free(fresh);
        return NULL;
    }
    fresh->adds = counts[0];
    fresh->subs = counts[1];
    fresh->holders = counts[0] ? 2 : 1; /* without the loader's counts, never reused */
    pthread_mutex_lock(&bh_held_lock);
    bh_held_bounds *replaced = counts[0] ? bh_current : NULL;
    if (counts[0]) bh_current = fresh;
    bh_held_drop(replaced);
    pthread_mutex_unlock(&bh_held_lock);
    return &fresh->bounds;
}

void bh_bounds_release(const bh_bounds *bounds) {
    pthread_mutex_lock(&bh_held_lock);
    bh_held_drop((bh_held_bounds *)bounds);
    pthread_mutex_unlock(&bh_held_lock);
}

/* ---- The shared snapshot, for look-ups between walks ------------------------------------------------------- */

static pthread_mutex_t bh_shared_lock = PTHREAD_MUTEX_INITIALIZER;
static const bh_bounds *bh_shared; /* held (bh_bounds_acquire) */

const bh_bounds *bh_bounds_shared_lock(uintptr_t address, size_t size, const bh_segment **holder) {
    pthread_mutex_lock(&bh_shared_lock);
    /* An address inside an image the snapshot knows is read in that image's bounds (Swift images are never unloaded:
     * see Docs/Design.md); any other address asks the loader whether it loaded or unloaded images since. */
    if (bh_shared && (*holder = bh_bounds_find(bh_shared, address, size))) return bh_shared;
    const bh_bounds *current = bh_bounds_acquire();
    if (bh_shared) bh_bounds_release(bh_shared);
    bh_shared = current;
    if (bh_shared) {
        *holder = bh_bounds_find(bh_shared, address, size);
        return bh_shared;
    }
    pthread_mutex_unlock(&bh_shared_lock);
    return NULL;
}

void bh_bounds_shared_unlock(void) { pthread_mutex_unlock(&bh_shared_lock); }
