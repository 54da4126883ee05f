/*
 * bh_note.h — the one parser of ELF notes and of the BeeHive note's descriptor, for every reader: the
 * load-time scanner reads notes from memory (PT_NOTE segments), the tool from files (SHT_NOTE sections).
 *
 * It only walks bytes the caller has already copied and bounded: every size is checked against what is left,
 * nothing is allocated, and the work is linear in the bytes. Callers decide what to report; the reader says
 * where and why it stopped. Header-only (static inline), so that both C targets build it from this one file.
 */
#ifndef BH_NOTE_H
#define BH_NOTE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bh_format.h"

/* ---- Notes -------------------------------------------------------------------------------- */

/* One note: its header, and where its name and descriptor lie in the caller's buffer. */
typedef struct {
    uint32_t namesz, descsz, type;
    const unsigned char *name;
    const unsigned char *desc;
    size_t offset; /* of the note's header, from the start of the buffer */
} bh_note;

/* Walks the notes of one buffer (a PT_NOTE segment or an SHT_NOTE section). */
typedef struct {
    const unsigned char *start, *p, *end;
    size_t align; /* 4 or 8: the descriptor and the next note start at it, counted from the note's start */
    int swap;     /* the buffer's byte order is not ours */
    /* Set when bh_note_next stopped at a note whose name and descriptor exceed the bytes left. */
    int malformed;
    size_t bad_offset, bad_left;
    uint32_t bad_namesz, bad_descsz;
} bh_note_reader;

static inline uint32_t bh_note_u32(const unsigned char *p, int swap) {
    uint32_t v;
    memcpy(&v, p, sizeof v);
    return swap ? __builtin_bswap32(v) : v;
}

/* Starts a walk over `size` bytes; `align` is the segment's or section's alignment (8 means 8, else 4). */
static inline void bh_note_reader_init(bh_note_reader *r, const void *bytes, size_t size, uint64_t align, int swap) {
    memset(r, 0, sizeof *r);
    r->start = r->p = (const unsigned char *)bytes;
    r->end = r->start + size;
    r->align = align == 8 ? 8 : 4;
    r->swap = swap;
}

/* The next note: 1 when `note` was filled, 0 at the end (see `malformed`). The last note's padding may be cut
 * short. */
static inline int bh_note_next(bh_note_reader *r, bh_note *note) {
    if (!r->p || (size_t)(r->end - r->p) < 12) return 0;
    size_t left = (size_t)(r->end - r->p);
    uint32_t namesz = bh_note_u32(r->p, r->swap), descsz = bh_note_u32(r->p + 4, r->swap);
    size_t mask = r->align - 1;
    size_t desc_offset = (12 + (size_t)namesz + mask) & ~mask;
    if (desc_offset > left || descsz > left - desc_offset) {
        r->malformed = 1;
        r->bad_offset = (size_t)(r->p - r->start);
        r->bad_left = left;
        r->bad_namesz = namesz;
        r->bad_descsz = descsz;
        r->p = NULL;
        return 0;
    }
    note->namesz = namesz;
    note->descsz = descsz;
    note->type = bh_note_u32(r->p + 8, r->swap);
    note->name = r->p + 12;
    note->desc = r->p + desc_offset;
    note->offset = (size_t)(r->p - r->start);
    size_t next = (desc_offset + (size_t)descsz + mask) & ~mask;
    r->p = next >= left ? NULL : r->p + next;
    return 1;
}

/* Whether a note is a BeeHive note (owner "BeeHive", type 1). */
static inline int bh_note_is_beehive(const bh_note *note) {
    return note->type == BH_FORMAT_NOTE_TYPE && note->namesz == BH_FORMAT_NOTE_OWNER_SIZE &&
           memcmp(note->name, BH_FORMAT_NOTE_OWNER, BH_FORMAT_NOTE_OWNER_SIZE) == 0;
}

/* Whether a note is the GNU build-id (owner "GNU", type 3). */
static inline int bh_note_is_gnu_build_id(const bh_note *note) {
    return note->type == 3 && note->namesz == 4 && memcmp(note->name, "GNU", 4) == 0;
}

/* ---- The BeeHive note's descriptor: u32 version, in version 3 a table of bounds, then NUL-terminated
 * "kind=section" entries ---------- */

typedef enum {
    BH_NOTE_DESC_OK = 0,
    BH_NOTE_DESC_TOO_SHORT = 1, /* fewer than 4 bytes: no version */
    BH_NOTE_DESC_VERSION = 2,   /* a version outside BH_FORMAT_OLDEST_VERSION … BH_FORMAT_NEWEST_VERSION */
    BH_NOTE_DESC_BOUNDS = 3,    /* version 3: the table of bounds does not fit, or its entries are too small */
} bh_note_desc_status;

/* Walks the entries of one descriptor. */
typedef struct {
    const char *p, *end;
    uint32_t version;
    /* Version 3: the table of bounds. */
    const unsigned char *bounds;
    size_t bound_count, bound_size;
} bh_note_entries;

/* One entry of version 3's table: where a kind's section lies, relative to the descriptor's first byte. */
typedef struct {
    uint32_t kind; /* a bh_format_kind, or a kind this version does not know (readers ignore those) */
    int32_t start, stop;
} bh_note_bound;

