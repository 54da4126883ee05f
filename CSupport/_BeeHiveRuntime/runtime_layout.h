/*
 * runtime_layout.h — internal: mirrors of the Swift runtime's own structures, named after them (swift/ABI/Metadata.h,
 * swift/shims/MetadataSections.h, swift/ABI/MetadataValues.h). Every layout BeeHive reads is spelled here, once, and
 * nowhere else: the walks (swift_types.c) and the existentials (existentials.c) read fields by name, never by offset.
 *
 * Only the heads that BeeHive reads are mirrored; a descriptor's trailing objects are never touched.
 */
#ifndef BH_RUNTIME_LAYOUT_H
#define BH_RUNTIME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* ---- swift/shims/MetadataSections.h ------------------------------------------------------------ */

/* MetadataSectionRange: one section of an image, as the image registered it with the runtime. */
typedef struct {
    uintptr_t start;
    size_t length;
} MetadataSectionRange;

/* The head of MetadataSections: the fields up to swift5_type_metadata, the same in versions 1 to 5 (later versions
 * append ranges). Version 0 was another layout (relative pointers). */
typedef struct {
    uintptr_t version;
    const void *baseAddress;
    void *unused0;
    void *unused1;
    MetadataSectionRange swift5_protocols;
    MetadataSectionRange swift5_protocol_conformances;
    MetadataSectionRange swift5_type_metadata;
} MetadataSectionsHead;

enum {
    BH_METADATA_SECTIONS_OLDEST_VERSION = 1, /* the head above */
    BH_METADATA_SECTIONS_NEWEST_VERSION = 5, /* Swift 6.3; a newer one is not read (the runtime's path serves it) */
};

/* ---- Relative pointers (swift/Basic/RelativePointer.h) ------------------------------------------ */

/* RelativeDirectPointer<T>: a 32-bit offset from the field's own address; 0 is null. */
typedef struct {
    int32_t offset;
} RelativeDirectPointer;

/* RelativeIndirectablePointer<T>: the same, but an odd offset points (offset & ~1) at a pointer to the target. */
typedef struct {
    int32_t offset;
} RelativeIndirectablePointer;

/* ---- Context descriptors (swift/ABI/Metadata.h) --------------------------------------------------- */

/* ContextDescriptorKind */
enum {
    ContextDescriptorKind_Module = 0,
    ContextDescriptorKind_Extension = 1,
    ContextDescriptorKind_Anonymous = 2,
    ContextDescriptorKind_Protocol = 3,
    ContextDescriptorKind_OpaqueType = 4,
    ContextDescriptorKind_Class = 16,
    ContextDescriptorKind_Struct = 17,
    ContextDescriptorKind_Enum = 18,
};

/* ContextDescriptorFlags: kind in bits 0–4, generic in bit 7, the descriptor's format version in bits 8–15. */
typedef uint32_t ContextDescriptorFlags;
static inline unsigned ContextDescriptorFlags_kind(ContextDescriptorFlags flags) { return flags & 0x1f; }
static inline int ContextDescriptorFlags_isGeneric(ContextDescriptorFlags flags) { return (flags & 0x80) != 0; }
static inline unsigned ContextDescriptorFlags_version(ContextDescriptorFlags flags) { return (flags >> 8) & 0xff; }

/* TargetContextDescriptor: the head of every context descriptor. */
typedef struct {
    ContextDescriptorFlags Flags;
    RelativeIndirectablePointer Parent;
} TargetContextDescriptor;

/* TargetModuleContextDescriptor */
typedef struct {
    TargetContextDescriptor base;
    RelativeDirectPointer Name; /* const char * */
} TargetModuleContextDescriptor;

/* TargetProtocolDescriptor (its head) */
typedef struct {
    TargetContextDescriptor base;
    RelativeDirectPointer Name; /* const char * */
} TargetProtocolDescriptor;

/* TargetTypeContextDescriptor: the head of class, struct and enum descriptors. */
typedef struct {
    TargetContextDescriptor base;
    RelativeDirectPointer Name;              /* const char * */
    RelativeDirectPointer AccessFunctionPtr; /* MetadataResponse (*)(MetadataRequest), swiftcall */
    RelativeDirectPointer Fields;
} TargetTypeContextDescriptor;

/* The head that every named context (module, protocol, type) shares: flags, parent, name. */
typedef struct {
    TargetContextDescriptor base;
    RelativeDirectPointer Name;
} TargetNamedContextDescriptor;

