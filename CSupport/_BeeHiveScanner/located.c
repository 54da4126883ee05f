/*
 * located.c — record sections whose place the image's note gives (format version 3: the linker's __start_ and
 * __stop_ bounds, checked by notes.c to lie inside a readable loaded segment), copied from memory after the walk.
 * No file is opened: what the loader mapped is what is read, even when /proc is not mounted or the file was
 * replaced or stripped since. The copy is careful (bh_copy_memory): a mapping that faults, a file truncated since
 * load, gives an error, not SIGBUS.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <stdlib.h>
#include <string.h>

static int bh_all_zero(const unsigned char *bytes, size_t size) {
    for (size_t i = 0; i < size; i++)
        if (bytes[i]) return 0;
    return 1;
}

/* A malloc'd copy of a located section, or NULL: `*faulted` is 1 when its memory faulted, 0 when memory is short.
 * From the copies kept while nothing is unloaded when `s` is given (support.c); made afresh when it is not. */
static unsigned char *bh_copy_section(const bh_scanner *s, const bh_image *image, const bh_wanted *wanted,
                                      int *faulted) {
    unsigned char *bytes = malloc((size_t)wanted->size);
    uintptr_t address = image->base + wanted->vaddr;
    size_t size = (size_t)wanted->size;
    if (bytes && (s ? bh_copy_loaded(s, bytes, address, size, image->base, image->phdrs, image->phnum)
                    : bh_copy_memory(1, bytes, address, size)) != 0) {
        free(bytes);
        *faulted = 1;
        return NULL;
    }
    return bytes;
}

/* Copies the located sections of an image into the queue. Returns 1 when sections remain that only its file can
 * give (a note of version 1 or 2, or bounds that were refused). */
int bh_read_located(bh_scanner *s, bh_image *image) {
    int unlocated = 0;
    image->records_hash = BH_HASH_SEED;
    /* The image's path, as the kernel mapped it: one readlink of /proc/self/map_files (no file is opened, and
     * /proc/self/maps is not read); where /proc is not mounted, the loader's name resolved (the main program's: the
     * one it was executed by, resolved before main). */
    if (!image->path) {
        char link[64], path[4096 + 32];
        int deleted = 0;
        bh_lazy_maps no_maps = {.state = -1};
        if (image->is_main) image->path = bh_main_program_path();
        else if (bh_locate(image, &no_maps, link, sizeof link, path, sizeof path, &deleted) == 0)
            image->path = bh_strdup(path);
        else if (image->name && strchr(image->name, '/'))
            image->path = realpath(image->name, NULL);
    }
    for (size_t w = 0; w < image->wanted.count; w++) {
        const bh_wanted *wanted = &image->wanted.items[w];
        if (!wanted->located) {
            unlocated = 1;
            continue;
        }
        if (wanted->size == 0) continue; /* the section holds no record */
        const ElfW(Phdr) *load = bh_segment_of(image->phdrs, image->phnum, wanted->vaddr, wanted->size);
        int faulted = 0;
        unsigned char *bytes = load ? bh_copy_section(s, image, wanted, &faulted) : NULL;
        if (!bytes && !faulted) {
            bh_add_problem(s, bh_label(image), image->id, load != NULL,
                           "cannot copy section %s (%llu bytes) from memory: %s", wanted->name,
                           (unsigned long long)wanted->size,
                           load ? "out of memory" : "it lies outside the loaded segments");
            continue;
        }
        if (!bytes) {
            bh_add_problem(s, bh_label(image), image->id, 0,
                           "section %s at 0x%llx (%llu bytes) cannot be read (the memory faults: is the file truncated "
                           "since it was loaded?); its records were not read",
                           wanted->name, (unsigned long long)wanted->vaddr, (unsigned long long)wanted->size);
            continue;
        }
        if (!image->is_main) image->records_hash = bh_hash_words(image->records_hash, bytes, (size_t)wanted->size);
        size_t size = (size_t)wanted->size;
        if (wanted->kind == BH_FORMAT_KIND_SWIFT_RECORDS) size = bh_keep_swift_records(s, image, bytes, size);
        if (size == 0 || bh_all_zero(bytes, size)) { /* the note's NUL byte, or no record of BeeHive's */
            free(bytes);
            continue;
        }
        bh_queue_section(s, image, wanted->name, wanted->kind, bytes, size,
                         load->p_offset + (wanted->vaddr - load->p_vaddr), wanted->vaddr, 0);
    }
    return unlocated;
}

/* Whether the located sections of a known image still hold what they held when they were read (after images were
 * unloaded, another image may have been loaded at the same address, under the same name, with the same notes). */
int bh_same_records(const bh_image *image) {
    uint64_t hash = BH_HASH_SEED;
    for (size_t w = 0; w < image->wanted.count; w++) {
        const bh_wanted *wanted = &image->wanted.items[w];
        if (!wanted->located || wanted->size == 0) continue;
        int faulted = 0;
        unsigned char *bytes = bh_copy_section(NULL, image, wanted, &faulted); /* afresh: it may have changed */
        if (!bytes) return !faulted; /* out of memory, cannot tell: keep what it registered */
        hash = bh_hash_words(hash, bytes, (size_t)wanted->size);
        free(bytes);
    }
    return hash == image->records_hash;
}
