/*
 * swift_types.c — internal: the nominal types and protocols of every loaded Swift image, read from the metadata
 * sections that each image registered with the Swift runtime (swift_enumerateAllMetadataSections).
 *
 * This is how BeeHive finds a type by its module-qualified name without the runtime's look-up by mangled name,
 * which scans every type record of the process for each name: one walk over the records of the modules asked
 * for serves every name at once, and a type's metadata comes from its own access function.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "bh_scanner.h"

#include <dlfcn.h>

#include <stdbool.h>
#include <string.h>

/* The runtime's view of one image's metadata sections (swift/shims/MetadataSections.h); only the head is read. */
typedef struct {
    uintptr_t start;
    size_t length;
} bh_range;
typedef struct {
    uintptr_t version;
    const void *base_address;
    void *unused0, *unused1;
    bh_range protocols;
    bh_range protocol_conformances;
    bh_range type_metadata;
} bh_metadata_sections;

extern void swift_enumerateAllMetadataSections(bool (*body)(const bh_metadata_sections *, void *), void *context)
    __attribute__((weak));
extern const void *swift_conformsToProtocol(const void *type, const void *protocol) __attribute__((weak));
extern const void *swift_getWitnessTable(const void *conformance, const void *type, const void *const *arguments)
    __attribute__((weak));
extern const void *swift_getTypeContextDescriptor(const void *type) __attribute__((weak, swiftcall));

enum {
    BH_CONTEXT_MODULE = 0,
    BH_CONTEXT_PROTOCOL = 3,
    BH_CONTEXT_CLASS = 16,
    BH_CONTEXT_STRUCT = 17,
    BH_CONTEXT_ENUM = 18,
    BH_CONTEXT_GENERIC = 0x80, /* flags bit: the context has generic parameters */
    BH_MAX_DEPTH = 8,          /* nesting levels below the module */
    BH_MAX_NAME = 512,         /* bytes of a qualified name */
};

static const char *bh_relative(const void *field) {
    int32_t offset;
    memcpy(&offset, field, sizeof offset);
    return offset ? (const char *)field + offset : NULL;
}

/* A relative pointer whose low bit says it points at a pointer to the target (the parent field). */
static const void *bh_relative_indirectable(const void *field) {
    int32_t offset;
    memcpy(&offset, field, sizeof offset);
    if (!offset) return NULL;
    const char *target = (const char *)field + (offset & ~1);
    return (offset & 1) ? *(const void *const *)target : target;
}

static unsigned bh_context_kind(const void *descriptor) { return *(const uint32_t *)descriptor & 0x1f; }

static bool bh_is_named(unsigned kind) {
    return kind == BH_CONTEXT_MODULE || kind == BH_CONTEXT_PROTOCOL ||
           (kind >= BH_CONTEXT_CLASS && kind <= BH_CONTEXT_ENUM);
}

/* Writes "Module.Outer.Inner" for a named descriptor whose ancestors are all named (no extension, no private or
 * local context); returns its length, or 0 when it has no such name. */
static size_t bh_qualified_name(const void *descriptor, char *buffer, size_t capacity) {
    const void *chain[BH_MAX_DEPTH + 2];
    size_t depth = 0;
    for (const void *d = descriptor; d; d = bh_relative_indirectable((const char *)d + 4)) {
        if (depth == BH_MAX_DEPTH + 2 || !bh_is_named(bh_context_kind(d))) return 0;
        chain[depth++] = d;
        if (bh_context_kind(d) == BH_CONTEXT_MODULE) break;
    }
    if (depth < 2 || bh_context_kind(chain[depth - 1]) != BH_CONTEXT_MODULE) return 0;
    size_t length = 0;
    for (size_t i = depth; i-- > 0;) {
        const char *name = bh_relative((const char *)chain[i] + 8);
        if (!name) return 0;
        size_t n = strnlen(name, capacity);
        if (length + n + 1 >= capacity) return 0;
        if (length) buffer[length++] = '.';
        memcpy(buffer + length, name, n);
        length += n;
    }
    buffer[length] = 0;
    return length;
}

