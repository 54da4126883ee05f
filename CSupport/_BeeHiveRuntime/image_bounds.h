/*
 * image_bounds.h — internal: the readable loaded segments of every image, from dl_iterate_phdr's PT_LOAD headers, so
 * that a pointer read from an image's metadata is followed only when it lies inside them.
 */
#ifndef BH_IMAGE_BOUNDS_H
#define BH_IMAGE_BOUNDS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h> /* memchr, for bh_bounds_string */

/* What one file of _BeeHiveRuntime calls in another, not exported from the library: only what Swift calls is
 * (include/bh_runtime.h). */
#define BH_HIDDEN __attribute__((visibility("hidden")))

/* One readable PT_LOAD segment, [start, end), of the image numbered `image`. */
typedef struct {
    uintptr_t start;
    uintptr_t end;
    uint32_t image;
    uint32_t executable; /* PF_X: code may be called there */
} bh_segment;

/* A snapshot of the loaded images' readable segments, sorted by address. */
typedef struct {
    bh_segment *segments;
    size_t count;
    uintptr_t *image_starts; /* by image number: the image's lowest readable address */
    size_t images;
} bh_bounds;

/* Takes the snapshot (dl_iterate_phdr); returns 0 when out of memory. Release with bh_bounds_free. */
BH_HIDDEN int bh_bounds_take(bh_bounds *bounds);
BH_HIDDEN void bh_bounds_free(bh_bounds *bounds);

/* The segment that holds [address, address + size), or NULL. O(log n). */
BH_HIDDEN const bh_segment *bh_bounds_find(const bh_bounds *bounds, uintptr_t address, size_t size);

/* Whether [address, address + size) lies inside a readable segment of the image numbered `image`. */
BH_HIDDEN int bh_bounds_in_image(const bh_bounds *bounds, uint32_t image, uintptr_t address, size_t size);

/* The length of the NUL-terminated string at `address` inside `segment` (the one that holds it, or NULL), at most
 * `limit` bytes; -1 when no segment holds it, -2 when it runs to its segment's end unterminated, -3 when longer than
 * `limit`. Inline: the walks read every name of an image's types with it. */
static inline long bh_bounds_string(const bh_segment *segment, uintptr_t address, size_t limit) {
    if (!segment || address < segment->start || address >= segment->end) return -1;
    size_t available = segment->end - address;
    size_t bound = available < limit + 1 ? available : limit + 1;
    const char *end = memchr((const char *)address, 0, bound);
    if (end) return (long)(end - (const char *)address);
    return available <= limit ? -2 : -3;
}

/* A snapshot of the images loaded now, shared by the walks that hold it: the one taken last, while the loader has
 * loaded and unloaded nothing since (glibc's dlpi_adds and dlpi_subs), else a new one, taken without a lock. NULL when
 * out of memory. Release with bh_bounds_release. */
BH_HIDDEN const bh_bounds *bh_bounds_acquire(void);
BH_HIDDEN void bh_bounds_release(const bh_bounds *bounds);

/* A snapshot kept between calls, locked for the caller: when it holds no segment with [address, address + size), the
 * walks' current one (bh_bounds_acquire) replaces it; NULL (and not locked) when out of memory. `*holder` is the segment
 * that holds the range, or NULL when none does. Unlock with bh_bounds_shared_unlock; hold it for a bounded read only. */
BH_HIDDEN const bh_bounds *bh_bounds_shared_lock(uintptr_t address, size_t size, const bh_segment **holder);
BH_HIDDEN void bh_bounds_shared_unlock(void);

#endif /* BH_IMAGE_BOUNDS_H */
