/*
 * existentials.c — internal: existential metadata read, and existential containers written, through the runtime's
 * own layouts (runtime_layout.h). These are metadata the compiler and runtime made for the caller's own types (the
 * `any P` it asks for), not records of a foreign image.
 */
#include "bh_runtime.h"
#include "runtime_layout.h"

#include <string.h>

/* The one protocol of an existential `any P` with one witness table and no superclass or special protocol. */
static int bh_single_protocol(const TargetExistentialTypeMetadata *existential, bh_existential_shape *shape) {
    if (existential->Kind != MetadataKind_Existential) return 0;
    ExistentialTypeFlags flags = existential->Flags;
    if (existential->NumProtocols != 1 || ExistentialTypeFlags_numWitnessTables(flags) != 1 ||
        ExistentialTypeFlags_hasSuperclassOrSpecial(flags))
        return 0;
    uintptr_t reference = existential->Protocols[0];
    if (reference & 1 || !reference) return 0; /* an Objective-C protocol */
    shape->protocol = (const void *)reference;
    shape->is_class_bound = ExistentialTypeFlags_isClassBound(flags);
    shape->size = shape->is_class_bound ? sizeof(ClassExistentialContainer) + sizeof(void *)
                                        : sizeof(OpaqueExistentialContainer) + sizeof(void *);
    return 1;
}

int bh_existential_shape_of(const void *metadata, bh_existential_shape *shape) {
    return metadata && bh_single_protocol(metadata, shape);
}

int bh_existential_metatype_shape_of(const void *metadata, bh_existential_shape *shape) {
    const TargetExistentialMetatypeMetadata *metatype = metadata;
    if (!metatype || metatype->Kind != MetadataKind_ExistentialMetatype || !metatype->InstanceType ||
        ExistentialTypeFlags_numWitnessTables(metatype->Flags) != 1)
        return 0;
    if (!bh_single_protocol(metatype->InstanceType, shape)) return 0;
    shape->size = sizeof(ExistentialMetatypeContainer) + sizeof(void *);
    return 1;
}

const void *bh_any_type(const void *any_container) { return ((const OpaqueExistentialContainer *)any_container)->Type; }

void bh_existential_make(const bh_existential_shape *shape, void *any_container, const void *witness_table, void *out) {
    OpaqueExistentialContainer *any = any_container;
    if (shape->is_class_bound) {
        ClassExistentialContainer *container = out;
        container->Value = any->Buffer[0]; /* the reference, whose ownership moves to `out` */
        container->WitnessTables[0] = witness_table;
    } else {
        OpaqueExistentialContainer *container = out;
        memcpy(container, any, sizeof *any); /* the value buffer and type, whose ownership moves to `out` */
        container->WitnessTables[0] = witness_table;
    }
}

void bh_existential_metatype_make(const void *type, const void *witness_table, void *out) {
    ExistentialMetatypeContainer *container = out;
    container->Value = type;
    container->WitnessTables[0] = witness_table;
}

void bh_existential_parts(
    const bh_existential_shape *shape, int is_metatype, const void *container, const void **type,
    const void **witness_table) {
    if (is_metatype) {
        const ExistentialMetatypeContainer *metatype = container;
        *type = metatype->Value;
        *witness_table = metatype->WitnessTables[0];
    } else if (shape->is_class_bound) {
        const ClassExistentialContainer *object = container;
        *type = object->Value;
        *witness_table = object->WitnessTables[0];
    } else {
        const OpaqueExistentialContainer *opaque = container;
        *type = opaque->Type;
        *witness_table = opaque->WitnessTables[0];
    }
}
