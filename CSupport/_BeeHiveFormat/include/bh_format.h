/*
 * bh_format.h — the record format's constants, defined once (Docs/RecordFormat.md).
 *
 * beehive.h writes with them, the load-time scanner (_BeeHiveScanner) and the tool's file reader
 * (_BeeHiveInspect) read with them, and Swift reads them through this module (_BeeHiveDiscovery's
 * `RecordFormat`). The Swift macro plugin, which cannot import C, keeps a copy that a test compares with this
 * file (Tests/BeeHiveMacrosTests/FormatPinTests.swift). Header-only: macros and enumerations, nothing to link.
 *
 * Integer macros are plain decimal or hexadecimal literals without a suffix: beehive.h stringifies some of them
 * into assembly.
 */
#ifndef BH_FORMAT_H
#define BH_FORMAT_H

/* ---- Record sections: default names ---------------------------------------------- */

#define BH_FORMAT_SERVICES_SECTION "beehive_services"
#define BH_FORMAT_MODULES_SECTION "beehive_mods"
#define BH_FORMAT_ROUTES_SECTION "beehive_routes"
/* Typed records of the Swift macros (format version 2). */
#define BH_FORMAT_TYPES_SECTION "beehive_types"

/* ---- The image note ---------------------------------------------------------------- */

/* The section that holds the note in object files (the linker puts it in a PT_NOTE segment). */
#define BH_FORMAT_NOTE_SECTION ".note.beehive"
/* The note's owner (namesz = 8 with its NUL) and type. */
#define BH_FORMAT_NOTE_OWNER "BeeHive"
#define BH_FORMAT_NOTE_OWNER_SIZE 8
#define BH_FORMAT_NOTE_TYPE 1
/* Format versions readers accept; writers write the newest. 2: "file" and "line" in records; typed records.
 * 3: the note says where its record sections lie in memory (a table of bounds before the entries). */
#define BH_FORMAT_OLDEST_VERSION 1
#define BH_FORMAT_NEWEST_VERSION 3
/* The version of the Swift macros' records (Swift records, below; version 2 wrote a note and typed records). */
#define BH_FORMAT_SWIFT_MACROS_VERSION 3

/* Version 3's descriptor: u32 version, u32 count, u32 entry size, then `count` entries of `entry size` bytes
 * (u32 kind, i32 start, i32 stop, u32 reserved: start and stop are the section's bounds, __start_<section> and
 * __stop_<section>, relative to the descriptor's first byte), then the "kind=section" entries of version 2. A reader
 * of version 3 reads the first 12 bytes of each entry and skips the rest: a later version may add fields. */
#define BH_FORMAT_BOUNDS_HEADER_SIZE 12
#define BH_FORMAT_BOUNDS_ENTRY_SIZE 16
#define BH_FORMAT_BOUNDS_ENTRY_MIN_SIZE 12

/* What the records of a section declare: the one C spelling of a record kind, for the scanner (bh_scanner.h), the
 * tool's reader (bh_inspect.h) and Swift (_BeeHiveDiscovery's `RecordKind`). The first BH_FORMAT_KIND_COUNT are
 * the kinds of a note's "kind=section" entries (their prefixes below); BH_FORMAT_KIND_SWIFT_RECORDS is never named by
 * a note: the scanner finds those records through the Swift runtime. */
typedef enum {
    BH_FORMAT_KIND_SERVICES = 0,
    BH_FORMAT_KIND_MODULES = 1,
    BH_FORMAT_KIND_ROUTES = 2,
    BH_FORMAT_KIND_TYPES = 3,         /* typed records of the Swift macros: read from memory (relocated pointers) */
    BH_FORMAT_KIND_SWIFT_RECORDS = 4, /* the Swift macros' records of format 3, in swift5_tests */
} bh_format_kind;
#define BH_FORMAT_KIND_COUNT 4

#define BH_FORMAT_SERVICES_PREFIX "services="
#define BH_FORMAT_MODULES_PREFIX "modules="
#define BH_FORMAT_ROUTES_PREFIX "routes="
#define BH_FORMAT_TYPES_PREFIX "types="

/* ---- Typed records (format version 2, written by the Swift macros) ------------------- */