/* One entry. `known` is 0 for a kind this version does not know (readers ignore those). */
typedef struct {
    int known;
    bh_format_kind kind;
    const char *text; /* the whole entry, NUL-terminated in the buffer unless bh_note_entries_next returned -1 */
    const char *section;
    size_t section_length;
} bh_note_entry;

/* The prefix of a kind: "services=", … */
static inline const char *bh_format_kind_prefix(bh_format_kind kind) {
    switch (kind) {
    case BH_FORMAT_KIND_MODULES: return BH_FORMAT_MODULES_PREFIX;
    case BH_FORMAT_KIND_ROUTES: return BH_FORMAT_ROUTES_PREFIX;
    case BH_FORMAT_KIND_TYPES: return BH_FORMAT_TYPES_PREFIX;
    default: return BH_FORMAT_SERVICES_PREFIX;
    }
}

/* The name of a kind, for messages: "services", … */
static inline const char *bh_format_kind_name(bh_format_kind kind) {
    switch (kind) {
    case BH_FORMAT_KIND_MODULES: return "modules";
    case BH_FORMAT_KIND_ROUTES: return "routes";
    case BH_FORMAT_KIND_TYPES: return "types";
    default: return "services";
    }
}

/* The section a kind's records go to unless a note names another. */
static inline const char *bh_format_default_section(bh_format_kind kind) {
    switch (kind) {
    case BH_FORMAT_KIND_MODULES: return BH_FORMAT_MODULES_SECTION;
    case BH_FORMAT_KIND_ROUTES: return BH_FORMAT_ROUTES_SECTION;
    case BH_FORMAT_KIND_TYPES: return BH_FORMAT_TYPES_SECTION;
    default: return BH_FORMAT_SERVICES_SECTION;
    }
}

/* Starts a walk over a descriptor; reads its version. */
static inline bh_note_desc_status bh_note_entries_begin(bh_note_entries *e, const unsigned char *desc, size_t size,
                                                        int swap) {
    e->p = e->end = (const char *)desc + size;
    e->version = 0;
    if (size < 4) return BH_NOTE_DESC_TOO_SHORT;
    e->version = bh_note_u32(desc, swap);
    if (e->version < BH_FORMAT_OLDEST_VERSION || e->version > BH_FORMAT_NEWEST_VERSION) return BH_NOTE_DESC_VERSION;
    e->p = (const char *)desc + 4;
    e->bounds = NULL;
    e->bound_count = e->bound_size = 0;
    if (e->version >= 3) {
        if (size < BH_FORMAT_BOUNDS_HEADER_SIZE) return BH_NOTE_DESC_BOUNDS;
        size_t count = bh_note_u32(desc + 4, swap), entry = bh_note_u32(desc + 8, swap);
        if (entry < BH_FORMAT_BOUNDS_ENTRY_MIN_SIZE || entry % 4 != 0 ||
            count > (size - BH_FORMAT_BOUNDS_HEADER_SIZE) / entry) {
            e->bound_count = count;
            e->bound_size = entry;
            return BH_NOTE_DESC_BOUNDS;
        }
        e->bounds = desc + BH_FORMAT_BOUNDS_HEADER_SIZE;
        e->bound_count = count;
        e->bound_size = entry;
        e->p = (const char *)e->bounds + count * entry;
    }
    return BH_NOTE_DESC_OK;
}

/* The `index`th entry of version 3's table (index < e->bound_count). */
static inline bh_note_bound bh_note_bound_at(const bh_note_entries *e, size_t index, int swap) {
    const unsigned char *p = e->bounds + index * e->bound_size;
    bh_note_bound bound = {bh_note_u32(p, swap), (int32_t)bh_note_u32(p + 4, swap), (int32_t)bh_note_u32(p + 8, swap)};
    return bound;
}

/* The next non-empty entry: 1 when `entry` was filled, 0 at the end, -1 for an entry that the descriptor ends
 * inside (no NUL; `entry->text` points at it, and the walk is over). */
static inline int bh_note_entries_next(bh_note_entries *e, bh_note_entry *entry) {
    while (e->p < e->end) {
        const char *p = e->p;
        const char *nul = (const char *)memchr(p, 0, (size_t)(e->end - p));
        if (!nul) {
            e->p = e->end;
            memset(entry, 0, sizeof *entry);
            entry->text = p;
            return -1;
        }
        e->p = nul + 1;
        if (nul == p) continue; /* padding */
        memset(entry, 0, sizeof *entry);
        entry->text = p;
        for (int k = 0; k < BH_FORMAT_KIND_COUNT; k++) {
            const char *prefix = bh_format_kind_prefix((bh_format_kind)k);
            size_t n = strlen(prefix);
            if ((size_t)(nul - p) >= n && memcmp(p, prefix, n) == 0) {
                entry->known = 1;
                entry->kind = (bh_format_kind)k;
                entry->section = p + n;
                entry->section_length = (size_t)(nul - entry->section);
                break;
            }
        }
        return 1;
    }
    return 0;
}

#endif /* BH_NOTE_H */
