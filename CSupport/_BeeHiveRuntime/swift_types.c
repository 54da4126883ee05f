/*
 * swift_types.c — internal: the nominal types, protocols and conformances of every loaded Swift image, read from the
 * metadata sections that each image registered with the Swift runtime (swift_enumerateAllMetadataSections).
 *
 * This is how BeeHive finds a type by its module-qualified name without the runtime's look-up by mangled name, which
 * scans every type record of the process for each name: one walk over the records of the modules asked for serves
 * every name at once, and a type's metadata comes from its own access function.
 *
 * Every pointer read from an image's metadata is checked before it is followed (image_bounds.h): a relative pointer
 * must land inside the readable segments of the image that holds it, a pointer loaded through an indirection inside
 * those of some loaded image, and a name must end inside its segment. The first that does not stops the walk of that
 * image with one problem; the other images are read on.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "bh_runtime.h"
#include "image_bounds.h"
#include "runtime_layout.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern void swift_enumerateAllMetadataSections(bool (*body)(const MetadataSectionsHead *, void *), void *context)
    __attribute__((weak));

enum {
    BH_MAX_DEPTH = 8,     /* nesting levels below the module */
    BH_MAX_NAME = 512,    /* bytes of a qualified name */
    BH_MAX_IDENTIFIER = 255,
    BH_MESSAGE = 320,
};

/* ---- One image's walk: where it is, and why it stopped ------------------------------------------------------- */

typedef struct {
    const bh_bounds *bounds;
    uint32_t image;      /* the image whose records are read */
    const void *start;   /* its lowest address, naming it */
    bool stopped;        /* a problem was found: nothing more is read from this image */
    const bh_segment *hint; /* the segment the last check found: most pointers land in the one before them */
    const bh_segment *code_hint; /* the executable segment the last access function was found in */
    char message[BH_MESSAGE];
} bh_image_walk;

/* The segment that holds [address, address + size): `*hint`, else a binary search, whose answer becomes the hint. */
static const bh_segment *bh_find_hinted(
    bh_image_walk *walk, const bh_segment **hint, uintptr_t address, size_t size) {
    const bh_segment *last = *hint;
    if (last && address >= last->start && address < last->end && size <= last->end - address) return last;
    const bh_segment *found = bh_bounds_find(walk->bounds, address, size);
    if (found) *hint = found;
    return found;
}

/* The segment that holds [address, address + size), by the hint of the walk's data. */
static const bh_segment *bh_find(bh_image_walk *walk, uintptr_t address, size_t size) {
    return bh_find_hinted(walk, &walk->hint, address, size);
}

static bool bh_in_image(bh_image_walk *walk, uint32_t image, uintptr_t address, size_t size) {
    const bh_segment *segment = bh_find(walk, address, size);
    return segment && segment->image == image;
}

/* Stops the walk of this image; the first reason is the one reported. */
__attribute__((format(printf, 2, 3))) static void bh_stop(bh_image_walk *walk, const char *format, ...) {
    if (walk->stopped) return;
    walk->stopped = true;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(walk->message, sizeof walk->message, format, arguments);
    va_end(arguments);
}

/* The target of a relative direct pointer, checked to lie (`size` bytes) inside the walked image, and the segment that
 * holds it; NULL when null or outside (then the walk stops, with `what` in its message). */
static uintptr_t bh_direct_in(bh_image_walk *walk, const RelativeDirectPointer *field, size_t size, const char *what,
                              const bh_segment **holder) {
    if (walk->stopped || !field->offset) return 0;
    uintptr_t target = (uintptr_t)field + (intptr_t)field->offset;
    const bh_segment *segment = bh_find(walk, target, size);
    if (!segment || segment->image != walk->image) {
        bh_stop(walk, "%s at %p points to %p, outside the image's readable segments", what, (const void *)field,
                (const void *)target);
        return 0;
    }
    *holder = segment;
    return target;
}

/* The target of a relative direct pointer, checked as `bh_direct_in` checks it. */
static uintptr_t bh_direct(bh_image_walk *walk, const RelativeDirectPointer *field, size_t size, const char *what) {
    const bh_segment *holder;
    return bh_direct_in(walk, field, size, what, &holder);
}

/* The target of a relative indirectable pointer: direct as above, or through a pointer slot inside the image whose
 * value must lie inside some loaded image's readable segments. */
static uintptr_t bh_indirectable(
    bh_image_walk *walk, const RelativeIndirectablePointer *field, size_t size, const char *what) {
    if (walk->stopped || !field->offset) return 0;
    if (!(field->offset & 1)) return bh_direct(walk, (const RelativeDirectPointer *)field, size, what);
    uintptr_t slot = (uintptr_t)field + (intptr_t)(field->offset & ~1);
    if (!bh_in_image(walk, walk->image, slot, sizeof(void *))) {
        bh_stop(walk, "%s at %p points to a pointer at %p, outside the image's readable segments", what,
                (const void *)field, (const void *)slot);
        return 0;
    }
    uintptr_t target = *(const uintptr_t *)slot;
    if (!target) return 0;
    if (!bh_find(walk, target, size)) {
        bh_stop(walk, "%s at %p points through a pointer to %p, outside every loaded image", what, (const void *)field,
                (const void *)target);
        return 0;
    }
    return target;
}

/* A name, read with a bound (its end searched for within the segment that the check of its pointer found): its
 * length, or -1 (the walk stopped). */
static long bh_name(bh_image_walk *walk, const RelativeDirectPointer *field, const char **name) {
    const bh_segment *segment = NULL;
    uintptr_t target = bh_direct_in(walk, field, 1, "the name of the context descriptor", &segment);
    if (!target) {
        if (!walk->stopped) bh_stop(walk, "the name of the context descriptor at %p is null", (const void *)field);
        return -1;
    }
    long length = bh_bounds_string(segment, target, BH_MAX_IDENTIFIER);
    if (length == -2) {
        bh_stop(walk, "the name at %p (of the context descriptor at %p) runs unterminated to the end of its segment",
                (const void *)target, (const void *)field);
        return -1;
    }
    if (length < 0) return -3; /* longer than any name BeeHive binds: not an error, just not a name to index */
    *name = (const char *)target;
    return length;
}

/* A context descriptor reached from the walked image, whose head must lie in a loaded image (the caller checks its
 * kind). */
static const TargetNamedContextDescriptor *bh_named_context(bh_image_walk *walk, uintptr_t address) {
    if (!address || walk->stopped) return NULL;
    const bh_segment *segment = bh_find(walk, address, sizeof(TargetNamedContextDescriptor));
    if (!segment) {
        bh_stop(walk, "a context descriptor at %p lies outside every loaded image", (const void *)address);
        return NULL;
    }
    return (const TargetNamedContextDescriptor *)address;
}