/* "BHTR" read as a little-endian u32. */
#define BH_FORMAT_TYPED_RECORD_MAGIC 0x52544842
/* The layout of a typed record and of the value its accessor makes. 2: the accessor takes a guard (the
 * expected record type and a hint) and returns whether it wrote. 3: the value it makes (built by code inlined into
 * the annotating module) carries how to make an instance and a non-generic box. 4: the names are Swift strings and
 * one closure makes an instance already boxed as its service. 5: a service's record carries the service's name too.
 * Readers refuse other versions. */
#define BH_FORMAT_TYPED_RECORD_LAYOUT 5
/* u32 magic, u32 layout version, then the accessor (a pointer); aligned to 8. */
#define BH_FORMAT_TYPED_RECORD_SIZE 16
#define BH_FORMAT_TYPED_RECORD_ACCESSOR_OFFSET 8

/* ---- Swift records (format version 3, written by the Swift macros) -------------------- */

/* One entry per annotation in the image's swift5_tests section, found in memory through the Swift runtime's
 * registered metadata sections, in the shape of swift-testing's test content records (32 bytes): u32 kind ("bhiv"
 * read as a big-endian FourCC), u32 version, the accessor (a pointer), a uintptr record kind (1 service, 2 module,
 * 3 route, 4 API: a protocol's @BeeHiveAPI version) and a uintptr, reserved by version 3, that now says the layout of
 * the typed value (below). The accessor, called with a guard, gives the record's JSON text or its typed record
 * (Docs/RecordFormat.md, "Swift records"). */
#define BH_FORMAT_SWIFT_TESTS_SECTION "swift5_tests"
#define BH_FORMAT_SWIFT_RECORD_KIND 0x62686976
#define BH_FORMAT_SWIFT_RECORD_VERSION 3
#define BH_FORMAT_SWIFT_RECORD_SIZE 32
#define BH_FORMAT_SWIFT_RECORD_ACCESSOR_OFFSET 8
#define BH_FORMAT_SWIFT_RECORD_KIND_OFFSET 16
/* The entry's last word, reserved by version 3 (the macros wrote 0), now says the layout of the typed value its
 * accessor writes: Swift code inlined into the annotating module builds that value, so an image built against a
 * BeeHive of another layout would write one this reader cannot read. A reader asks an accessor of another layout for
 * the record's text only (its registration is then bound by name), and asks for no typed record alone. */
#define BH_FORMAT_SWIFT_RECORD_LAYOUT_OFFSET 24
#define BH_FORMAT_SWIFT_TYPED_LAYOUT 1
/* A Swift record's record kind (not a bh_format_kind, the kind of a section: that of one record of a section of
 * BH_FORMAT_KIND_SWIFT_RECORDS): a service, a module, a route, and the highest of version 3, an API record
 * ({"api":…,"version":…}). The macro plugin's numbers are pinned to these
 * (Tests/BeeHiveMacrosTests/FormatPinTests.swift). */
#define BH_FORMAT_SWIFT_RECORD_KIND_SERVICE 1
#define BH_FORMAT_SWIFT_RECORD_KIND_MODULE 2
#define BH_FORMAT_SWIFT_RECORD_KIND_ROUTE 3
#define BH_FORMAT_SWIFT_RECORD_KIND_API 4
/* The same records' JSON, for the beehive tool, which reads files (the load-time scanner never reads these). */
#define BH_FORMAT_SWIFT_SERVICES_SECTION "beehive_swift_services"
#define BH_FORMAT_SWIFT_MODULES_SECTION "beehive_swift_mods"
#define BH_FORMAT_SWIFT_ROUTES_SECTION "beehive_swift_routes"
#define BH_FORMAT_SWIFT_APIS_SECTION "beehive_swift_apis"

/* ---- Limits: beyond them a reader reports, never reads ---------------------------------- */

/* Distinct record sections the notes of one image may name. */
#define BH_FORMAT_MAX_NOTE_SECTIONS 64
/* Bytes of one section name in a note. */
#define BH_FORMAT_MAX_SECTION_NAME 1024
/* Bytes of one PT_NOTE segment or SHT_NOTE section. */
#define BH_FORMAT_MAX_NOTE_BYTES (1 << 20)
/* Bytes of one record section. */
#define BH_FORMAT_MAX_RECORD_SECTION (256 << 20)

#endif /* BH_FORMAT_H */
