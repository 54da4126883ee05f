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

/* Copies the located sections of an image into the queue. Returns 1 when sections remain that only its file can
 * give (a note of version 1 or 2, or bounds that were refused). */
int bh_read_located(bh_scanner *s, bh_image *image) {
    int unlocated = 0;
    /* The kernel's path of the file is not read (no /proc): the loader's name is the path, and the main program's
     * is the one it was executed by. */
    if (!image->path && image->is_main) image->path = bh_main_program_path();
    for (size_t w = 0; w < image->wanted.count; w++) {
        const bh_wanted *wanted = &image->wanted.items[w];
        if (!wanted->located) {
            unlocated = 1;
            continue;
        }
        if (wanted->size == 0) continue; /* the section holds no record */
        const ElfW(Phdr) *load = bh_segment_of(image->phdrs, image->phnum, wanted->vaddr, wanted->size);
        unsigned char *bytes = malloc((size_t)wanted->size);
        if (!load || !bytes) {
            free(bytes);
            bh_add_problem(s, bh_label(image), image->id, !bytes,
                           "cannot copy section %s (%llu bytes) from memory: %s", wanted->name,
                           (unsigned long long)wanted->size, bytes ? "it lies outside the loaded segments" : "out of memory");
            continue;
        }
        if (bh_copy_memory(1, bytes, image->base + wanted->vaddr, (size_t)wanted->size) != 0) {
            free(bytes);
            bh_add_problem(s, bh_label(image), image->id, 0,
                           "section %s at 0x%llx (%llu bytes) cannot be read (the memory faults: is the file truncated "
                           "since it was loaded?); its records were not read",
                           wanted->name, (unsigned long long)wanted->vaddr, (unsigned long long)wanted->size);
            continue;
        }
        bh_queue_section(s, image, wanted->name, wanted->kind, bytes, (size_t)wanted->size,
                         load->p_offset + (wanted->vaddr - load->p_vaddr), wanted->vaddr, 0);
    }
    return unlocated;
}