/* The module name of a named descriptor (the root of its parent chain), or NULL. */
static const char *bh_module_name(const void *descriptor) {
    const void *d = descriptor;
    for (size_t depth = 0; d && depth < BH_MAX_DEPTH + 2; depth++) {
        if (bh_context_kind(d) == BH_CONTEXT_MODULE) return bh_relative((const char *)d + 8);
        d = bh_relative_indirectable((const char *)d + 4);
    }
    return NULL;
}

/* Whether a class, struct or enum descriptor has no generic parameters (then its access function makes it). */
static bool bh_is_nongeneric_type(const void *descriptor) {
    unsigned kind = bh_context_kind(descriptor);
    return kind >= BH_CONTEXT_CLASS && kind <= BH_CONTEXT_ENUM && !(*(const uint32_t *)descriptor & BH_CONTEXT_GENERIC);
}

/* Keeps the descriptors of one module (every module when `wanted` is NULL). Records of one module come together, so
 * the last module name compared (its address) is remembered. */
typedef struct {
    const char *wanted;
    const char *last;
    bool last_match;
} bh_module_filter;

static bool bh_module_matches(bh_module_filter *filter, const void *descriptor) {
    if (!filter->wanted) return true;
    const char *module = bh_module_name(descriptor);
    if (!module) return false;
    if (module != filter->last) {
        filter->last = module;
        filter->last_match = strcmp(module, filter->wanted) == 0;
    }
    return filter->last_match;
}

typedef struct {
    bh_module_filter module;
    bh_swift_type_fn visit;
    void *context;
} bh_walk_types;

static void bh_report(bh_walk_types *walk, const void *descriptor, const void *image, unsigned kind) {
    if (!bh_module_matches(&walk->module, descriptor)) return;
    char name[BH_MAX_NAME];
    size_t length = bh_qualified_name(descriptor, name, sizeof name);
    if (!length) return;
    bh_swift_type type = {name, length, descriptor, image, kind,
                          (*(const uint32_t *)descriptor & BH_CONTEXT_GENERIC) != 0};
    walk->visit(walk->context, &type);
}

static bool bh_visit_sections(const bh_metadata_sections *sections, void *context) {
    bh_walk_types *walk = context;
    const int32_t *records = (const int32_t *)sections->type_metadata.start;
    for (size_t i = 0; records && i < sections->type_metadata.length / sizeof *records; i++) {
        int32_t offset = records[i];
        const char *target = (const char *)&records[i] + (offset & ~3);
        const void *descriptor = NULL;
        switch (offset & 3) {
        case 0: descriptor = target; break;                           /* a direct type descriptor */
        case 1: descriptor = *(const void *const *)target; break;     /* an indirect one */
        default: continue;                                            /* Objective-C class names */
        }
        if (!descriptor || offset == 0) continue;
        unsigned kind = bh_context_kind(descriptor);
        if (kind >= BH_CONTEXT_CLASS && kind <= BH_CONTEXT_ENUM) bh_report(walk, descriptor, sections->base_address, kind);
    }
    const int32_t *protocols = (const int32_t *)sections->protocols.start;
    for (size_t i = 0; protocols && i < sections->protocols.length / sizeof *protocols; i++) {
        const void *descriptor = bh_relative_indirectable(&protocols[i]);
        if (descriptor && bh_context_kind(descriptor) == BH_CONTEXT_PROTOCOL)
            bh_report(walk, descriptor, sections->base_address, BH_CONTEXT_PROTOCOL);
    }
    return true;
}

int bh_swift_types(const char *module, bh_swift_type_fn visit, void *context) {
    if (!swift_enumerateAllMetadataSections) return 0;
    bh_walk_types walk = {{module, NULL, false}, visit, context};
    swift_enumerateAllMetadataSections(bh_visit_sections, &walk);
    return 1;
}

