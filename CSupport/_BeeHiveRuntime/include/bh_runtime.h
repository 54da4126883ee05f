/*
 * bh_runtime.h — internal: BeeHive's room for the Swift runtime. Everything that reads the runtime's layouts (the
 * metadata sections each image registers, context and conformance descriptors, existential metadata and containers)
 * is behind these functions; the layouts themselves are mirrored once, in runtime_layout.h.
 *
 * Nothing read from an image is believed: every pointer read from an image's metadata is checked to lie inside that
 * image's readable PT_LOAD segments (or, for a pointer loaded through an indirection, inside some loaded image's)
 * before it is followed, names are read with a bound, and the metadata sections' version and every descriptor's kind
 * and format version are checked. A walk that finds a pointer outside stops for that image and reports one problem.
 */
#ifndef BH_RUNTIME_H
#define BH_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Walks of the loaded images' metadata ---------------------------------------------------------------- */

/* A nominal type or protocol of a loaded Swift image. `name` ("Module.Outer.Inner") lives as long as its index. */
typedef struct {
    const char *name;
    size_t name_length;
    const void *descriptor; /* the type's or protocol's context descriptor */
    const void *image;      /* the lowest address of the image that defines it */
    unsigned kind;          /* 3 protocol, 16 class, 17 struct, 18 enum */
    int is_generic;
} bh_swift_type;

/* What a walk found wrong with an image. */
typedef enum {
    /* A pointer outside the image's readable segments, an unterminated name, a record that is no descriptor of the
     * kind it must be: the walk stopped for this image, and nothing of it is used. */
    BH_RUNTIME_CORRUPT = 1,
    /* Metadata sections or descriptors of a format version BeeHive does not know: the image is not read, and the
     * runtime's own look-ups serve it. */
    BH_RUNTIME_UNKNOWN_VERSION = 2,
} bh_runtime_problem_kind;

typedef struct {
    bh_runtime_problem_kind kind;
    const void *image; /* the lowest address of the image */
    const char *message; /* "the name of the context descriptor at 0x… points to 0x…, outside the image's readable
                            segments" */
} bh_runtime_problem;

typedef void (*bh_runtime_problem_fn)(void *context, const bh_runtime_problem *problem);

/* The nominal types and protocols of one module, indexed by qualified name. Immutable once made (but for
 * `bh_type_index_drop_image`, before it is shared); freed with `bh_type_index_free`. */
typedef struct bh_type_index bh_type_index;

/* Indexes every nominal type and protocol of module `module` (every module when NULL) that has a module-qualified
 * name (not private, local or declared in an extension), in every Swift image loaded (only in the one that holds the
 * address `near`, when not NULL), and calls `problem` once for each image read that cannot be read. NULL when the
 * runtime cannot enumerate its images, no loaded image holds `near`, or memory ran out. */
bh_type_index *bh_swift_type_index(const char *module, const void *near, bh_runtime_problem_fn problem,
                                   void *context);
void bh_type_index_free(bh_type_index *index);

/* The type at `position` (in the walk's order; its name lives as long as the index): 1, or 0 when it was dropped, -1
 * when the position is past the end. */
int bh_type_index_entry(const bh_type_index *index, size_t position, bh_swift_type *type);

/* The positions of the types named `name` (`length` bytes), in the walk's order, at most `capacity` of them into
 * `positions`; returns how many there are. */
size_t bh_type_index_find(const bh_type_index *index, const char *name, size_t length, size_t *positions,
                          size_t capacity);

/* The name of the one protocol of the existential `metadata` (`any P`, as `bh_swift_existential_name` spells it),
 * when the index holds that protocol: its length, and in `name` where it lies (as long as the index); 0 otherwise. */
size_t bh_type_index_existential_name(const bh_type_index *index, const void *metadata, const char **name);

/* Leaves the types of the image `image` (its lowest address) out of every later answer. */
void bh_type_index_drop_image(bh_type_index *index, const void *image);

/* Whether the index holds the class, struct or enum whose descriptor is `descriptor` (not dropped). */
int bh_type_index_holds_type(const bh_type_index *index, const void *descriptor);

/* A conformance record: `type` (a non-generic type's descriptor) conforms to `protocol` (a protocol descriptor), with
 * no conditional requirement; `conformance` is its protocol conformance descriptor, in `image`. */
typedef struct {
    const void *type;
    const void *protocol;
    const void *conformance;
    const void *image;
} bh_swift_conformance;

/* The conformance records of the types of module `module` in the Swift image that holds the address `image` (every
 * Swift image loaded when NULL), kept in a table by type and protocol (a type's last record for a protocol answers);
 * `problem` is called once for each image read that cannot be read. `members`, when not NULL, is an index of the
 * module's types that covers that image: a record's type is then looked up in it, where its chain of parents would be
 * read and its module compared. `anchor`, when not NULL, names a conformance of
 * any module by its `type` and `protocol` descriptors: the walk fills in its `conformance` and `image` when it meets
 * its record, read as every record is. `named_protocol`, when not NULL, is a protocol descriptor whose conformers
 * (those whose access function is code of their image) are kept by their module-qualified names too. NULL when the
 * runtime cannot enumerate the images, no loaded image holds `image`, or memory ran out. Immutable; freed with
 * `bh_conformance_table_free`. */