static bool bh_is_named_kind(unsigned kind) {
    return kind == ContextDescriptorKind_Module || kind == ContextDescriptorKind_Protocol ||
           (kind >= ContextDescriptorKind_Class && kind <= ContextDescriptorKind_Enum);
}

static char bh_mangling_letter(unsigned kind) {
    switch (kind) {
    case ContextDescriptorKind_Class: return 'C';
    case ContextDescriptorKind_Struct: return 'V';
    case ContextDescriptorKind_Enum: return 'O';
    case ContextDescriptorKind_Protocol: return 'P';
    default: return 0;
    }
}

static bool bh_is_plain_identifier(const char *name, size_t length) {
    if (!length || (name[0] >= '0' && name[0] <= '9')) return false;
    for (size_t i = 0; i < length; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

/* A descriptor's parent chain: every level a named context, the root a module. The walk crosses into
 * another image only through a checked indirection. */
typedef struct {
    const TargetNamedContextDescriptor *levels[BH_MAX_DEPTH + 2];
    size_t depth; /* levels[depth - 1] is the module */
} bh_chain;

/* Reads `descriptor`'s parent chain; false when it has no module-qualified name (an extension, a private or local
 * context, too deep) or when the walk stopped. Pointers are checked against the image that holds each level. */
static bool bh_read_chain(bh_image_walk *walk, const TargetNamedContextDescriptor *descriptor, bh_chain *chain) {
    chain->depth = 0;
    const bh_bounds *bounds = walk->bounds;
    uint32_t walked = walk->image;
    for (const TargetNamedContextDescriptor *d = descriptor; d;) {
        unsigned kind = ContextDescriptorFlags_kind(d->base.Flags);
        if (chain->depth == BH_MAX_DEPTH + 2 || !bh_is_named_kind(kind)) break;
        chain->levels[chain->depth++] = d;
        if (kind == ContextDescriptorKind_Module) break;
        /* The parent is read in the image that holds this level. */
        const bh_segment *holder = bh_find(walk, (uintptr_t)d, sizeof *d);
        if (!holder) return false;
        walk->image = holder->image;
        uintptr_t parent = bh_indirectable(walk, &d->base.Parent, sizeof(TargetNamedContextDescriptor),
                                           "the parent of the context descriptor");
        walk->image = walked;
        if (walk->stopped) return false;
        d = bh_named_context(walk, parent);
    }
    return !walk->stopped && chain->depth >= 2 &&
           ContextDescriptorFlags_kind(chain->levels[chain->depth - 1]->base.Flags) == ContextDescriptorKind_Module;
}

/* A level's name, read in the image that holds it. */
static long bh_level_name(bh_image_walk *walk, const TargetNamedContextDescriptor *level, const char **name) {
    const bh_segment *holder = bh_find(walk, (uintptr_t)level, sizeof *level);
    if (!holder) return -1;
    uint32_t walked = walk->image;
    walk->image = holder->image;
    long length = bh_name(walk, &level->Name, name);
    walk->image = walked;
    return length;
}

/* ---- Module filter ------------------------------------------------------------------------------------------ */

enum { BH_SKIP_SLOTS = 256 };

/* Keeps the descriptors of one module (every module when `wanted` is NULL). Records of one module come together, so
 * the last module name compared (its address) is remembered; and the parents whose children are not kept (a module
 * not wanted, a type of one, a context without a module-qualified name), in a small table by address, so that the
 * records of a type nested in one are skipped without reading their chains again. */
typedef struct {
    const char *wanted;
    const void *last; /* the module descriptor last compared */
    bool last_match;
    const char *last_name; /* its name: each object file has its own descriptor of a module, whose names are merged */
    /* The last type of the wanted module whose chain was read, and that chain: a type nested in it (its record most
     * often the next) takes it without reading it again. */
    const void *kept_parent;
    bh_chain kept;
    const void *skipped[BH_SKIP_SLOTS]; /* a parent's slot: its address, or another parent's that took the slot */
} bh_module_filter;

static size_t bh_skip_slot(const void *parent) {
    uintptr_t address = (uintptr_t)parent;
    return ((address >> 2) ^ (address >> 10)) % BH_SKIP_SLOTS;
}

/* `descriptor`'s parent, when a direct relative pointer gives it: its address, computed and never followed. */
static const void *bh_direct_parent(const TargetNamedContextDescriptor *descriptor) {
    int32_t offset = descriptor->base.Parent.offset;
    if (offset == 0 || (offset & 1)) return NULL;
    return (const void *)((uintptr_t)&descriptor->base.Parent + (intptr_t)offset);
}

static bool bh_module_matches(bh_module_filter *filter, bh_image_walk *walk, const bh_chain *chain) {
    if (!filter->wanted) return true;
    const TargetNamedContextDescriptor *descriptor = chain->levels[chain->depth - 1];
    if (descriptor == filter->last) return filter->last_match;
    const char *module = NULL;
    if (bh_level_name(walk, descriptor, &module) < 0) return false;
    if (module != filter->last_name) {
        filter->last_name = module;
        filter->last_match = strcmp(module, filter->wanted) == 0;
    }
    filter->last = descriptor;
    return filter->last_match;
}

/* Whether `descriptor`'s parent is, by a direct relative pointer, one whose children the filter does not keep: its
 * record is skipped without reading its chain (the parent's chain was read and matched when a sibling's was). The
 * parent's address is compared, never followed; an indirect parent takes the long way. */
static inline __attribute__((always_inline)) bool bh_in_other_module(
    const bh_module_filter *filter, const TargetNamedContextDescriptor *descriptor) {
    if (!filter->wanted) return false;
    const void *parent = bh_direct_parent(descriptor);
    return parent && filter->skipped[bh_skip_slot(parent)] == parent;
}

/* Keeps `chain`, of a type of the wanted module, for the types nested in it. */
static inline __attribute__((always_inline)) void bh_keep_chain(bh_module_filter *filter, const bh_chain *chain) {
    if (chain->depth >= BH_MAX_DEPTH + 2) return; /* a type nested in it would be too deep */
    filter->kept_parent = chain->levels[0];
    filter->kept.depth = chain->depth;
    memcpy(filter->kept.levels, chain->levels, chain->depth * sizeof *chain->levels);
}

/* Reads `descriptor`'s chain, when it belongs to the module the filter matched last: a top-level type or protocol of
 * that module (its parent a direct pointer to the module's descriptor, checked when the module was named) is the two of
 * them without a walk up its parents (~160 instructions, once per type and once per conformance), and a type nested in
 * the type of that module read last is that type's chain below it; any other is read and matched as `bh_read_chain`
 * and `bh_module_matches` do. */
static inline __attribute__((always_inline)) bool bh_read_chain_in_module(
    bh_module_filter *filter, bh_image_walk *walk, const TargetNamedContextDescriptor *descriptor, bh_chain *chain) {
    if (filter->wanted) {
        const void *parent = bh_direct_parent(descriptor);
        if (parent && parent == filter->last && filter->last_match) {
            chain->levels[0] = descriptor;
            chain->levels[1] = filter->last;
            chain->depth = 2;
            bh_keep_chain(filter, chain);
            return true;
        }
        if (parent && parent == filter->kept_parent) {
            chain->levels[0] = descriptor;
            memcpy(&chain->levels[1], filter->kept.levels, filter->kept.depth * sizeof *chain->levels);
            chain->depth = filter->kept.depth + 1;
            bh_keep_chain(filter, chain);
            return true;
        }
    }
    if (bh_read_chain(walk, descriptor, chain) && bh_module_matches(filter, walk, chain)) {
        if (filter->wanted) bh_keep_chain(filter, chain);
        return true;
    }
    /* Every child of the descriptor, and of every level above it, has that level's chain above it: none is kept. */
    if (!filter->wanted || walk->stopped) return false;
    const void *parent = bh_direct_parent(descriptor);
    if (parent) filter->skipped[bh_skip_slot(parent)] = parent;
    for (size_t i = 0; i < chain->depth; i++) filter->skipped[bh_skip_slot(chain->levels[i])] = chain->levels[i];
    return false;
}

/* ---- The walk over every image's sections --------------------------------------------------------------------- */

typedef struct {
    const bh_bounds *bounds; /* shared with other walks of the same loaded images (bh_bounds_acquire) */
    bh_module_filter module;
    bh_runtime_problem_fn problem;
    void *context;
    /* The lowest address of the one image to read, or 0 for every image. */
    uintptr_t only_image;
    /* The module descriptor whose name was read last, and that name (read and checked then). */
    const void *named_module;
    const char *module_name;
    long module_name_length;
    /* The type indexed last, and where its qualified name lies in the index's names: a type nested in it (its record
     * most often the next) starts its name with that name. */
    const void *named_type;
    size_t named_type_offset, named_type_length;
    /* one of: */
    bh_type_index *index; /* what a walk of types makes */
    bh_conformance_table *conformances; /* what a walk of conformances fills */
    bh_swift_conformance *anchor; /* a conformance of any module a walk of conformances looks for */
    const bh_type_index *members; /* the module's types, when an index of them covers the image walked */
} bh_walk;

static void bh_report(bh_walk *walk, bh_runtime_problem_kind kind, const void *image, const char *message) {
    if (!walk->problem) return;
    bh_runtime_problem problem = {kind, image, message};
    walk->problem(walk->context, &problem);
}

/* The image that holds `sections`, checked: its version known, its three ranges inside its readable segments. */
static bool bh_open_image(bh_walk *walk, const MetadataSectionsHead *sections, bh_image_walk *image) {
    const bh_segment *holder = bh_bounds_find(walk->bounds, (uintptr_t)sections, sizeof *sections);
    if (!holder) return false; /* loaded after the snapshot: read by the next walk */
    *image = (bh_image_walk){walk->bounds, holder->image, (const void *)walk->bounds->image_starts[holder->image],
                             false, holder, NULL, {0}};
    if (sections->version < BH_METADATA_SECTIONS_OLDEST_VERSION ||
        sections->version > BH_METADATA_SECTIONS_NEWEST_VERSION) {
        char message[BH_MESSAGE];
        snprintf(message, sizeof message,
                 "its Swift metadata sections are of version %lu; BeeHive reads versions %d to %d",
                 (unsigned long)sections->version, BH_METADATA_SECTIONS_OLDEST_VERSION,
                 BH_METADATA_SECTIONS_NEWEST_VERSION);
        bh_report(walk, BH_RUNTIME_UNKNOWN_VERSION, image->start, message);
        return false;
    }
    const MetadataSectionRange *ranges[] = {&sections->swift5_protocols, &sections->swift5_protocol_conformances,
                                            &sections->swift5_type_metadata};
    static const char *const names[] = {"swift5_protocols", "swift5_protocol_conformances", "swift5_type_metadata"};
    for (size_t i = 0; i < 3; i++) {
        const MetadataSectionRange *range = ranges[i];
        if (!range->length) continue;
        if (range->length % sizeof(int32_t) ||
            !bh_bounds_in_image(walk->bounds, holder->image, range->start, range->length)) {
            char message[BH_MESSAGE];
            snprintf(message, sizeof message,
                     "its section %s (%p, %zu bytes) is not a whole number of records inside the image's readable "
                     "segments", names[i], (void *)range->start, range->length);
            bh_report(walk, BH_RUNTIME_CORRUPT, image->start, message);
            return false;
        }
    }
    return true;
}

static void bh_close_image(bh_walk *walk, bh_image_walk *image) {
    if (image->stopped) bh_report(walk, BH_RUNTIME_CORRUPT, image->start, image->message);
}

/* Checks that a record leads to a descriptor of a kind it may lead to (`allowed`: a bit per kind, the type kinds
 * 16–31 as one bit): a record that leads to anything else is corrupt. */
enum {
    BH_KINDS_TYPES = 1u << 16, /* class, struct, enum and the kinds reserved for types */
    BH_KINDS_OPAQUE_TYPE = 1u << ContextDescriptorKind_OpaqueType,
    BH_KINDS_PROTOCOL = 1u << ContextDescriptorKind_Protocol,
};

static bool bh_expect_kind(
    bh_image_walk *image, const TargetNamedContextDescriptor *descriptor, uint32_t allowed, const char *expected) {
    unsigned kind = ContextDescriptorFlags_kind(descriptor->base.Flags);
    uint32_t bit = kind >= ContextDescriptorKind_Class ? BH_KINDS_TYPES : 1u << kind;
    if (!(allowed & bit)) {
        bh_stop(image, "a record leads to a context descriptor of kind %u at %p; expected %s", kind,
                (const void *)descriptor, expected);
        return false;
    }
    return true;
}

/* ---- An index of one module's types by qualified name ----------------------------------------------------- */

/* The walk's types, their names in one buffer, and a table of positions by name: built in C so that indexing a type
 * costs no allocation of its own (a Swift string and a table entry per type cost twice the walk). */
typedef struct {
    const void *descriptor;
    const void *image;
    uint64_t hash;
    uint32_t name_offset;
    uint16_t name_length;
    uint8_t kind;
    uint8_t flags; /* BH_ENTRY_GENERIC, BH_ENTRY_DROPPED */
} bh_type_entry;

enum { BH_ENTRY_GENERIC = 1, BH_ENTRY_DROPPED = 2 };

struct bh_type_index {
    bh_type_entry *entries;
    size_t count, capacity;
    char *names;
    size_t names_length, names_capacity;
    uint32_t *slots; /* position + 1, or 0 for a free slot; a power of two long, at most half used */
    uint32_t *by_descriptor; /* the same, by descriptor address, `slot_count` long */
    size_t slot_count;
    bool failed;     /* an allocation failed: the index is not used */
};

/* A hash of the bytes, eight at a time (a multiply and a shift per word). */
static uint64_t bh_name_hash(const char *name, size_t length) {
    uint64_t hash = 0xcbf29ce484222325ULL ^ length, word;
    size_t i = 0;
    for (; i + 8 <= length; i += 8) {
        memcpy(&word, name + i, 8);
        hash = (hash ^ word) * 0x9E3779B97F4A7C15ULL;
        hash ^= hash >> 29;
    }
    word = 0;
    memcpy(&word, name + i, length - i);
    hash = (hash ^ word) * 0x9E3779B97F4A7C15ULL;
    return hash ^ (hash >> 32);
}

static bool bh_grow(void **buffer, size_t *capacity, size_t needed, size_t size) {
    if (needed <= *capacity) return true;
    size_t grown = *capacity ? *capacity : 1024;
    while (grown < needed) grown *= 2;
    void *moved = realloc(*buffer, grown * size);
    if (!moved) return false;
    *buffer = moved;
    *capacity = grown;
    return true;
}

/* Makes room for `records` more entries and their names: a walk reserves for every record of an image at once. */
static void bh_index_reserve(bh_type_index *index, size_t records) {
    if (index->failed || !records) return;
    if (!bh_grow((void **)&index->entries, &index->capacity, index->count + records, sizeof *index->entries) ||
        !bh_grow((void **)&index->names, &index->names_capacity, index->names_length + records * 32, 1))
        index->failed = true;
}

/* Where the next name is written, with room for the longest one; NULL when memory ran out. */
static char *bh_index_next_name(bh_type_index *index) {
    if (index->failed || index->count >= UINT32_MAX - 1 || index->names_length + BH_MAX_NAME > UINT32_MAX ||
        !bh_grow((void **)&index->entries, &index->capacity, index->count + 1, sizeof *index->entries) ||
        !bh_grow((void **)&index->names, &index->names_capacity, index->names_length + BH_MAX_NAME, 1)) {
        index->failed = true;
        return NULL;
    }
    return index->names + index->names_length;
}

/* Adds the type whose name (`length` bytes, at most BH_MAX_NAME - 1) was written where `bh_index_next_name` said. */
static void bh_index_add(bh_type_index *index, size_t length, const void *descriptor, const void *image,
                         unsigned kind, bool is_generic) {
    const char *name = index->names + index->names_length;
    index->names[index->names_length + length] = 0;
    index->entries[index->count++] = (bh_type_entry){descriptor,
                                                     image,
                                                     bh_name_hash(name, length),
                                                     (uint32_t)index->names_length,
                                                     (uint16_t)length,
                                                     (uint8_t)kind,
                                                     is_generic ? BH_ENTRY_GENERIC : 0};
    index->names_length += length + 1;
}

/* Puts `position` + 1 into the first free slot of `slots` (`mask` + 1 long) from `slot` on. */
static void bh_place(uint32_t *slots, size_t mask, size_t slot, size_t position) {
    while (slots[slot]) slot = (slot + 1) & mask;
    slots[slot] = (uint32_t)position + 1;
}

static size_t bh_descriptor_slot(const void *descriptor, size_t mask) {
    return (size_t)(((uint64_t)(uintptr_t)descriptor * 0x9E3779B97F4A7C15ULL) >> 32) & mask;
}

/* Makes the table of positions, in the walk's order: entries of one name lie on one probe sequence in that order. */
static bool bh_index_finish(bh_type_index *index) {
    if (index->capacity > 2 * index->count + 16) { /* a reservation mostly unused: given back */
        void *entries = realloc(index->entries, (index->count ? index->count : 1) * sizeof *index->entries);
        if (entries) index->entries = entries, index->capacity = index->count ? index->count : 1;
    }
    if (index->names_capacity > 2 * index->names_length + 1024) {
        void *names = realloc(index->names, index->names_length + 1);
        if (names) index->names = names, index->names_capacity = index->names_length + 1;
    }
    size_t size = 16;
    while (size < index->count * 2) size *= 2;
    index->slots = calloc(size, sizeof *index->slots);
    index->by_descriptor = calloc(size, sizeof *index->by_descriptor);
    if (!index->slots || !index->by_descriptor) return false;
    index->slot_count = size;
    for (size_t position = 0; position < index->count; position++) {
        const bh_type_entry *entry = &index->entries[position];
        bh_place(index->slots, size - 1, (size_t)entry->hash & (size - 1), position);
        bh_place(index->by_descriptor, size - 1, bh_descriptor_slot(entry->descriptor, size - 1), position);
    }
    return true;
}

void bh_type_index_free(bh_type_index *index) {
    if (!index) return;
    free(index->entries);
    free(index->names);
    free(index->slots);
    free(index->by_descriptor);
    free(index);
}

int bh_type_index_entry(const bh_type_index *index, size_t position, bh_swift_type *type) {
    if (position >= index->count) return -1;
    const bh_type_entry *entry = &index->entries[position];
    *type = (bh_swift_type){index->names + entry->name_offset, entry->name_length, entry->descriptor, entry->image,
                            entry->kind, entry->flags & BH_ENTRY_GENERIC};
    return !(entry->flags & BH_ENTRY_DROPPED);
}

size_t bh_type_index_find(const bh_type_index *index, const char *name, size_t length, size_t *positions,
                          size_t capacity) {
    uint64_t hash = bh_name_hash(name, length);
    size_t mask = index->slot_count - 1, found = 0;
    for (size_t slot = (size_t)hash & mask; index->slots[slot]; slot = (slot + 1) & mask) {
        const bh_type_entry *entry = &index->entries[index->slots[slot] - 1];
        if (entry->hash != hash || entry->name_length != length || (entry->flags & BH_ENTRY_DROPPED) ||
            memcmp(index->names + entry->name_offset, name, length) != 0)
            continue;
        if (found < capacity) positions[found] = index->slots[slot] - 1;
        found++;
    }
    return found;
}

/* The entry of the type or protocol whose descriptor is `descriptor` (dropped or not), or NULL. */
static inline const bh_type_entry *bh_index_entry_of(const bh_type_index *index, const void *descriptor) {
    size_t mask = index->slot_count - 1;
    for (size_t slot = bh_descriptor_slot(descriptor, mask); index->by_descriptor[slot]; slot = (slot + 1) & mask) {
        const bh_type_entry *entry = &index->entries[index->by_descriptor[slot] - 1];
        if (entry->descriptor == descriptor) return entry;
    }
    return NULL;
}

size_t bh_type_index_existential_name(const bh_type_index *index, const void *metadata, const char **name) {
    bh_existential_shape shape;
    if (!bh_existential_shape_of(metadata, &shape)) return 0;
    const bh_type_entry *entry = bh_index_entry_of(index, shape.protocol);
    if (!entry || entry->kind != ContextDescriptorKind_Protocol || (entry->flags & BH_ENTRY_DROPPED)) return 0;
    /* The protocol's own class constraint (bit 16 of its flags: 0 for `AnyObject`) must be the existential's: `any P`,
     * not `P & AnyObject`. The descriptor was read when the index was made. */
    uint32_t flags = ((const TargetNamedContextDescriptor *)entry->descriptor)->base.Flags;
    if ((((flags >> 16) & 1) == 0) != (shape.is_class_bound != 0)) return 0;
    *name = index->names + entry->name_offset;
    return entry->name_length;
}

void bh_type_index_drop_image(bh_type_index *index, const void *image) {
    for (size_t i = 0; i < index->count; i++)
        if (index->entries[i].image == image) index->entries[i].flags |= BH_ENTRY_DROPPED;
}

int bh_type_index_holds_type(const bh_type_index *index, const void *descriptor) {
    const bh_type_entry *entry = bh_index_entry_of(index, descriptor);
    return entry && entry->kind != ContextDescriptorKind_Protocol && !(entry->flags & BH_ENTRY_DROPPED);
}

/* Whether the access function BeeHive will call for a type's metadata is code of the descriptor's image; when it is
 * not, the image is not used (the walk stops). */
static bool bh_access_function_in_code(bh_image_walk *image, const TargetNamedContextDescriptor *descriptor) {
    const TargetTypeContextDescriptor *type = (const TargetTypeContextDescriptor *)descriptor;
    if (!type->AccessFunctionPtr.offset) return true;
    uintptr_t function = (uintptr_t)&type->AccessFunctionPtr + (intptr_t)type->AccessFunctionPtr.offset;
    const bh_segment *holder = bh_find(image, (uintptr_t)descriptor, sizeof *type);
    const bh_segment *segment = bh_find_hinted(image, &image->code_hint, function, 1);
    if (holder && segment && segment->image == holder->image && segment->executable) return true;
    bh_stop(image, "the access function of the type descriptor at %p points to %p, outside the image's executable "
                   "segments", (const void *)descriptor, (const void *)function);
    return false;
}

/* Writes the module-qualified name of `chain` at `name` (room for BH_MAX_NAME bytes, in a buffer that starts at
 * `names`, where the last name written lies): its length, or -1 when a level has no name or it does not fit. A type
 * nested in the type named last starts with that name, and the module named last is not read again. */
static long bh_write_name(bh_walk *walk, bh_image_walk *image, const bh_chain *chain, const char *names, char *name) {
    size_t length = 0, from = chain->depth;
    if (chain->depth >= 3 && chain->levels[1] == walk->named_type) {
        length = walk->named_type_length;
        memcpy(name, names + walk->named_type_offset, length);
        from = 1;
    }
    for (size_t i = from; i-- > 0;) {
        const char *part = NULL;
        long n;
        if (i == chain->depth - 1 && chain->levels[i] == walk->named_module) {
            /* The module whose name the last type had: records of one module come together. */
            part = walk->module_name;
            n = walk->module_name_length;
        } else {
            n = bh_level_name(image, chain->levels[i], &part);
            if (i == chain->depth - 1 && n > 0) {
                walk->named_module = chain->levels[i];
                walk->module_name = part;
                walk->module_name_length = n;
            }
        }
        if (n <= 0 || length + (size_t)n + 1 >= BH_MAX_NAME) return -1;
        if (length) name[length++] = '.';
        memcpy(name + length, part, (size_t)n);
        length += (size_t)n;
    }
    return (long)length;
}

static void bh_report_type(bh_walk *walk, bh_image_walk *image, const TargetNamedContextDescriptor *descriptor) {
    /* A descriptor of a later format version may have another head: not indexed (the runtime's path finds it). */
    if (ContextDescriptorFlags_version(descriptor->base.Flags) != 0) return;
    if (bh_in_other_module(&walk->module, descriptor)) return;
    bh_chain chain;
    if (!bh_read_chain_in_module(&walk->module, image, descriptor, &chain)) return;
    unsigned kind = ContextDescriptorFlags_kind(descriptor->base.Flags);
    if (kind != ContextDescriptorKind_Protocol && !bh_access_function_in_code(image, descriptor)) return;
    char *name = bh_index_next_name(walk->index);
    if (!name) return;
    long length = bh_write_name(walk, image, &chain, walk->index->names, name);
    if (length < 0) return;
    walk->named_type = descriptor;
    walk->named_type_offset = (size_t)(name - walk->index->names);
    walk->named_type_length = (size_t)length;
    ContextDescriptorFlags flags = descriptor->base.Flags;
    bh_index_add(walk->index, (size_t)length, descriptor, image->start, ContextDescriptorFlags_kind(flags),
                 ContextDescriptorFlags_isGeneric(flags));
}

/* Whether the walk is restricted to one image and `sections` lie in another. */
static bool bh_in_other_image(bh_walk *walk, const MetadataSectionsHead *sections) {
    if (!walk->only_image) return false;
    const bh_segment *holder = bh_bounds_find(walk->bounds, (uintptr_t)sections, sizeof *sections);
    return !holder || walk->bounds->image_starts[holder->image] != walk->only_image;
}

static bool bh_visit_type_sections(const MetadataSectionsHead *sections, void *context) {
    bh_walk *walk = context;
    if (bh_in_other_image(walk, sections)) return true;
    bh_image_walk image;
    if (!bh_open_image(walk, sections, &image)) return true;
    const TargetTypeMetadataRecord *records = (const TargetTypeMetadataRecord *)sections->swift5_type_metadata.start;
    size_t count = sections->swift5_type_metadata.length / sizeof *records;
    /* One image is read: room for all its records at once (shrunk to what was kept when the index is made). */
    if (walk->only_image)
        bh_index_reserve(walk->index, count + sections->swift5_protocols.length / sizeof(TargetProtocolRecord));
    for (size_t i = 0; i < count && !image.stopped; i++) {
        int32_t reference = records[i].TypeRef;
        if (!reference) continue;
        uintptr_t descriptor = 0;
        switch (reference & 3) {
        case TypeReferenceKind_DirectTypeDescriptor:
            descriptor = bh_direct(&image, (const RelativeDirectPointer *)&records[i],
                                   sizeof(TargetTypeContextDescriptor), "the type metadata record");
            break;
        case TypeReferenceKind_IndirectTypeDescriptor:
            descriptor = bh_indirectable(&image, (const RelativeIndirectablePointer *)&records[i],
                                         sizeof(TargetTypeContextDescriptor), "the type metadata record");
            /* bh_indirectable reads the low bit as "indirect"; the record's kind 1 is that bit. */
            break;
        default: continue; /* Objective-C class names */
        }
        if (!descriptor) continue;
        const TargetNamedContextDescriptor *d = (const TargetNamedContextDescriptor *)descriptor;
        if (!bh_expect_kind(&image, d, BH_KINDS_TYPES | BH_KINDS_OPAQUE_TYPE, "a type or an opaque type")) break;
        unsigned kind = ContextDescriptorFlags_kind(d->base.Flags);
        if (kind >= ContextDescriptorKind_Class && kind <= ContextDescriptorKind_Enum) bh_report_type(walk, &image, d);
    }
    const TargetProtocolRecord *protocols = (const TargetProtocolRecord *)sections->swift5_protocols.start;
    count = sections->swift5_protocols.length / sizeof *protocols;
    for (size_t i = 0; i < count && !image.stopped; i++) {
        uintptr_t descriptor = bh_indirectable(&image, &protocols[i].Protocol, sizeof(TargetProtocolDescriptor),
                                               "the protocol record");
        if (!descriptor) continue;
        const TargetNamedContextDescriptor *d = (const TargetNamedContextDescriptor *)descriptor;
        if (!bh_expect_kind(&image, d, BH_KINDS_PROTOCOL, "a protocol"))
            break;
        bh_report_type(walk, &image, d);
    }
    bh_close_image(walk, &image);
    return true;
}

/* Walks the images' metadata sections with `visit`: every image's, or only those of the image that holds the address
 * `near`. 0 when the runtime cannot enumerate them, or no loaded image holds `near`. */
static int bh_walk_all(bh_walk *walk, const char *module, const void *near,
                       bool (*visit)(const MetadataSectionsHead *, void *)) {
    if (!swift_enumerateAllMetadataSections || !(walk->bounds = bh_bounds_acquire())) return 0;
    if (near) {
        const bh_segment *holder = bh_bounds_find(walk->bounds, (uintptr_t)near, 1);
        if (!holder) {
            bh_bounds_release(walk->bounds);
            return 0;
        }
        walk->only_image = walk->bounds->image_starts[holder->image];
    }
    /* The tables were zeroed with the walk: set the rest only (zeroing them again costs ~4 K instructions). */
    walk->module.wanted = module;
    walk->module.last = NULL;
    walk->module.last_match = false;
    swift_enumerateAllMetadataSections(visit, walk);
    bh_bounds_release(walk->bounds);
    return 1;
}

bh_type_index *bh_swift_type_index(const char *module, const void *near, bh_runtime_problem_fn problem,
                                   void *context) {
    bh_type_index *index = calloc(1, sizeof *index);
    if (!index) return NULL;
    bh_walk walk = {.problem = problem, .context = context, .index = index};
    if (!bh_walk_all(&walk, module, near, bh_visit_type_sections) || index->failed || !bh_index_finish(index)) {
        bh_type_index_free(index);
        return NULL;
    }
    return index;
}

/* ---- A table of one module's conformances ------------------------------------------------------------------ */

/* A conformer of the protocol a table names: its record's position, and its name in the table's names. */
typedef struct {
    uint64_t hash;
    uint32_t position;
    uint32_t name_offset;
    uint32_t name_length;
} bh_named_conformer;

/* The records a walk of conformances met, and a table of positions by type and protocol: built in C so that keeping a
 * record costs no allocation or hashing of its own in Swift (~0.5 K instructions a record there). */
struct bh_conformance_table {
    bh_swift_conformance *entries;
    size_t count, capacity;
    uint32_t *slots; /* position + 1, or 0 for a free slot; a power of two long, at most half used */
    size_t slot_count;
    /* The conformers of the protocol the walk names (`named_protocol`), by their module-qualified names. */
    const void *named_protocol;
    bh_named_conformer *named;
    size_t named_count, named_capacity;
    char *names;
    size_t names_length, names_capacity;
    uint32_t *named_slots; /* position in `named` + 1, or 0; `named_slot_count` long, at most half used */
    size_t named_slot_count;
    bool failed;
};

static size_t bh_conformance_slot(const void *type, const void *protocol, size_t mask) {
    uint64_t hash = ((uint64_t)(uintptr_t)type * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)(uintptr_t)protocol;
    hash *= 0x9E3779B97F4A7C15ULL;
    return (size_t)(hash >> 32) & mask;
}

static void bh_conformance_keep(bh_conformance_table *table, const bh_swift_conformance *found) {
    if (table->failed) return;
    if (table->count >= UINT32_MAX - 1 ||
        !bh_grow((void **)&table->entries, &table->capacity, table->count + 1, sizeof *table->entries)) {
        table->failed = true;
        return;
    }
    table->entries[table->count++] = *found;
}

/* Keeps the record just kept, of a conformer of the table's named protocol, under the name of its type's chain. */
static void bh_conformance_name(bh_walk *walk, bh_image_walk *image, const bh_chain *chain) {
    bh_conformance_table *table = walk->conformances;
    if (table->failed) return;
    if (table->names_length + BH_MAX_NAME > UINT32_MAX ||
        !bh_grow((void **)&table->named, &table->named_capacity, table->named_count + 1, sizeof *table->named) ||
        !bh_grow((void **)&table->names, &table->names_capacity, table->names_length + BH_MAX_NAME, 1)) {
        table->failed = true;
        return;
    }
    char *name = table->names + table->names_length;
    long length = bh_write_name(walk, image, chain, table->names, name);
    if (length < 0) return;
    walk->named_type = chain->levels[0];
    walk->named_type_offset = table->names_length;
    walk->named_type_length = (size_t)length;
    table->named[table->named_count++] = (bh_named_conformer){
        bh_name_hash(name, (size_t)length), (uint32_t)(table->count - 1), (uint32_t)table->names_length,
        (uint32_t)length};
    table->names_length += (size_t)length;
}

/* ---- Conformances ------------------------------------------------------------------------------------------ */

static bool bh_visit_conformance_sections(const MetadataSectionsHead *sections, void *context) {
    bh_walk *walk = context;
    if (bh_in_other_image(walk, sections)) return true;
    bh_image_walk image;
    if (!bh_open_image(walk, sections, &image)) return true;
    const TargetProtocolConformanceRecord *records =
        (const TargetProtocolConformanceRecord *)sections->swift5_protocol_conformances.start;
    size_t count = sections->swift5_protocol_conformances.length / sizeof *records;
    for (size_t i = 0; i < count && !image.stopped; i++) {
        const TargetProtocolConformanceDescriptor *conformance =
            (const TargetProtocolConformanceDescriptor *)bh_direct(
                &image, &records[i].Descriptor, sizeof(TargetProtocolConformanceDescriptor), "the conformance record");
        if (!conformance) continue;
        ConformanceFlags flags = conformance->Flags;
        if (ConformanceFlags_numConditionalRequirements(flags)) continue; /* needs its arguments */
        uintptr_t type = 0;
        switch (ConformanceFlags_typeReferenceKind(flags)) {
        case TypeReferenceKind_DirectTypeDescriptor:
            type = bh_direct(&image, &conformance->TypeRef, sizeof(TargetTypeContextDescriptor),
                             "the type of the conformance descriptor");
            break;
        case TypeReferenceKind_IndirectTypeDescriptor: {
            uintptr_t slot = bh_direct(&image, &conformance->TypeRef, sizeof(void *),
                                       "the type of the conformance descriptor");
            if (slot) {
                type = *(const uintptr_t *)slot;
                if (type && !bh_find(&image, type, sizeof(TargetTypeContextDescriptor))) {
                    bh_stop(&image,
                            "the type of the conformance descriptor at %p points through a pointer to %p, outside "
                            "every loaded image", (const void *)conformance, (const void *)type);
                    type = 0;
                }
            }
            break;
        }
        default: continue; /* Objective-C classes */
        }
        if (!type) continue;
        const TargetNamedContextDescriptor *t = (const TargetNamedContextDescriptor *)type;
        if (!bh_expect_kind(&image, t, BH_KINDS_TYPES | BH_KINDS_OPAQUE_TYPE | BH_KINDS_PROTOCOL,
                            "a type, an opaque type or a protocol"))
            break;
        unsigned kind = ContextDescriptorFlags_kind(t->base.Flags);
        if (kind < ContextDescriptorKind_Class || kind > ContextDescriptorKind_Enum ||
            ContextDescriptorFlags_isGeneric(t->base.Flags) || ContextDescriptorFlags_version(t->base.Flags) != 0)
            continue;
        if (walk->anchor && (const void *)t == walk->anchor->type && !walk->anchor->conformance) {
            uintptr_t protocol = bh_indirectable(&image, &conformance->Protocol, sizeof(TargetProtocolDescriptor),
                                                 "the protocol of the conformance descriptor");
            if ((const void *)protocol == walk->anchor->protocol) {
                walk->anchor->conformance = conformance;
                walk->anchor->image = image.start;
            }
        }
        bh_chain chain;
        chain.depth = 0; /* read below, or for a conformer of the named protocol */
        if (walk->members) {
            /* The module's index answers by the descriptor's address: no parent is read. */
            if (!bh_type_index_holds_type(walk->members, t)) continue;
        } else {
            if (bh_in_other_module(&walk->module, t)) continue;
            if (!bh_read_chain_in_module(&walk->module, &image, t, &chain)) continue;
        }
        /* The protocol is followed only for a record of the module asked for: most records of an image are of other
         * modules, and most of their protocols (the standard library's) lie in another image, each found by a search
         * of every loaded segment. */
        uintptr_t protocol = bh_indirectable(&image, &conformance->Protocol, sizeof(TargetProtocolDescriptor),
                                             "the protocol of the conformance descriptor");
        if (!protocol) continue;
        const TargetNamedContextDescriptor *p = (const TargetNamedContextDescriptor *)protocol;
        if (!bh_expect_kind(&image, p, BH_KINDS_PROTOCOL, "a protocol")) break;
        bh_conformance_keep(walk->conformances, &(bh_swift_conformance){t, p, conformance, image.start});
        /* A conformer of the named protocol is kept by its name, when its metadata can be asked for. */
        if ((const void *)p == walk->conformances->named_protocol &&
            (chain.depth || bh_read_chain(&image, t, &chain)) && bh_access_function_in_code(&image, t))
            bh_conformance_name(walk, &image, &chain);
    }
    bh_close_image(walk, &image);
    return true;
}

/* Makes the table of positions; a type's second record for one protocol takes the place of its first. */
static bool bh_conformance_table_finish(bh_conformance_table *table) {
    size_t size = 16;
    while (size < table->count * 2) size *= 2;
    table->slots = calloc(size, sizeof *table->slots);
    if (!table->slots) return false;
    table->slot_count = size;
    for (size_t position = 0; position < table->count; position++) {
        const bh_swift_conformance *entry = &table->entries[position];
        size_t slot = bh_conformance_slot(entry->type, entry->protocol, size - 1);
        for (; table->slots[slot]; slot = (slot + 1) & (size - 1)) {
            const bh_swift_conformance *other = &table->entries[table->slots[slot] - 1];
            if (other->type == entry->type && other->protocol == entry->protocol) break;
        }
        table->slots[slot] = (uint32_t)position + 1;
    }
    if (!table->named_count) return true;
    for (size = 16; size < table->named_count * 2;) size *= 2;
    if (!(table->named_slots = calloc(size, sizeof *table->named_slots))) return false;
    table->named_slot_count = size;
    for (size_t position = 0; position < table->named_count; position++)
        bh_place(table->named_slots, size - 1, (size_t)table->named[position].hash & (size - 1), position);
    return true;
}

void bh_conformance_table_free(bh_conformance_table *table) {
    if (!table) return;
    free(table->entries);
    free(table->slots);
    free(table->named);
    free(table->names);
    free(table->named_slots);
    free(table);
}

bh_conformance_table *bh_swift_conformance_table(const char *module, const void *image, bh_swift_conformance *anchor,
                                                 const bh_type_index *members, const void *named_protocol,
                                                 bh_runtime_problem_fn problem, void *context) {
    bh_conformance_table *table = calloc(1, sizeof *table);
    if (!table) return NULL;
    table->named_protocol = named_protocol;
    bh_walk walk = {
        .problem = problem, .context = context, .conformances = table, .anchor = anchor, .members = members};
    if (!module || !bh_walk_all(&walk, module, image, bh_visit_conformance_sections) || table->failed ||
        !bh_conformance_table_finish(table)) {
        bh_conformance_table_free(table);
        return NULL;
    }
    return table;
}

const bh_swift_conformance *bh_conformance_table_find(
    const bh_conformance_table *table, const void *type, const void *protocol) {
    size_t mask = table->slot_count - 1;
    for (size_t slot = bh_conformance_slot(type, protocol, mask); table->slots[slot]; slot = (slot + 1) & mask) {
        const bh_swift_conformance *entry = &table->entries[table->slots[slot] - 1];
        if (entry->type == type && entry->protocol == protocol) return entry;
    }
    return NULL;
}

const bh_swift_conformance *bh_conformance_table_find_named(
    const bh_conformance_table *table, const char *name, size_t length) {
    if (!table->named_slot_count) return NULL;
    uint64_t hash = bh_name_hash(name, length);
    size_t mask = table->named_slot_count - 1;
    for (size_t slot = (size_t)hash & mask; table->named_slots[slot]; slot = (slot + 1) & mask) {
        const bh_named_conformer *named = &table->named[table->named_slots[slot] - 1];
        if (named->hash == hash && named->name_length == length &&
            memcmp(table->names + named->name_offset, name, length) == 0)
            return &table->entries[named->position];
    }
    return NULL;
}

/* ---- Names of loaded types ------------------------------------------------------------------------------- */

/* Runs `body` with the descriptor's parent chain read in the shared snapshot (taken again only when the descriptor
 * lies in no image it knows); false when the chain cannot be read. */
static bool bh_with_chain(
    const void *descriptor, bool (*body)(bh_image_walk *, const bh_chain *, void *), void *context) {
    if (!descriptor) return false;
    const bh_segment *holder = NULL;
    const bh_bounds *bounds =
        bh_bounds_shared_lock((uintptr_t)descriptor, sizeof(TargetNamedContextDescriptor), &holder);
    if (!bounds) return false;
    bool done = false;
    if (holder) {
        /* The message is written when the walk stops (bh_stop), not zeroed here (~40 instructions a name). */
        bh_image_walk walk;
        walk.bounds = bounds;
        walk.image = holder->image;
        walk.start = (const void *)bounds->image_starts[holder->image];
        walk.stopped = false;
        walk.hint = holder;
        walk.code_hint = NULL;
        walk.message[0] = 0;
        bh_chain chain;
        if (bh_read_chain(&walk, descriptor, &chain)) done = body(&walk, &chain, context);
    }
    bh_bounds_shared_unlock();
    return done;
}

typedef struct {
    const void *module;
    const void *image;
    const char **name;
} bh_module_of;

static bool bh_module_of_chain(bh_image_walk *walk, const bh_chain *chain, void *context) {
    bh_module_of *out = context;
    out->module = chain->levels[chain->depth - 1];
    out->image = walk->start;
    return !out->name || bh_level_name(walk, chain->levels[chain->depth - 1], out->name) > 0;
}

const void *bh_swift_module(const void *descriptor, const void **image, const char **name) {
    bh_module_of out = {NULL, NULL, name};
    if (!bh_with_chain(descriptor, bh_module_of_chain, &out)) return NULL;
    if (image) *image = out.image;
    return out.module;
}

typedef struct {
    char *buffer;
    size_t capacity;
    size_t length; /* what the chain's body wrote, without the NUL */
} bh_mangling;

static bool bh_mangle_chain(bh_image_walk *walk, const bh_chain *chain, void *context) {
    bh_mangling *out = context;
    size_t length = 0;
    for (size_t i = chain->depth; i-- > 0;) {
        const char *part = NULL;
        long n = bh_level_name(walk, chain->levels[i], &part);
        if (n <= 0 || !bh_is_plain_identifier(part, (size_t)n) || length + (size_t)n + 8 >= out->capacity) return false;
        length += (size_t)snprintf(out->buffer + length, out->capacity - length, "%ld%.*s", n, (int)n, part);
        unsigned kind = ContextDescriptorFlags_kind(chain->levels[i]->base.Flags);
        char letter = i + 1 == chain->depth ? 0 : bh_mangling_letter(kind);
        if (letter) out->buffer[length++] = letter;
    }
    out->buffer[length] = 0;
    out->length = length;
    return length > 0;
}

size_t bh_swift_mangled_name(const void *descriptor, char *buffer, size_t capacity) {
    bh_mangling out = {buffer, capacity, 0};
    return capacity && bh_with_chain(descriptor, bh_mangle_chain, &out) ? out.length : 0;
}

static bool bh_qualify_chain(bh_image_walk *walk, const bh_chain *chain, void *context) {
    bh_mangling *out = context;
    size_t length = 0;
    for (size_t i = chain->depth; i-- > 0;) {
        const char *part = NULL;
        long n = bh_level_name(walk, chain->levels[i], &part);
        if (n <= 0 || length + (size_t)n + 2 >= out->capacity) return false;
        if (length) out->buffer[length++] = '.';
        memcpy(out->buffer + length, part, (size_t)n);
        length += (size_t)n;
    }
    out->buffer[length] = 0;
    out->length = length;
    return length > 0;
}

/* Writes the module-qualified name of a loaded type or protocol ("Module.Outer.Inner") into `buffer`; returns its
 * length, or 0 when the descriptor's chain cannot be read or the name does not fit. Swift does not call it: hidden. */
BH_HIDDEN size_t bh_swift_qualified_name(const void *descriptor, char *buffer, size_t capacity) {
    bh_mangling out = {buffer, capacity, 0};
    return capacity && bh_with_chain(descriptor, bh_qualify_chain, &out) ? out.length : 0;
}

typedef struct {
    bh_mangling out;
    int class_bound; /* the existential's */
} bh_protocol_naming;

/* The name of the existential's one protocol, when the existential is that protocol alone: a protocol whose own class
 * constraint (bit 16 of its flags: 0 for `AnyObject`) is the existential's, not `P & AnyObject`. */
static bool bh_name_protocol_chain(bh_image_walk *walk, const bh_chain *chain, void *context) {
    bh_protocol_naming *naming = context;
    ContextDescriptorFlags flags = chain->levels[0]->base.Flags;
    if (ContextDescriptorFlags_kind(flags) != ContextDescriptorKind_Protocol) return false;
    if ((((flags >> 16) & 1) == 0) != (naming->class_bound != 0)) return false;
    return bh_qualify_chain(walk, chain, &naming->out);
}

size_t bh_swift_existential_name(const void *metadata, char *buffer, size_t capacity) {
    bh_existential_shape shape;
    if (!capacity || !bh_existential_shape_of(metadata, &shape)) return 0;
    bh_protocol_naming naming = {{buffer, capacity, 0}, shape.is_class_bound};
    return bh_with_chain(shape.protocol, bh_name_protocol_chain, &naming) ? naming.out.length : 0;
}

const char *bh_image_path(const void *address) {
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname ? info.dli_fname : NULL;
}
