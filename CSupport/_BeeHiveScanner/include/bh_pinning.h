/*
 * bh_pinning.h — internal: keeps every loaded image that carries Swift code mapped for the life of the process.
 *
 * The Swift runtime keeps pointers into the metadata of every image it has seen (type and conformance records,
 * metadata caches) and never forgets them: an image of Swift code that is unmapped leaves the runtime holding
 * dangling pointers, and the next conformance or type look-up that reaches them faults. So BeeHive pins such images
 * (RTLD_NODELETE) when it first sees them: a later dlclose, the user's or BeeHive's, no longer unmaps them. Images of
 * C code only are left alone, and unload for real.
 *
 * Not API. Swift code reaches it through _BeeHiveDiscovery.
 */
#ifndef BH_PINNING_H
#define BH_PINNING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Pins every loaded image of Swift code (it registered a non-empty swift5_* metadata section with the Swift runtime)
 * that was not pinned yet.
 * Walks the loaded images (their program headers, under the loader's lock), asks the runtime's list of registered
 * sections which of the new ones hold Swift metadata (memory only), then pins outside the lock with
 * dlopen(name, RTLD_NOLOAD | RTLD_NODELETE). Returns at once when the loader loaded nothing since the last call.
 * Thread-safe. Returns how many images it pinned.
 */
size_t bh_pin_swift_images(void);

/* How many images BeeHive has pinned so far, in this process. */
size_t bh_pinned_image_count(void);

#ifdef __cplusplus
}
#endif

#endif
