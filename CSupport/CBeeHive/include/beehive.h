/*
 * beehive.h — annotation macros for BeeHive for Swift on Linux.
 *
 * Each macro writes one registration record into a custom ELF section of the
 * image (executable or shared library) that is being compiled. At load time the
 * BeeHive scanner walks every loaded image and registers what it finds; no
 * registration code runs.
 *
 *     #include <beehive.h>
 *
 *     BH_SERVICE(App.UserTrackService, App.UserTrackServiceImpl)
 *     BH_NAMED_SERVICE(App.Cache, App.DiskCache, disk)
 *     BH_MODULE(App.LoginModule)
 *     BH_MODULE(App.NetworkModule, basic, 100, true)
 *     BH_ROUTE("app://user/:id", App.UserRoute)
 *
 *     // BeeHive's own spellings:
 *     BeeHiveService(App.UserTrackService, App.UserTrackServiceImpl)
 *     BeeHiveMod(App.LoginModule)
 *
 * A macro use is a complete declaration: it needs no semicolon. It can be used
 * any number of times in one file and in any number of files.
 *
 * Records are UTF-8 JSON, NUL-terminated, stored inline as bytes (read-only,
 * no pointers, no relocations). The format is a stable contract, documented in
 * Docs/RecordFormat.md. Override the section names by defining
 * BH_SERVICES_SECTION, BH_MODULES_SECTION or BH_ROUTES_SECTION before the
 * first include; the image note below tells the scanner which names to read.
 */
#ifndef BEEHIVE_H
#define BEEHIVE_H

/*
 * The format's constants (section names, the note's owner, type and version) are defined once, in
 * bh_format.h (target _BeeHiveFormat, a dependency of CBeeHive). A build that passes only this directory
 * with -I finds it beside this header's directory.
 */
#if defined(__has_include)
#if __has_include(<bh_format.h>)
#include <bh_format.h>
#else
#include "../../_BeeHiveFormat/include/bh_format.h"
#endif
#else
#include "../../_BeeHiveFormat/include/bh_format.h"
#endif

/* The version of the record and note format this header writes: the newest, or 2 if defined so before the first
 * include (see the image note below). */
#ifndef BH_FORMAT_VERSION
#define BH_FORMAT_VERSION BH_FORMAT_NEWEST_VERSION
#endif

#ifndef BH_SERVICES_SECTION
#define BH_SERVICES_SECTION BH_FORMAT_SERVICES_SECTION
#endif
#ifndef BH_MODULES_SECTION
#define BH_MODULES_SECTION BH_FORMAT_MODULES_SECTION
#endif
#ifndef BH_ROUTES_SECTION
#define BH_ROUTES_SECTION BH_FORMAT_ROUTES_SECTION
#endif

/* ---- Internal helpers ------------------------------------------------------ */

#define BH__CAT2(a, b) a##b
#define BH__CAT(a, b) BH__CAT2(a, b)
#define BH__STR2(x) #x
#define BH__STR(x) BH__STR2(x)
#define BH__UNIQUE(prefix) BH__CAT(prefix, __COUNTER__)

/*
 * Where the annotation is: ,"file":"annotations.c","line":12 (format version 2). Diagnostics about the record
 * start with it. __FILE_NAME__ (clang 9, gcc 12) gives the file's name without the build's directories; older
 * compilers give the path as compiled. A name with '"' or '\' makes the record malformed (reported, with its offset).
 */
#ifdef __FILE_NAME__
#define BH__FILE __FILE_NAME__
#else
#define BH__FILE __FILE__
#endif
#define BH__WHERE ",\"file\":\"" BH__FILE "\",\"line\":" BH__STR(__LINE__)

/*
 * `used` keeps the compiler from dropping the record; `retain` (SHF_GNU_RETAIN)
 * keeps the linker from dropping it under --gc-sections, which every release
 * build of SwiftPM uses. `used` alone is not enough for gold, lld or bfd.
 */
#if defined(__has_attribute)
#if __has_attribute(retain)
#define BH__KEEP __attribute__((used, retain))
#endif
#endif
#ifndef BH__KEEP
#define BH__KEEP __attribute__((used))
#endif

/* Module levels: BeeHive's basic/normal and the three tiers (capability, feature, application). */
#define BH__LEVEL_basic "\"basic\""
#define BH__LEVEL_normal "\"normal\""
#define BH__LEVEL_capability "\"capability\""
#define BH__LEVEL_feature "\"feature\""
#define BH__LEVEL_application "\"application\""
#define BH__LEVEL_0 "0"
#define BH__LEVEL_1 "1"
#define BH__LEVEL_2 "2"

