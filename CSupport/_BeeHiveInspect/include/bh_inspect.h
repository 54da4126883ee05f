/*
 * bh_inspect.h — internal: reads BeeHive record sections from ELF files on disk, for the `beehive` tool.
 *
 * Not API, and not linked into programs that use BeeHive: only the command-line tool links it. The load-time
 * scanner (_BeeHiveScanner) reads images that are loaded; this reads files that are not: executables, shared
 * libraries, object files (ET_REL) and the members of static archives.
 *
 * Files are read with libelf in ELF_C_READ mode (pread, no mapping: a truncated file gives an error, never
 * SIGBUS). Only the ELF header, the section header table, the notes, the record sections and, when asked or
 * when there are records, the symbol table are read; every size is checked against the file and bounded.
 */
#ifndef BH_INSPECT_H
#define BH_INSPECT_H

#include <bh_format.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an ELF image is. */
typedef enum {
    BH_INSPECT_EXECUTABLE = 0,     /* ET_EXEC, or ET_DYN with an interpreter or DF_1_PIE (a PIE) */
    BH_INSPECT_SHARED_LIBRARY = 1, /* ET_DYN otherwise */
    BH_INSPECT_OBJECT = 2,         /* ET_REL: an object file or an archive member */
    BH_INSPECT_OTHER = 3,          /* a core file or an unknown e_type */
} bh_inspect_image_type;

/* What an image has of symbols. */
typedef enum {
    BH_INSPECT_NO_SYMBOLS = 0,      /* neither .symtab nor .dynsym: stripped */
    BH_INSPECT_DYNAMIC_SYMBOLS = 1, /* .dynsym only: stripped, exported symbols remain */
    BH_INSPECT_FULL_SYMBOLS = 2,    /* .symtab */
} bh_inspect_symbols;

/* One "kind=section" entry of a BeeHive image note. */
typedef struct {
    bh_format_kind kind;
    const char *section;
} bh_inspect_note_entry;

/* A BeeHive image note (owner "BeeHive", type 1). */
typedef struct {
    uint32_t version; /* the descriptor's format version; entries are read for versions 1 and 2 */
    unsigned section_index;
    const bh_inspect_note_entry *entries;
    size_t entry_count;
} bh_inspect_note;

/* A record section: a section whose name a note gives, or a default name (beehive_services, …). */
typedef struct {
    const char *name;
    bh_format_kind kind;
    unsigned index;
    uint32_t type;        /* sh_type */
    uint64_t flags;       /* sh_flags: SHF_ALLOC 0x2, SHF_GNU_RETAIN 0x200000, … */
    uint64_t address;     /* sh_addr (0 in object files) */
    uint64_t file_offset; /* from the start of the file given: for an archive member, of the archive */
    uint64_t size;
    int named_by_note;    /* whether a note of this image names it */
    const unsigned char *bytes; /* the section's bytes; NULL when they could not be read (see error) */
    const char *error;          /* why the bytes could not be read, or NULL */
} bh_inspect_section;

/* A symbol defined in a record section: where a record came from. */
typedef struct {
    unsigned section_index;
    uint64_t offset;  /* from the start of the section */
    const char *name;
    const char *file; /* the name of the STT_FILE symbol before it (the source file), or NULL */
} bh_inspect_symbol;

/* One ELF image: the file itself, or one member of an archive. */
typedef struct {
    const char *member; /* the archive member's name, or NULL */
    bh_inspect_image_type type;
    uint16_t machine;   /* e_machine */
    bh_inspect_symbols symbols;
    const bh_inspect_note *notes;
    size_t note_count;
    const bh_inspect_section *sections;
    size_t section_count;
    const bh_inspect_symbol *record_symbols;
    size_t record_symbol_count;
    /* Global and weak symbols the image defines, counted when its .symtab was read (record sections or type
     * descriptors); -1 when it was not. An archive member that defines none is never pulled into a link. */
    long long defined_globals;
    /* With BH_INSPECT_TYPE_DESCRIPTORS: every defined symbol "$s…Mn" (a Swift nominal type descriptor) or "$s…Mp"
     * (a protocol descriptor), from .symtab and .dynsym. */
    const char *const *descriptors;
    size_t descriptor_count;
    /* With BH_INSPECT_TYPE_DESCRIPTORS: whether the image defines BH_INSPECT_RUNTIME_MARKER itself (in .symtab or
     * .dynsym), as every copy of BeeHive's core does; and where: the name of its section (NULL when unknown) and
     * its offset from the start of that section. */
    int defines_runtime_marker;
    const char *runtime_marker_section;
    uint64_t runtime_marker_offset;
    /* The JSON of the API records the Swift macros wrote (@BeeHiveAPI: {"api":…,"version":…}), from the
     * beehive_swift_apis section, in order. */
    const char *const *api_records;
    size_t api_record_count;
    /* Every API marker ("beehive-api:<protocol>@<version>", NUL-terminated) in the
     * image's read-only data: the versions of service APIs that its code was compiled against. */
    const char *const *api_markers;
    size_t api_marker_count;
    /* Problems of this image (malformed note, unreadable section header table, …): one line each. */
    const char *const *problems;
    size_t problem_count;
} bh_inspect_image;

/* A file, read. Everything it points to lives until bh_inspect_close. */
typedef struct {
    const char *path;
    /* Why the file could not be read at all (not ELF, truncated header, a directory, no permission, …); NULL
     * when it was read. One line, without the path. */
    const char *error;
    int is_archive;
    uint64_t size;
    size_t member_count; /* archive members (special members "/", "//" excluded) */
    const bh_inspect_image *images;
    size_t image_count;
    /* Problems of the file itself, besides its images' (an archive member header that cannot be read, …). */
    const char *const *problems;
    size_t problem_count;
} bh_inspect_file;

/* Flags for bh_inspect_open. */
enum {
    /* Collect the Swift type and protocol descriptor symbols of each image ($s…Mn, $s…Mp), and whether it defines
     * BH_INSPECT_RUNTIME_MARKER; reads the whole symbol table. */
    BH_INSPECT_TYPE_DESCRIPTORS = 1 << 0,
};

/* The C symbol that every copy of BeeHive's core defines (Sources/BeeHive/Plugins/BeeHiveRuntimeMarker.swift). */
#define BH_INSPECT_RUNTIME_MARKER "beehive_core_runtime_marker"

/* Limits: beyond them a section or table is reported, never read. The format's come from bh_format.h. */
#define BH_INSPECT_MAX_RECORD_SECTION ((unsigned)BH_FORMAT_MAX_RECORD_SECTION)
#define BH_INSPECT_MAX_NOTE_SECTION ((unsigned)BH_FORMAT_MAX_NOTE_BYTES)
#define BH_INSPECT_MAX_SYMBOL_TABLE (1024u << 20)
#define BH_INSPECT_MAX_MEMBERS 1000000u
/* Read-only data searched for API markers, per section; and the length of one marker. */
#define BH_INSPECT_MAX_READ_ONLY_SECTION (256u << 20)
#define BH_INSPECT_MAX_API_MARKER 1024u

/* Reads `path`. Returns NULL only when out of memory; otherwise a file whose `error` says if it was unreadable. */
bh_inspect_file *bh_inspect_open(const char *path, int flags);

/* Frees a file returned by bh_inspect_open and everything it points to. */
void bh_inspect_close(bh_inspect_file *file);

#ifdef __cplusplus
}
#endif

#endif /* BH_INSPECT_H */
