/*
 * runtime_calls.c — internal: what the Swift runtime itself answers (metadata access functions, witness tables,
 * conformance checks, type descriptors), through its exports, declared weak: without a Swift runtime these answer
 * NULL and BeeHive uses the runtime's Swift-level look-ups instead.
 */
#include "bh_runtime.h"
#include "runtime_layout.h"

#include <stdbool.h>

extern const void *swift_conformsToProtocol(const void *type, const void *protocol) __attribute__((weak));
extern const void *swift_getWitnessTable(const void *conformance, const void *type, const void *const *arguments)
    __attribute__((weak));
extern const void *swift_getTypeContextDescriptor(const void *type) __attribute__((weak, swiftcall));

const void *bh_swift_type_metadata(const void *descriptor) {
    const TargetTypeContextDescriptor *type = descriptor;
    unsigned kind = ContextDescriptorFlags_kind(type->base.Flags);
    if (kind < ContextDescriptorKind_Class || kind > ContextDescriptorKind_Enum ||
        ContextDescriptorFlags_isGeneric(type->base.Flags) || !type->AccessFunctionPtr.offset)
        return NULL;
    /* The walk that gave the descriptor checked its head; the access function is the image's own code. */
    MetadataAccessFunction access =
        (MetadataAccessFunction)((uintptr_t)&type->AccessFunctionPtr + (intptr_t)type->AccessFunctionPtr.offset);
    return access(0).Value;
}

const void *bh_swift_witness_table(const void *conformance, const void *type) {
    if (!swift_getWitnessTable || !conformance || !type) return NULL;
    return swift_getWitnessTable(conformance, type, NULL);
}

const void *bh_swift_conforms_to_protocol(const void *metadata, const void *protocol_descriptor) {
    if (!swift_conformsToProtocol || !metadata || !protocol_descriptor) return NULL;
    return swift_conformsToProtocol(metadata, protocol_descriptor);
}

const void *bh_swift_type_descriptor(const void *type) {
    return swift_getTypeContextDescriptor && type ? swift_getTypeContextDescriptor(type) : NULL;
}