/* `true` may already be a macro for 1 (stdbool.h) by the time it reaches us. */
#define BH__BOOL_true "true"
#define BH__BOOL_false "false"
#define BH__BOOL_1 "true"
#define BH__BOOL_0 "false"

/* Writes one NUL-terminated record (a string literal) into `section`. */
#define BH_RECORD(section_name, literal)                                                                           \
    BH__KEEP __attribute__((section(section_name))) static const char BH__UNIQUE(bh__record_)[] = literal;

/* ---- Services -------------------------------------------------------------- */

/* Registers `impl` as the implementation of `service`: {"service":…,"impl":…,"file":…,"line":…}. */
#define BH_SERVICE(service, impl)                                                                                  \
    BH_RECORD(BH_SERVICES_SECTION, "{\"service\":\"" #service "\",\"impl\":\"" #impl "\"" BH__WHERE "}")

/* Registers `impl` for `service` under `name`: {"service":…,"impl":…,"name":…,"file":…,"line":…}. */
#define BH_NAMED_SERVICE(service, impl, name)                                                                      \
    BH_RECORD(BH_SERVICES_SECTION,                                                                                 \
              "{\"service\":\"" #service "\",\"impl\":\"" #impl "\",\"name\":\"" #name "\"" BH__WHERE "}")

/*
 * Registers `impl` for `service`, built against version `api` (a string literal, "MAJOR.MINOR.PATCH") of the service
 * protocol's API (@BeeHiveAPI): a host serving another major version, or an older minor version, refuses it.
 *
 *     BH_VERSIONED_SERVICE(Shop.PriceService, Shop.FastPrices, "2.1.0")
 *
 * {"service":…,"impl":…,"api":…,"file":…,"line":…}.
 */
#define BH_VERSIONED_SERVICE(service, impl, api)                                                                   \
    BH_RECORD(BH_SERVICES_SECTION,                                                                                 \
              "{\"service\":\"" #service "\",\"impl\":\"" #impl "\",\"api\":\"" api "\"" BH__WHERE "}")

/*
 * Registers `impl` for `service` with a rank (an integer constant: among registrations of one service, the
 * highest serves, and the next takes over when it leaves) and up to four properties, pairs of string literals:
 *
 *     BH_RANKED_SERVICE(Shop.PriceService, Shop.FastPrices, 10)
 *     BH_RANKED_SERVICE(Shop.PriceService, Shop.EuropeanPrices, 5, "region", "eu", "tier", "gold")
 *
 * {"service":…,"impl":…,"rank":…,"property:region":"eu",…,"file":…,"line":…}. A rank that is not an integer
 * constant, or an odd number of property strings, does not compile.
 */
#define BH_RANKED_SERVICE(service, impl, ...)                                                                      \
    BH__PICK_RANKED(__VA_ARGS__, BH__RANKED9, BH__RANKED_ODD, BH__RANKED7, BH__RANKED_ODD, BH__RANKED5,             \
                    BH__RANKED_ODD, BH__RANKED3, BH__RANKED_ODD, BH__RANKED1, unused)(service, impl, __VA_ARGS__)
#define BH__PICK_RANKED(_1, _2, _3, _4, _5, _6, _7, _8, _9, name, ...) name
#define BH__PROPERTY(key, value) ",\"property:" key "\":\"" value "\""
#define BH__RANKED(service, impl, rank, properties)                                                                \
    enum { BH__UNIQUE(bh__rank_must_be_an_integer_) = (rank) };                                                    \
    BH_RECORD(BH_SERVICES_SECTION, "{\"service\":\"" #service "\",\"impl\":\"" #impl "\",\"rank\":" BH__STR(rank)     \
                                       properties BH__WHERE "}")
#define BH__RANKED1(service, impl, rank) BH__RANKED(service, impl, rank, "")
#define BH__RANKED3(service, impl, rank, k1, v1) BH__RANKED(service, impl, rank, BH__PROPERTY(k1, v1))
#define BH__RANKED5(service, impl, rank, k1, v1, k2, v2)                                                           \
    BH__RANKED(service, impl, rank, BH__PROPERTY(k1, v1) BH__PROPERTY(k2, v2))
#define BH__RANKED7(service, impl, rank, k1, v1, k2, v2, k3, v3)                                                   \
    BH__RANKED(service, impl, rank, BH__PROPERTY(k1, v1) BH__PROPERTY(k2, v2) BH__PROPERTY(k3, v3))
#define BH__RANKED9(service, impl, rank, k1, v1, k2, v2, k3, v3, k4, v4)                                           \
    BH__RANKED(service, impl, rank,                                                                                \
               BH__PROPERTY(k1, v1) BH__PROPERTY(k2, v2) BH__PROPERTY(k3, v3) BH__PROPERTY(k4, v4))
#define BH__RANKED_ODD(...) _Static_assert(0, "BH_RANKED_SERVICE: properties come in pairs of string literals");

/* ---- Modules --------------------------------------------------------------- */

#define BH__MOD1(module) BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"" BH__STR2(module) "\"" BH__WHERE "}")
#define BH__MOD2(module, level)                                                                                    \
    BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"" BH__STR2(module) "\",\"level\":" BH__LEVEL_##level BH__WHERE "}")
#define BH__MOD3(module, level, priority)                                                                          \
    enum { BH__UNIQUE(bh__priority_must_be_an_integer_) = (priority) };                                            \
    BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"" BH__STR2(module) "\",\"level\":" BH__LEVEL_##level              \
                                  ",\"priority\":" BH__STR(priority) BH__WHERE "}")
#define BH__MOD4(module, level, priority, async)                                                                   \
    enum { BH__UNIQUE(bh__priority_must_be_an_integer_) = (priority) };                                            \
    BH_RECORD(BH_MODULES_SECTION, "{\"module\":\"" BH__STR2(module) "\",\"level\":" BH__LEVEL_##level              \
                                  ",\"priority\":" BH__STR(priority) ",\"async\":" BH__BOOL_##async BH__WHERE "}")
#define BH__PICK(_1, _2, _3, _4, name, ...) name

/*
 * Registers a module: BH_MODULE(Module[, level[, priority[, async]]]).
 * level: basic, normal, capability, feature, application (or 0, 1, 2);
 * priority: an integer literal, higher runs first; async: true or false.
 */
#define BH_MODULE(...) BH__PICK(__VA_ARGS__, BH__MOD4, BH__MOD3, BH__MOD2, BH__MOD1, unused)(__VA_ARGS__)

/* ---- Routes ---------------------------------------------------------------- */

/* Registers `handler` for the URL pattern `pattern` (a string literal). */
#define BH_ROUTE(pattern, handler)                                                                                 \
    BH_RECORD(BH_ROUTES_SECTION, "{\"route\":\"" pattern "\",\"handler\":\"" #handler "\"" BH__WHERE "}")

/* ---- Anchors: records that nothing else refers to ---------------------------- */

/*
 * A linker takes an object out of a static archive (.a) only when something already linked refers to
 * one of its symbols, and with --as-needed (the default of Ubuntu's gcc) records a shared library as
 * needed (DT_NEEDED) only when the program uses one of its symbols. A file of records only is referred
 * to by nothing, so its records silently never reach the program. An anchor fixes that:
 * BH_ANCHOR(name) in the file of records defines the symbol bh_anchor_<name> (exported, even under
 * -fvisibility=hidden); BH_USE_ANCHOR(name) in any file linked into the program refers to it, so the
 * linker takes the archive member or keeps the library.
 *
 *     // Payments/records.c, built into libpayments.a or libpayments.so
 *     BH_ANCHOR(payments)
 *     BH_SERVICE(Payments.Service, Payments.ServiceImpl)
 *
 *     // App/anchors.c, compiled into the program
 *     BH_USE_ANCHOR(payments)
 *
 * An anchor keeps the one object file it is defined in: give each file of records in an archive its
 * own. The linker flags that do the same without anchors are
 * -Wl,--whole-archive libpayments.a -Wl,--no-whole-archive and -Wl,--no-as-needed -lpayments
 * (see Docs/Linking.md).
 */

/* Defines the anchor `name` (a C identifier) in the file of records: the symbol bh_anchor_<name>. */
#define BH_ANCHOR(name)                                                                                            \
    __attribute__((visibility("default"))) extern const char BH__CAT(bh_anchor_, name);                            \
    BH__KEEP const char BH__CAT(bh_anchor_, name) = 0;

/* Refers to the anchor `name`, so that the archive member or library that defines it is linked. */
#define BH_USE_ANCHOR(name)                                                                                        \
    extern const char BH__CAT(bh_anchor_, name);                                                                   \
    BH__KEEP static const char *const BH__UNIQUE(bh__anchor_use_) = &BH__CAT(bh_anchor_, name);

/* ---- BeeHive's spellings ----------------------------------------------------- */

#define BeeHiveService(service, impl) BH_SERVICE(service, impl)
#define BeeHiveMod(...) BH_MODULE(__VA_ARGS__)

/* ---- The image note -------------------------------------------------------- */

/*
 * Every image that includes this header carries one ELF note (owner "BeeHive", type 1) in a PT_NOTE segment,
 * naming the sections it writes and, from format version 3, where they lie in memory: the linker's
 * __start_<section> and __stop_<section>, as offsets from the note's descriptor (resolved when the image is
 * linked: no relocation at load time). So the scanner reads notes and records from memory and never opens the
 * image's file. A NUL byte in each record section (records may be separated by any number of them) makes sure all
 * three sections exist, so that their bounds are defined. The COMDAT group keeps one note, and one NUL byte per
 * section, per image and set of section names. Section names must be C identifiers (the linker defines bounds only
 * for those). Define BH_FORMAT_VERSION as 2 before the first include to write version 2's note (no bounds: the
 * scanner reads such images through their files).
 */
#if defined(__ELF__) && !defined(BH_NO_IMAGE_NOTE)
#define BH__GROUP                                                                                                  \
    "\"beehive.note." BH__STR(BH_FORMAT_VERSION) "." BH_SERVICES_SECTION "." BH_MODULES_SECTION "."                \
    BH_ROUTES_SECTION "\",comdat\n"
#define BH__NOTE_HEAD                                                                                              \
    ".pushsection " BH_FORMAT_NOTE_SECTION ",\"aGR\",%note," BH__GROUP ".balign 4\n"                               \
    ".long " BH__STR(BH_FORMAT_NOTE_OWNER_SIZE) "\n"                                                              \
    ".long 8672f - 8671f\n"                                                                                       \
    ".long " BH__STR(BH_FORMAT_NOTE_TYPE) "\n"                                                                    \
    ".asciz \"" BH_FORMAT_NOTE_OWNER "\"\n"                                                                      \
    ".balign 4\n"                                                                                                 \
    "8671:\n"                                                                                                     \
    ".long " BH__STR(BH_FORMAT_VERSION) "\n"
#define BH__NOTE_ENTRIES                                                                                           \
    ".asciz \"" BH_FORMAT_SERVICES_PREFIX BH_SERVICES_SECTION "\"\n"                                               \
    ".asciz \"" BH_FORMAT_MODULES_PREFIX BH_MODULES_SECTION "\"\n"                                                 \
    ".asciz \"" BH_FORMAT_ROUTES_PREFIX BH_ROUTES_SECTION "\"\n"                                                   \
    "8672:\n"                                                                                                     \
    ".balign 4\n"                                                                                                 \
    ".popsection\n"
#if BH_FORMAT_VERSION >= 3
/* One entry of the table of bounds: kind, __start_ and __stop_ relative to the descriptor, reserved. */
#define BH__BOUNDS(kind, section)                                                                                  \
    ".hidden __start_" section "\n.hidden __stop_" section "\n"                                                   \
    ".long " BH__STR(kind) ", __start_" section " - 8671b, __stop_" section " - 8671b, 0\n"
/* The NUL byte that makes sure a record section exists (in the note's group). */
#define BH__PLACEHOLDER(section) ".pushsection " section ",\"aGR\",%progbits," BH__GROUP ".byte 0\n.popsection\n"
__asm__(BH__NOTE_HEAD ".long 3, " BH__STR(BH_FORMAT_BOUNDS_ENTRY_SIZE) "\n"
        BH__BOUNDS(0, BH_SERVICES_SECTION) BH__BOUNDS(1, BH_MODULES_SECTION) BH__BOUNDS(2, BH_ROUTES_SECTION)
        BH__NOTE_ENTRIES BH__PLACEHOLDER(BH_SERVICES_SECTION) BH__PLACEHOLDER(BH_MODULES_SECTION)
        BH__PLACEHOLDER(BH_ROUTES_SECTION));
#else
__asm__(BH__NOTE_HEAD BH__NOTE_ENTRIES);
#endif
#endif

#endif /* BEEHIVE_H */