/* MetadataResponse (*)(MetadataRequest): the Swift calling convention; request 0 asks for complete metadata. */
typedef struct {
    const void *metadata;
    size_t state;
} bh_metadata_response;
typedef bh_metadata_response (*bh_access_function)(size_t request) __attribute__((swiftcall));

const void *bh_swift_type_metadata(const void *descriptor) {
    if (!bh_is_nongeneric_type(descriptor)) return NULL;
    const char *function = bh_relative((const char *)descriptor + 12);
    if (!function) return NULL;
    return ((bh_access_function)(uintptr_t)function)(0).metadata;
}

int bh_swift_conforms(const void *metadata, const void *protocol_descriptor) {
    if (!swift_conformsToProtocol || !metadata || !protocol_descriptor) return 0;
    return swift_conformsToProtocol(metadata, protocol_descriptor) != NULL;
}

const char *bh_image_path(const void *address) {
    Dl_info info;
    return dladdr(address, &info) && info.dli_fname ? info.dli_fname : NULL;
}

/* ---- Conformances ---------------------------------------------------------------------------------- */

typedef struct {
    bh_module_filter module;
    bh_swift_conformance_fn visit;
    void *context;
} bh_walk_conformances;

enum {
    BH_CONFORMANCE_TYPE_REFERENCE_SHIFT = 3, /* ConformanceFlags: TypeReferenceKind, 3 bits */
    BH_CONFORMANCE_CONDITIONAL_SHIFT = 8,    /* ConformanceFlags: NumConditionalRequirements, 8 bits */
};

static bool bh_visit_conformance_sections(const bh_metadata_sections *sections, void *context) {
    bh_walk_conformances *walk = context;
    const int32_t *records = (const int32_t *)sections->protocol_conformances.start;
    for (size_t i = 0; records && i < sections->protocol_conformances.length / sizeof *records; i++) {
        const char *conformance = bh_relative(&records[i]);
        if (!conformance) continue;
        uint32_t flags;
        memcpy(&flags, conformance + 12, sizeof flags);
        if ((flags >> BH_CONFORMANCE_CONDITIONAL_SHIFT) & 0xff) continue; /* conditional: needs its arguments */
        const void *type = NULL;
        switch ((flags >> BH_CONFORMANCE_TYPE_REFERENCE_SHIFT) & 7) {
        case 0: type = bh_relative(conformance + 4); break; /* a direct type descriptor */
        case 1: {                                           /* an indirect one */
            const char *slot = bh_relative(conformance + 4);
            type = slot ? *(const void *const *)slot : NULL;
            break;
        }
        default: continue; /* Objective-C classes */
        }
        const void *protocol = bh_relative_indirectable(conformance);
        if (!type || !protocol || !bh_is_nongeneric_type(type) || !bh_module_matches(&walk->module, type)) continue;
        walk->visit(walk->context, type, protocol, conformance);
    }
    return true;
}

int bh_swift_conformances(const char *module, bh_swift_conformance_fn visit, void *context) {
    if (!swift_enumerateAllMetadataSections || !module) return 0;
    bh_walk_conformances walk = {{module, NULL, false}, visit, context};
    swift_enumerateAllMetadataSections(bh_visit_conformance_sections, &walk);
    return 1;
}

const void *bh_swift_witness_table(const void *conformance, const void *type) {
    if (!swift_getWitnessTable || !conformance || !type) return NULL;
    return swift_getWitnessTable(conformance, type, NULL);
}

const void *bh_swift_type_descriptor(const void *type) {
    return swift_getTypeContextDescriptor && type ? swift_getTypeContextDescriptor(type) : NULL;
}

const char *bh_swift_module_name(const void *descriptor) { return descriptor ? bh_module_name(descriptor) : NULL; }