/* ---- Records of the metadata sections ---------------------------------------------------------------- */

/* TypeReferenceKind (the low bits of a type metadata record; bits 3–5 of a conformance's flags) */
enum {
    TypeReferenceKind_DirectTypeDescriptor = 0,
    TypeReferenceKind_IndirectTypeDescriptor = 1,
    TypeReferenceKind_DirectObjCClassName = 2,
    TypeReferenceKind_IndirectObjCClass = 3,
};

/* TargetTypeMetadataRecord: one entry of swift5_type_metadata; its low two bits are a TypeReferenceKind. */
typedef struct {
    int32_t TypeRef;
} TargetTypeMetadataRecord;

/* TargetProtocolRecord: one entry of swift5_protocols. */
typedef struct {
    RelativeIndirectablePointer Protocol;
} TargetProtocolRecord;

/* TargetProtocolConformanceRecord: one entry of swift5_protocol_conformances. */
typedef struct {
    RelativeDirectPointer Descriptor; /* TargetProtocolConformanceDescriptor */
} TargetProtocolConformanceRecord;

/* ConformanceFlags */
typedef uint32_t ConformanceFlags;
static inline unsigned ConformanceFlags_typeReferenceKind(ConformanceFlags flags) { return (flags >> 3) & 7; }
static inline unsigned ConformanceFlags_numConditionalRequirements(ConformanceFlags flags) {
    return (flags >> 8) & 0xff;
}

/* TargetProtocolConformanceDescriptor (its head) */
typedef struct {
    RelativeIndirectablePointer Protocol; /* TargetProtocolDescriptor */
    RelativeDirectPointer TypeRef;        /* interpreted by Flags' TypeReferenceKind */
    RelativeDirectPointer WitnessTablePattern;
    ConformanceFlags Flags;
} TargetProtocolConformanceDescriptor;

/* ---- Metadata and existential containers -------------------------------------------------------------- */

/* MetadataKind */
enum {
    MetadataKind_Existential = 0x303,
    MetadataKind_ExistentialMetatype = 0x306,
};

/* ExistentialTypeFlags: witness table count in bits 0–23, a superclass constraint in bit 30, a special protocol
 * (Error) in bits 24–29, and bit 31 set when the existential is *not* class-bound. */
typedef uint32_t ExistentialTypeFlags;
static inline unsigned ExistentialTypeFlags_numWitnessTables(ExistentialTypeFlags flags) { return flags & 0xffffff; }
static inline int ExistentialTypeFlags_hasSuperclassOrSpecial(ExistentialTypeFlags flags) {
    return (flags & 0x7f000000) != 0;
}
static inline int ExistentialTypeFlags_isClassBound(ExistentialTypeFlags flags) { return (flags & 0x80000000) == 0; }

/* TargetExistentialTypeMetadata: `any P`; its protocols (ProtocolDescriptorRef, low bit set for Objective-C)
 * follow. */
typedef struct {
    uintptr_t Kind;
    ExistentialTypeFlags Flags;
    uint32_t NumProtocols;
    uintptr_t Protocols[]; /* ProtocolDescriptorRef */
} TargetExistentialTypeMetadata;

/* TargetExistentialMetatypeMetadata: `any P.Type`. */
typedef struct {
    uintptr_t Kind;
    const void *InstanceType; /* the existential `any P` */
    ExistentialTypeFlags Flags;
} TargetExistentialMetatypeMetadata;

/* OpaqueExistentialContainer: `any P` of a protocol not bound to classes; also `Any` (no witness table). */
typedef struct {
    void *Buffer[3];
    const void *Type;
    const void *WitnessTables[];
} OpaqueExistentialContainer;

/* ClassExistentialContainer: a class-bound `any P`. */
typedef struct {
    void *Value;
    const void *WitnessTables[];
} ClassExistentialContainer;

/* ExistentialMetatypeContainer: `any P.Type`. */
typedef struct {
    const void *Value;
    const void *WitnessTables[];
} ExistentialMetatypeContainer;

/* MetadataResponse (*)(MetadataRequest): the Swift calling convention; request 0 asks for complete metadata. */
typedef struct {
    const void *Value;
    size_t State;
} MetadataResponse;
typedef MetadataResponse (*MetadataAccessFunction)(size_t request) __attribute__((swiftcall));

#endif /* BH_RUNTIME_LAYOUT_H */