typedef struct bh_conformance_table bh_conformance_table;
bh_conformance_table *bh_swift_conformance_table(const char *module, const void *image, bh_swift_conformance *anchor,
                                                 const bh_type_index *members, const void *named_protocol,
                                                 bh_runtime_problem_fn problem, void *context);
void bh_conformance_table_free(bh_conformance_table *table);

/* The record of `type`'s (a type descriptor) conformance to `protocol` (a protocol descriptor), or NULL. */
const bh_swift_conformance *bh_conformance_table_find(
    const bh_conformance_table *table, const void *type, const void *protocol);

/* The record of the conformance to the table's named protocol of the type named `name` (`length` bytes,
 * module-qualified: `Module.Outer.Inner`), or NULL. */
const bh_swift_conformance *bh_conformance_table_find_named(
    const bh_conformance_table *table, const char *name, size_t length);

/* ---- Types, conformances and existentials --------------------------------------------------------------------- */

/* The complete metadata of a non-generic type, from its descriptor's access function; NULL for other kinds. The
 * descriptor must be one a walk gave. */
const void *bh_swift_type_metadata(const void *descriptor);

/* The witness table of `type` (metadata) for a conformance that `bh_swift_conformance_table` gave
 * (swift_getWitnessTable). */
const void *bh_swift_witness_table(const void *conformance, const void *type);

/* The runtime's own answer: the witness table of `type`'s conformance to the protocol (swift_conformsToProtocol, the
 * scan that a cast makes), or NULL. */
const void *bh_swift_conforms_to_protocol(const void *metadata, const void *protocol_descriptor);

/* The context descriptor of a class, struct or enum (metadata), or NULL. */
const void *bh_swift_type_descriptor(const void *type);

/* The module context descriptor a context descriptor of a loaded type belongs to (its descriptor came from the
 * runtime), or NULL; the parent chain is followed only inside loaded images' readable segments. When `image` is not
 * NULL, it receives the lowest address of the image that holds the descriptor; when `name` is not NULL, the module's
 * name (read only then). */
const void *bh_swift_module(const void *descriptor, const void **image, const char **name);

/* Writes the name of a type a walk gave as the runtime's look-up by mangled name takes it ("6Module5OuterV5InnerC":
 * each level's kind read from its descriptor) into `buffer`; returns its length, or 0 when it cannot be spelt so
 * (identifiers that need Punycode, too long). */
size_t bh_swift_mangled_name(const void *descriptor, char *buffer, size_t capacity);

/* Writes the name of the existential `metadata` as the runtime prints it ("Module.P") when it is `any P` of one Swift
 * protocol, alone (not composed with `AnyObject` or a class); returns its length, or 0 for any other type or a chain
 * that cannot be read. */
size_t bh_swift_existential_name(const void *metadata, char *buffer, size_t capacity);

/* The path of the loaded image that holds `address` (dladdr), or NULL; the string lives while the image is loaded. */
const char *bh_image_path(const void *address);

/* The shape of an existential type that BeeHive can assemble: one protocol, one witness table, no superclass
 * constraint, no special protocol (Error). */
typedef struct {
    const void *protocol; /* the protocol descriptor */
    int is_class_bound;
    size_t size; /* of the existential container: 40 (opaque), 16 (class-bound) */
} bh_existential_shape;

/* The shape of the existential `metadata` (`any P`); 0 when it is of another kind or shape. */
int bh_existential_shape_of(const void *metadata, bh_existential_shape *shape);

/* The shape of the existential metatype `metadata` (`any P.Type`), whose container is 16 bytes; 0 when it is of
 * another kind or shape. */
int bh_existential_metatype_shape_of(const void *metadata, bh_existential_shape *shape);

/* The type (metadata) held by an `Any` container, or by any opaque existential's (`any P`: the same buffer and type,
 * then witness tables). */
const void *bh_any_type(const void *any_container);

/* Writes the existential of `shape` into `out` (shape->size bytes): from the `Any` container `any_container`, whose
 * value (and its ownership) moves into `out`, and the witness table. */
void bh_existential_make(const bh_existential_shape *shape, void *any_container, const void *witness_table, void *out);

/* Writes the existential metatype (16 bytes) of `type` (metadata) and the witness table into `out`. */
void bh_existential_metatype_make(const void *type, const void *witness_table, void *out);

/* The type and witness table that an existential `container` of `shape` holds (of a metatype when `is_metatype`). */
void bh_existential_parts(
    const bh_existential_shape *shape, int is_metatype, const void *container, const void **type,
    const void **witness_table);

#ifdef __cplusplus
}
#endif

#endif /* BH_RUNTIME_H */
