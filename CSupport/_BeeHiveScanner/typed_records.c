/*
 * typed_records.c — the bounds of typed records (Docs/RecordFormat.md, "Typed records"), checked before any
 * reader may call one.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <string.h>

#define BH__FORMAT_STR2(x) #x
#define BH__FORMAT_STR(x) BH__FORMAT_STR2(x)

/*
 * Typed records (format version 2): 16 bytes each, u32 magic "BHTR", u32 layout version, then an accessor
 * function pointer. An entry whose magic or version is unknown, or whose accessor is not inside one of this
 * image's executable segments, is reported and zeroed in the copy, so that readers see padding and never
 * call it. All-zero entries are padding. A tail shorter than an entry is reported.
 */
#define BH_TYPED_RECORD_SIZE ((unsigned)BH_FORMAT_TYPED_RECORD_SIZE)
#define BH_TYPED_RECORD_MAGIC ((uint32_t)BH_FORMAT_TYPED_RECORD_MAGIC)
#define BH_TYPED_RECORD_LAYOUT ((uint32_t)BH_FORMAT_TYPED_RECORD_LAYOUT)
#define BH_TYPED_RECORD_ACCESSOR ((size_t)BH_FORMAT_TYPED_RECORD_ACCESSOR_OFFSET)

int bh_in_code(const bh_image *image, uint64_t address) {
    for (size_t i = 0; i < image->phnum; i++) {
        const ElfW(Phdr) *ph = &image->phdrs[i];
        uintptr_t start = image->base + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && address >= start && address - start < ph->p_memsz)
            return 1;
    }
    return 0;
}

void bh_check_typed_records(bh_scanner *s, const bh_image *image, const char *name, unsigned char *bytes,
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
        memcpy(&accessor, entry + BH_TYPED_RECORD_ACCESSOR, 8);
        if (magic == 0 && layout == 0 && accessor == 0) continue;
        const char *problem = NULL;
        if (magic != BH_TYPED_RECORD_MAGIC) {
            problem = "expected the magic " BH__FORMAT_STR(BH_FORMAT_TYPED_RECORD_MAGIC) " (\"BHTR\")";
        } else if (layout == 1) {
            problem = "expected layout version " BH__FORMAT_STR(BH_FORMAT_TYPED_RECORD_LAYOUT)
                      "; found version 1, whose accessor takes no guard (written by an older BeeHive: rebuild the "
                      "image against this one)";
        } else if (layout != BH_TYPED_RECORD_LAYOUT) {
            problem = "expected layout version " BH__FORMAT_STR(BH_FORMAT_TYPED_RECORD_LAYOUT)
                      " (the record was written by another version of BeeHive)";
        } else if (!bh_in_code(image, accessor)) {
            problem = "expected its accessor inside an executable segment of the image";
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
