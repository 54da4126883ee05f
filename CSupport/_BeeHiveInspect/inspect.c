/*
 * inspect.c — reads BeeHive record sections from ELF files on disk (executables, shared libraries, object
 * files, static archives), for the `beehive` command-line tool.
 *
 * A file is opened without blocking and must be a regular file. libelf reads it in ELF_C_READ mode: pread, no
 * mapping, so a file truncated or rewritten meanwhile gives an error, never SIGBUS. For each image (the file, or
 * each member of an archive: elf_begin on the archive, then elf_next) this reads the ELF header, the section
 * header table and the section name table; then the SHT_NOTE sections, to find BeeHive notes (in object files the
 * note is in `.note.beehive`, once per COMDAT group); then the sections the notes name, and those with the
 * default names (beehive_services, beehive_mods, beehive_routes, and the Swift macros' beehive_swift_*); then,
 * when there are records or type descriptors are asked for, the symbol table. No other part of the file is read. Every size and offset is
 * checked against the file (or the archive member) before it is used, and every failure becomes a one-line
 * message; a bad member or section never stops the others from being read.
 *
 * Memory: everything a file returns lives in one arena, freed by bh_inspect_close.
 */
#define _GNU_SOURCE
#include "bh_inspect.h"

#include <bh_format.h>
#include <bh_note.h>

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BH_MAX_NAME 4096 /* bytes of one symbol or section name read on its own */

/* ---- The arena ------------------------------------------------------------------ */

typedef struct bh_block {
    struct bh_block *next;
    size_t used, capacity;
    max_align_t data[];
} bh_block;

typedef struct {
    bh_block *head;
} bh_arena;

#define BH_BLOCK_SIZE ((size_t)64 << 10)

/* Returns `size` bytes that live until the arena is freed, or NULL when out of memory. */
static void *bh_alloc(bh_arena *arena, size_t size) {
    size_t align = sizeof(max_align_t);
    if (size > SIZE_MAX - align) return NULL;
    size = (size + align - 1) & ~(align - 1);
    if (size > BH_BLOCK_SIZE / 4) {
        /* A block of its own, behind the current one so that the current one's space is still used. */
        bh_block *block = malloc(sizeof *block + size);
        if (!block) return NULL;
        block->used = block->capacity = size;
        if (arena->head) {
            block->next = arena->head->next;
            arena->head->next = block;
        } else {
            block->next = NULL;
            arena->head = block;
        }
        return block->data;
    }
    if (!arena->head || arena->head->capacity - arena->head->used < size) {
        bh_block *block = malloc(sizeof *block + BH_BLOCK_SIZE);
        if (!block) return NULL;
        block->used = 0;
        block->capacity = BH_BLOCK_SIZE;
        block->next = arena->head;
        arena->head = block;
    }
    void *p = (char *)arena->head->data + arena->head->used;
    arena->head->used += size;
    return p;
}

static void bh_arena_free(bh_arena *arena) {
    for (bh_block *block = arena->head, *next; block; block = next) {
        next = block->next;
        free(block);
    }
    arena->head = NULL;
}

static char *bh_strndup(bh_arena *arena, const char *s, size_t n) {
    char *copy = bh_alloc(arena, n + 1);
    if (copy) {
        memcpy(copy, s, n);
        copy[n] = 0;
    }
    return copy;
}

static char *bh_strdup(bh_arena *arena, const char *s) { return bh_strndup(arena, s, strlen(s)); }

/*
 * Makes a string the reader hands out one line that is safe to print: every control character (a newline, an
 * escape sequence's ESC, DEL) becomes '?'. Names in a file are bytes its author chose.
 */
static char *bh_one_line(char *s) {
    if (s)
        for (unsigned char *c = (unsigned char *)s; *c; c++)
            if (*c < 0x20 || *c == 0x7F) *c = '?';
    return s;
}

/* Makes room for one more element in an arena array (the old storage is left to the arena). */
static int bh_grow(bh_arena *arena, void *items, size_t *capacity, size_t count, size_t size) {
    void **array = items;
    if (count < *capacity) return 1;
    size_t grown = *capacity ? *capacity * 2 : 8;
    void *p = bh_alloc(arena, grown * size);
    if (!p) return 0;
    if (count) memcpy(p, *array, count * size);
    *array = p;
    *capacity = grown;
    return 1;
}

/* ---- The reading context ---------------------------------------------------------- */

/* A file being read, with everything found so far. */
typedef struct {
    bh_inspect_file file; /* first, so that a bh_inspect_file pointer is a bh_owned_file pointer */
    bh_arena arena;
    int fd;
    int flags;
    bh_inspect_image *images;
    size_t image_capacity;
    const char **problems;
    size_t problem_count, problem_capacity;
} bh_owned_file;

/* A section the notes of an image name: the kind the first entry gives, and the other kinds already reported. */
typedef struct {
    const char *name; /* NULL: an empty slot */
    size_t length;
    uint64_t hash;
    bh_format_kind kind;
    unsigned reported; /* bit k: a conflict with kind k was reported */
    const char *display; /* the name as the report shows it: one line (bh_one_line) */
} bh_named_section;

/* An image being read: where it lies in the file and what was found in it. */
typedef struct {
    bh_owned_file *owner;
    Elf *elf;
    uint64_t base;  /* the image's offset in the file (archive members) */
    uint64_t limit; /* the image's size */
    int swap;       /* the file's byte order differs from ours */
    int is_object;
    bh_inspect_image *image;
    bh_inspect_note *notes;
    size_t note_capacity;
    bh_inspect_note_entry *entries; /* every note entry of a kind the report shows, in order */
    size_t entry_count, entry_capacity;
    bh_named_section *named; /* the sections the notes name, by name: an open-addressing hash table */
    size_t named_count, named_capacity;
    bh_inspect_section *sections;
    size_t section_capacity;
    bh_inspect_symbol *symbols;
    size_t symbol_capacity;
    const char **descriptors;
    size_t descriptor_capacity;
    const char **api_records, **api_markers;
    size_t api_record_capacity, api_marker_capacity;
    const char **problems;
    size_t problem_capacity;
} bh_reader;

static void bh_problem(bh_reader *r, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Adds a one-line problem to the image being read. */
static void bh_problem(bh_reader *r, const char *format, ...) {
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    bh_arena *arena = &r->owner->arena;
    char *copy = bh_one_line(bh_strdup(arena, message));
    if (!copy || !bh_grow(arena, &r->problems, &r->problem_capacity, r->image->problem_count, sizeof *r->problems))
        return;
    r->problems[r->image->problem_count++] = copy;
    r->image->problems = r->problems;
}

static void bh_file_problem(bh_owned_file *f, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Adds a one-line problem of the file itself (an archive whose member headers stop making sense). */
static void bh_file_problem(bh_owned_file *f, const char *format, ...) {
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    char *copy = bh_one_line(bh_strdup(&f->arena, message));
    if (!copy || !bh_grow(&f->arena, &f->problems, &f->problem_capacity, f->problem_count, sizeof *f->problems))
        return;
    f->problems[f->problem_count++] = copy;
}

static void bh_fail(bh_owned_file *f, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Says why the file could not be read at all. */
static void bh_fail(bh_owned_file *f, const char *format, ...) {
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    f->file.error = bh_one_line(bh_strdup(&f->arena, message));
    if (!f->file.error) f->file.error = "out of memory";
}

/* Reads exactly `size` bytes at `offset` of the file; returns 0 on success, else errno (or EIO at the end). */
static int bh_pread(int fd, void *buffer, size_t size, uint64_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (char *)buffer + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno;
        if (n == 0) return EIO;
        done += (size_t)n;
    }
    return 0;
}

/* Whether [offset, offset + size) lies inside the image. */
static int bh_inside(const bh_reader *r, uint64_t offset, uint64_t size) {
    return offset <= r->limit && size <= r->limit - offset;
}

/* ---- Notes ------------------------------------------------------------------------ */

/*
 * Every note entry is looked up once in a hash table of the names the notes give, so that reading notes, checking
 * that each section has one kind, and finding the record sections cost linear time in the notes and sections
 * (one pair comparison per entry pair made 60,000 one-entry notes take half a minute). The table lives while the
 * image is read.
 */
static uint64_t bh_name_hash(const char *name, size_t length) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; i++) hash = (hash ^ (unsigned char)name[i]) * 0x100000001b3ull;
    return hash;
}

/* The slot of `name`: its entry, or the empty slot where it would go. */
static bh_named_section *bh_named_slot(bh_named_section *table, size_t capacity, const char *name, size_t length,
                                       uint64_t hash) {
    size_t mask = capacity - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        bh_named_section *slot = &table[i];
        if (!slot->name || (slot->hash == hash && slot->length == length && memcmp(slot->name, name, length) == 0))
            return slot;
    }
}

/* The section the notes name `name`, or NULL. */
static bh_named_section *bh_named_find(const bh_reader *r, const char *name, size_t length) {
    if (r->named_capacity == 0) return NULL;
    bh_named_section *slot =
        bh_named_slot(r->named, r->named_capacity, name, length, bh_name_hash(name, length));
    return slot->name ? slot : NULL;
}

/* Adds `name` with `kind`, or finds it; NULL when out of memory. `*added` says which. */
static bh_named_section *bh_named_add(bh_reader *r, const char *name, size_t length, bh_format_kind kind,
                                      int *added) {
    if (r->named_count + 1 > r->named_capacity / 2) {
        size_t capacity = r->named_capacity ? r->named_capacity * 2 : 64;
        bh_named_section *table = calloc(capacity, sizeof *table);
        if (!table) return NULL;
        for (size_t i = 0; i < r->named_capacity; i++)
            if (r->named[i].name)
                *bh_named_slot(table, capacity, r->named[i].name, r->named[i].length, r->named[i].hash) = r->named[i];
        free(r->named);
        r->named = table;
        r->named_capacity = capacity;
    }
    uint64_t hash = bh_name_hash(name, length);
    bh_named_section *slot = bh_named_slot(r->named, r->named_capacity, name, length, hash);
    *added = !slot->name;
    if (*added) {
        char *copy = bh_strndup(&r->owner->arena, name, length);
        if (!copy) return NULL;
        slot->name = copy;
        slot->display = copy;
        for (size_t i = 0; i < length; i++)
            if ((unsigned char)copy[i] < 0x20 || copy[i] == 0x7F) {
                slot->display = bh_one_line(bh_strndup(&r->owner->arena, name, length));
                if (!slot->display) slot->display = "?";
                break;
            }
        slot->length = length;
        slot->hash = hash;
        slot->kind = kind;
        slot->reported = 0;
        r->named_count++;
    }
    return slot;
}

/* Records one "kind=section" entry: once per name in the table, where a second kind is reported once per kind
 * (the first kind is used), and in the note's entries when the report shows its kind. */
static void bh_note_entry_read(bh_reader *r, const bh_note_entry *entry) {
    int added = 0;
    bh_named_section *named = bh_named_add(r, entry->section, entry->section_length, entry->kind, &added);
    if (!named) return;
    if (!added && named->kind != entry->kind && !(named->reported & (1u << entry->kind))) {
        named->reported |= 1u << entry->kind;
        bh_problem(r,
                   "BeeHive notes name section %s both for %s and for %s; expected one kind per section; its records "
                   "are read as %s",
                   named->name, bh_format_kind_name(named->kind), bh_format_kind_name(entry->kind),
                   bh_format_kind_name(named->kind));
    }
    if (entry->kind == BH_FORMAT_KIND_TYPES) return; /* typed records: not read by the tool */
    bh_arena *arena = &r->owner->arena;
    if (!bh_grow(arena, &r->entries, &r->entry_capacity, r->entry_count, sizeof *r->entries)) return;
    r->entries[r->entry_count].kind = entry->kind;
    r->entries[r->entry_count].section = named->display; /* one copy per name */
    r->entry_count++;
}

/* Reads one BeeHive note descriptor (bh_note.h): u32 version, then NUL-terminated "kind=section" strings. */
static void bh_parse_note(bh_reader *r, unsigned section, const unsigned char *desc, size_t size) {
    bh_arena *arena = &r->owner->arena;
    if (!bh_grow(arena, &r->notes, &r->note_capacity, r->image->note_count, sizeof *r->notes)) return;
    bh_inspect_note *note = &r->notes[r->image->note_count++];
    r->image->notes = r->notes;
    memset(note, 0, sizeof *note);
    note->section_index = section;
    bh_note_entries entries;
    bh_note_desc_status status = bh_note_entries_begin(&entries, desc, size, r->swap);
    note->version = entries.version;
    if (status == BH_NOTE_DESC_TOO_SHORT) {
        bh_problem(r,
                   "the BeeHive note in section %u has a %zu-byte descriptor; expected at least a 4-byte version; "
                   "the note was ignored",
                   section, size);
        return;
    }
    if (status == BH_NOTE_DESC_VERSION) {
        bh_problem(r,
                   "the BeeHive note in section %u has format version %u; expected version %u to %u; the sections "
                   "it names were not read",
                   section, note->version, BH_FORMAT_OLDEST_VERSION, BH_FORMAT_NEWEST_VERSION);
        return;
    }
    size_t first = r->entry_count;
    bh_note_entry entry;
    int next;
    while ((next = bh_note_entries_next(&entries, &entry)) != 0) {
        if (next < 0) {
            size_t left = (size_t)(entries.end - entry.text);
            bh_problem(r,
                       "the BeeHive note in section %u ends inside an entry (\"%.*s\"); expected NUL-terminated "
                       "\"kind=section\" entries; that entry was ignored",
                       section, (int)(left < 40 ? left : 40), entry.text);
            break;
        }
        if (entry.known && entry.section_length > 0) bh_note_entry_read(r, &entry);
    }
    /* The note's entries are a slice of the image's list, which may move as it grows: fixed up at the end. */
    note->entries = (const bh_inspect_note_entry *)(uintptr_t)first;
    note->entry_count = r->entry_count - first;
}

/* Reads the notes of one SHT_NOTE section. */
static void bh_read_note_section(bh_reader *r, unsigned index, const GElf_Shdr *shdr) {
    if (shdr->sh_size == 0) return;
    if (shdr->sh_size > BH_INSPECT_MAX_NOTE_SECTION) {
        bh_problem(r, "note section %u is %llu bytes; expected at most %u; its notes were not read", index,
                   (unsigned long long)shdr->sh_size, BH_INSPECT_MAX_NOTE_SECTION);
        return;
    }
    if (!bh_inside(r, shdr->sh_offset, shdr->sh_size)) {
        bh_problem(r,
                   "note section %u at file offset 0x%llx (%llu bytes) lies past the end of the file (%llu bytes: "
                   "truncated?); its notes were not read",
                   index, (unsigned long long)shdr->sh_offset, (unsigned long long)shdr->sh_size,
                   (unsigned long long)r->limit);
        return;
    }
    size_t size = (size_t)shdr->sh_size;
    unsigned char *bytes = malloc(size);
    if (!bytes) {
        bh_problem(r, "out of memory reading note section %u (%zu bytes)", index, size);
        return;
    }
    int error = bh_pread(r->owner->fd, bytes, size, r->base + shdr->sh_offset);
    if (error) {
        bh_problem(r, "note section %u cannot be read: %s", index, error == EIO ? "the file ends early" : strerror(error));
        free(bytes);
        return;
    }
    bh_note_reader reader;
    bh_note_reader_init(&reader, bytes, size, shdr->sh_addralign, r->swap);
    bh_note note;
    while (bh_note_next(&reader, &note))
        if (bh_note_is_beehive(&note)) bh_parse_note(r, index, note.desc, note.descsz);
    if (reader.malformed)
        bh_problem(r,
                   "malformed note at offset %zu of note section %u: its name (%u bytes) and descriptor (%u "
                   "bytes) exceed the %zu bytes left; the notes after it were not read",
                   reader.bad_offset, index, reader.bad_namesz, reader.bad_descsz, reader.bad_left);
    free(bytes);
}

/* ---- Record sections -------------------------------------------------------------- */

/* The kind a section name has for this image: from a note, else from the default names; 0 if not a record
 * section (typed records included: the tool does not read them). One hash look-up. */
static int bh_wanted(const bh_reader *r, const char *name, bh_format_kind *kind, int *named_by_note) {
    size_t length = strlen(name);
    const bh_named_section *named = bh_named_find(r, name, length);
    if (named) {
        if (named->kind == BH_FORMAT_KIND_TYPES) return 0;
        *kind = named->kind;
        *named_by_note = 1;
        return 1;
    }
    for (int k = 0; k < BH_FORMAT_KIND_COUNT; k++) {
        if (k == BH_FORMAT_KIND_TYPES || strcmp(bh_format_default_section((bh_format_kind)k), name) != 0) continue;
        *kind = (bh_format_kind)k;
        *named_by_note = 0;
        return 1;
    }
    /* The JSON of the Swift macros' records (format version 3), which no note names. */
    static const struct {
        const char *name;
        bh_format_kind kind;
    } swift_sections[] = {{BH_FORMAT_SWIFT_SERVICES_SECTION, BH_FORMAT_KIND_SERVICES},
                          {BH_FORMAT_SWIFT_MODULES_SECTION, BH_FORMAT_KIND_MODULES},
                          {BH_FORMAT_SWIFT_ROUTES_SECTION, BH_FORMAT_KIND_ROUTES}};
    for (size_t k = 0; k < sizeof swift_sections / sizeof swift_sections[0]; k++) {
        if (strcmp(swift_sections[k].name, name) != 0) continue;
        *kind = swift_sections[k].kind;
        *named_by_note = 0;
        return 1;
    }
    return 0;
}

static void bh_read_record_section(bh_reader *r, unsigned index, const GElf_Shdr *shdr, const char *name,
                                   bh_format_kind kind, int named_by_note) {
    bh_arena *arena = &r->owner->arena;
    if (!bh_grow(arena, &r->sections, &r->section_capacity, r->image->section_count, sizeof *r->sections)) return;
    bh_inspect_section *section = &r->sections[r->image->section_count++];
    r->image->sections = r->sections;
    memset(section, 0, sizeof *section);
    section->name = bh_one_line(bh_strdup(arena, name));
    if (!section->name) section->name = "?";
    section->kind = kind;
    section->index = index;
    section->type = shdr->sh_type;
    section->flags = shdr->sh_flags;
    section->address = shdr->sh_addr;
    section->file_offset = r->base + shdr->sh_offset;
    section->size = shdr->sh_size;
    section->named_by_note = named_by_note;
    char message[512];
    message[0] = 0;
    if (shdr->sh_type == SHT_NOBITS) {
        snprintf(message, sizeof message,
                 "section %s (index %u) is SHT_NOBITS: it has no bytes in the file; expected PROGBITS records", name,
                 index);
    } else if (shdr->sh_size > BH_INSPECT_MAX_RECORD_SECTION) {
        snprintf(message, sizeof message, "section %s (index %u) is %llu bytes; expected at most %u; not read", name,
                 index, (unsigned long long)shdr->sh_size, BH_INSPECT_MAX_RECORD_SECTION);
    } else if (!bh_inside(r, shdr->sh_offset, shdr->sh_size)) {
        snprintf(message, sizeof message,
                 "section %s (index %u) at file offset 0x%llx (%llu bytes) ends past the end of the %s (%llu bytes: "
                 "truncated?); not read",
                 name, index, (unsigned long long)shdr->sh_offset, (unsigned long long)shdr->sh_size,
                 r->image->member ? "archive member" : "file", (unsigned long long)r->limit);
    } else {
        size_t size = (size_t)shdr->sh_size;
        unsigned char *bytes = bh_alloc(arena, size ? size : 1);
        int error = bytes ? bh_pread(r->owner->fd, bytes, size, section->file_offset) : ENOMEM;
        if (error == 0) {
            section->bytes = bytes;
            return;
        }
        snprintf(message, sizeof message, "section %s (index %u) cannot be read: %s", name, index,
                 error == EIO ? "the file ends early (truncated?)" : strerror(error));
    }
    section->error = bh_strdup(arena, message);
    if (!section->error) section->error = "cannot be read";
}

/* ---- API versions ------------------------------------------------------------------ */

/* A section's bytes, read whole into the arena when it lies inside the image and is at most `max` bytes; NULL
 * otherwise (the caller skips it: API versions are checked where they can be read). */
static unsigned char *bh_read_bytes(bh_reader *r, const GElf_Shdr *shdr, uint64_t max) {
    if (shdr->sh_type == SHT_NOBITS || shdr->sh_size == 0 || shdr->sh_size > max ||
        !bh_inside(r, shdr->sh_offset, shdr->sh_size))
        return NULL;
    unsigned char *bytes = bh_alloc(&r->owner->arena, (size_t)shdr->sh_size + 1);
    if (!bytes || bh_pread(r->owner->fd, bytes, (size_t)shdr->sh_size, r->base + shdr->sh_offset) != 0) return NULL;
    bytes[shdr->sh_size] = 0;
    return bytes;
}

/* Adds the text at `text` (`length` bytes) to a list of strings of the image. */
static void bh_add_string(bh_reader *r, const char ***list, size_t *capacity, size_t *count, const char *text,
                          size_t length) {
    bh_arena *arena = &r->owner->arena;
    char *copy = bh_strndup(arena, text, length);
    if (copy && bh_grow(arena, list, capacity, *count, sizeof **list)) (*list)[(*count)++] = copy;
}

/* The JSON records of beehive_swift_apis: NUL-terminated texts, one after another (zeros between them are
 * padding). */
static void bh_read_api_records(bh_reader *r, const GElf_Shdr *shdr) {
    const unsigned char *bytes = bh_read_bytes(r, shdr, BH_INSPECT_MAX_RECORD_SECTION);
    if (!bytes) return;
    size_t size = (size_t)shdr->sh_size;
    for (size_t at = 0; at < size;) {
        size_t length = strnlen((const char *)bytes + at, size - at);
        if (length > 0)
            bh_add_string(r, &r->api_records, &r->api_record_capacity, &r->image->api_record_count,
                          (const char *)bytes + at, length);
        at += length + 1;
    }
    r->image->api_records = r->api_records;
}

/* The API markers in a section of read-only data: each "beehive-api:" that starts a NUL-terminated text of at most
 * BH_INSPECT_MAX_API_MARKER bytes. Linear: the search resumes after each match. */
static void bh_find_api_markers(bh_reader *r, const GElf_Shdr *shdr) {
    static const char prefix[] = "beehive-api:";
    const size_t prefix_length = sizeof prefix - 1;
    if (shdr->sh_size < prefix_length) return;
    const unsigned char *bytes = bh_read_bytes(r, shdr, BH_INSPECT_MAX_READ_ONLY_SECTION);
    if (!bytes) return;
    size_t size = (size_t)shdr->sh_size;
    const unsigned char *at = bytes, *end = bytes + size;
    while ((size_t)(end - at) >= prefix_length) {
        const unsigned char *found = memmem(at, (size_t)(end - at), prefix, prefix_length);
        if (!found) break;
        size_t length = strnlen((const char *)found, (size_t)(end - found));
        if (length <= BH_INSPECT_MAX_API_MARKER && found + length < end)
            bh_add_string(r, &r->api_markers, &r->api_marker_capacity, &r->image->api_marker_count,
                          (const char *)found, length);
        at = found + (length > 0 ? length : 1);
    }
    r->image->api_markers = r->api_markers;
}

/* ---- Symbols ---------------------------------------------------------------------- */

/* A string of a string table, read on its own (a few bytes, not the whole table); NULL if out of bounds. */
static const char *bh_read_string(bh_reader *r, const GElf_Shdr *strtab, uint64_t offset) {
    if (strtab->sh_type != SHT_STRTAB || offset >= strtab->sh_size || !bh_inside(r, strtab->sh_offset, strtab->sh_size))
        return NULL;
    char buffer[BH_MAX_NAME];
    size_t want = strtab->sh_size - offset < sizeof buffer ? (size_t)(strtab->sh_size - offset) : sizeof buffer;
    if (bh_pread(r->owner->fd, buffer, want, r->base + strtab->sh_offset + offset) != 0) return NULL;
    char *nul = memchr(buffer, 0, want);
    if (!nul) return NULL;
    return bh_one_line(bh_strndup(&r->owner->arena, buffer, (size_t)(nul - buffer)));
}

static const bh_inspect_section *bh_record_section_at(const bh_reader *r, size_t index) {
    for (size_t i = 0; i < r->image->section_count; i++)
        if (r->sections[i].index == index) return &r->sections[i];
    return NULL;
}

/* A Swift nominal type descriptor ("$s…Mn") or protocol descriptor ("$s…Mp"). */
static int bh_is_descriptor(const char *name) {
    size_t n = strlen(name);
    return n > 4 && name[0] == '$' && name[1] == 's' && name[n - 2] == 'M'
        && (name[n - 1] == 'n' || name[n - 1] == 'p');
}

/* Notes that the image defines the runtime marker `sym`, and the section and offset where. */
static void bh_note_runtime_marker(bh_reader *r, const GElf_Sym *sym) {
    r->image->defines_runtime_marker = 1;
    r->image->runtime_marker_offset = sym->st_value;
    size_t shstrndx = 0;
    Elf_Scn *scn = elf_getscn(r->elf, sym->st_shndx);
    GElf_Shdr shdr;
    if (!scn || !gelf_getshdr(scn, &shdr) || elf_getshdrstrndx(r->elf, &shstrndx) != 0) return;
    /* In an executable or shared library st_value is an address; in an object file, an offset in the section. */
    if (!r->is_object && sym->st_value >= shdr.sh_addr)
        r->image->runtime_marker_offset = sym->st_value - shdr.sh_addr;
    const char *name = elf_strptr(r->elf, shstrndx, shdr.sh_name);
    if (name) r->image->runtime_marker_section = bh_one_line(bh_strdup(&r->owner->arena, name));
}

/*
 * Reads a symbol table: the symbols defined in record sections (with the source file, from the STT_FILE symbol
 * before them) and, when asked, the Swift type descriptors. Names of symbols in record sections are read one by
 * one; the whole string table is read only for descriptors.
 */
static void bh_read_symbols(bh_reader *r, Elf_Scn *scn, const GElf_Shdr *shdr, int dynamic, int descriptors) {
    unsigned index = (unsigned)elf_ndxscn(scn);
    const char *what = dynamic ? "dynamic symbol table" : "symbol table";
    if (shdr->sh_size > BH_INSPECT_MAX_SYMBOL_TABLE) {
        bh_problem(r, "the %s (section %u) is %llu bytes; expected at most %u; its symbols were not read", what,
                   index, (unsigned long long)shdr->sh_size, BH_INSPECT_MAX_SYMBOL_TABLE);
        return;
    }
    if (!bh_inside(r, shdr->sh_offset, shdr->sh_size)) {
        bh_problem(r, "the %s (section %u) ends past the end of the file (truncated?); its symbols were not read",
                   what, index);
        return;
    }
    Elf_Scn *strscn = elf_getscn(r->elf, shdr->sh_link);
    GElf_Shdr strtab;
    if (!strscn || !gelf_getshdr(strscn, &strtab) || strtab.sh_type != SHT_STRTAB ||
        !bh_inside(r, strtab.sh_offset, strtab.sh_size)) {
        bh_problem(r, "the %s (section %u) links to section %u, which is not a readable string table; its "
                   "symbols were not read", what, index, (unsigned)shdr->sh_link);
        return;
    }
    Elf_Data *data = elf_getdata(scn, NULL);
    size_t entry = gelf_fsize(r->elf, ELF_T_SYM, 1, EV_CURRENT);
    if (!data || entry == 0) {
        bh_problem(r, "the %s (section %u) cannot be read: %s", what, index, elf_errmsg(-1));
        return;
    }
    size_t count = data->d_size / entry;
    if (!dynamic) r->image->defined_globals = 0;
    bh_arena *arena = &r->owner->arena;
    size_t file_name = 0; /* st_name of the last STT_FILE symbol, 0 if none */
    const char *file = NULL;
    int file_read = 0;
    for (size_t i = 1; i < count; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym)) break;
        int type = GELF_ST_TYPE(sym.st_info);
        if (type == STT_FILE) {
            file_name = sym.st_name;
            file = NULL;
            file_read = 0;
            continue;
        }
        if (sym.st_shndx == SHN_UNDEF) continue;
        int bind = GELF_ST_BIND(sym.st_info);
        if (!dynamic && (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE)) r->image->defined_globals++;
        if (sym.st_shndx >= SHN_LORESERVE) continue;
        const bh_inspect_section *section = dynamic ? NULL : bh_record_section_at(r, sym.st_shndx);
        if (section && type != STT_SECTION && sym.st_name != 0) {
            uint64_t base = r->is_object ? 0 : section->address;
            if (sym.st_value >= base && sym.st_value - base < section->size &&
                bh_grow(arena, &r->symbols, &r->symbol_capacity, r->image->record_symbol_count, sizeof *r->symbols)) {
                if (!file_read && file_name) file = bh_read_string(r, &strtab, file_name);
                file_read = 1;
                bh_inspect_symbol *s = &r->symbols[r->image->record_symbol_count];
                s->section_index = section->index;
                s->offset = sym.st_value - base;
                s->name = bh_read_string(r, &strtab, sym.st_name);
                s->file = file;
                if (s->name) {
                    r->image->record_symbol_count++;
                    r->image->record_symbols = r->symbols;
                }
            }
        }
        if (descriptors && sym.st_name != 0 && !r->image->defines_runtime_marker &&
            (type == STT_FUNC || type == STT_NOTYPE)) {
            const char *name = elf_strptr(r->elf, shdr->sh_link, sym.st_name);
            if (name && strcmp(name, BH_INSPECT_RUNTIME_MARKER) == 0) bh_note_runtime_marker(r, &sym);
        }
        if (descriptors && sym.st_name != 0 && (type == STT_OBJECT || type == STT_NOTYPE)) {
            const char *name = elf_strptr(r->elf, shdr->sh_link, sym.st_name);
            if (name && bh_is_descriptor(name) &&
                bh_grow(arena, &r->descriptors, &r->descriptor_capacity, r->image->descriptor_count,
                        sizeof *r->descriptors)) {
                const char *copy = bh_one_line(bh_strdup(arena, name));
                if (copy) {
                    r->descriptors[r->image->descriptor_count++] = copy;
                    r->image->descriptors = r->descriptors;
                }
            }
        }
    }
}

/* ---- Images ----------------------------------------------------------------------- */

/* Whether an ET_DYN image is an executable (PIE): it has an interpreter, or its dynamic section says DF_1_PIE. */
static int bh_is_pie(bh_reader *r) {
    size_t phnum = 0;
    if (elf_getphdrnum(r->elf, &phnum) == 0) {
        for (size_t i = 0; i < phnum && i < 4096; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(r->elf, (int)i, &ph) && ph.p_type == PT_INTERP) return 1;
        }
    }
    for (Elf_Scn *scn = elf_nextscn(r->elf, NULL); scn; scn = elf_nextscn(r->elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_DYNAMIC) continue;
        if (shdr.sh_size > (1u << 20) || !bh_inside(r, shdr.sh_offset, shdr.sh_size)) return 0;
        Elf_Data *data = elf_getdata(scn, NULL);
        size_t entry = gelf_fsize(r->elf, ELF_T_DYN, 1, EV_CURRENT);
        if (!data || entry == 0) return 0;
        for (size_t i = 0; i < data->d_size / entry; i++) {
            GElf_Dyn dyn;
            if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL) break;
            if (dyn.d_tag == DT_FLAGS_1) return (dyn.d_un.d_val & DF_1_PIE) != 0;
        }
        return 0;
    }
    return 0;
}

static void bh_read_image(bh_reader *r) {
    bh_inspect_image *image = r->image;
    GElf_Ehdr ehdr;
    if (!gelf_getehdr(r->elf, &ehdr)) {
        image->type = BH_INSPECT_OTHER;
        bh_problem(r, "the ELF header cannot be read: %s", elf_errmsg(-1));
        return;
    }
    image->machine = ehdr.e_machine;
    unsigned char order = ehdr.e_ident[EI_DATA];
    unsigned short one = 1;
    int little = *(unsigned char *)&one == 1;
    r->swap = (order == ELFDATA2LSB) != little;
    r->is_object = ehdr.e_type == ET_REL;
    switch (ehdr.e_type) {
    case ET_REL: image->type = BH_INSPECT_OBJECT; break;
    case ET_EXEC: image->type = BH_INSPECT_EXECUTABLE; break;
    case ET_DYN: image->type = bh_is_pie(r) ? BH_INSPECT_EXECUTABLE : BH_INSPECT_SHARED_LIBRARY; break;
    default: image->type = BH_INSPECT_OTHER; break;
    }

    /* The section header table must lie inside the image: say so plainly when it does not (truncated file). */
    if (ehdr.e_shoff != 0 && ehdr.e_shnum != 0 &&
        (ehdr.e_shentsize == 0 || !bh_inside(r, ehdr.e_shoff, (uint64_t)ehdr.e_shnum * ehdr.e_shentsize))) {
        bh_problem(r,
                   "its %u section headers at file offset 0x%llx lie past the end of the %s (%llu bytes: "
                   "truncated?); expected them inside it to find the record sections",
                   (unsigned)ehdr.e_shnum, (unsigned long long)ehdr.e_shoff,
                   image->member ? "archive member" : "file", (unsigned long long)r->limit);
        return;
    }
    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(r->elf, &shnum) != 0) {
        bh_problem(r, "the section header table cannot be read: %s", elf_errmsg(-1));
        return;
    }
    if (shnum == 0) {
        bh_problem(r, "it has no section headers (stripped with --strip-sections?); expected them to find the "
                      "record sections");
        return;
    }
    if (elf_getshdrstrndx(r->elf, &shstrndx) != 0) {
        bh_problem(r, "the section name table cannot be read (%s); expected a valid e_shstrndx", elf_errmsg(-1));
        return;
    }

    /* First the notes, which say which sections hold records; and where the symbol tables are. */
    Elf_Scn *symtab = NULL, *dynsym = NULL;
    GElf_Shdr symtab_shdr, dynsym_shdr;
    size_t unreadable = 0;
    for (Elf_Scn *scn = elf_nextscn(r->elf, NULL); scn; scn = elf_nextscn(r->elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr)) {
            unreadable++;
            continue;
        }
        if (shdr.sh_type == SHT_NOTE) bh_read_note_section(r, (unsigned)elf_ndxscn(scn), &shdr);
        if (shdr.sh_type == SHT_SYMTAB && !symtab) {
            symtab = scn;
            symtab_shdr = shdr;
        }
        if (shdr.sh_type == SHT_DYNSYM && !dynsym) {
            dynsym = scn;
            dynsym_shdr = shdr;
        }
    }
    for (size_t i = 0; i < image->note_count; i++) {
        size_t first = (size_t)(uintptr_t)r->notes[i].entries;
        r->notes[i].entries = r->notes[i].entry_count ? &r->entries[first] : NULL;
    }
    image->symbols = symtab ? BH_INSPECT_FULL_SYMBOLS : dynsym ? BH_INSPECT_DYNAMIC_SYMBOLS : BH_INSPECT_NO_SYMBOLS;

    /* Then the record sections. */
    for (Elf_Scn *scn = elf_nextscn(r->elf, NULL); scn; scn = elf_nextscn(r->elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr)) continue;
        const char *name = elf_strptr(r->elf, shstrndx, shdr.sh_name);
        if (!name) {
            unreadable++;
            continue;
        }
        bh_format_kind kind;
        int named_by_note;
        if (bh_wanted(r, name, &kind, &named_by_note))
            bh_read_record_section(r, (unsigned)elf_ndxscn(scn), &shdr, name, kind, named_by_note);
        else if (strcmp(name, BH_FORMAT_SWIFT_APIS_SECTION) == 0)
            bh_read_api_records(r, &shdr);
        else if (shdr.sh_type == SHT_PROGBITS && (shdr.sh_flags & (SHF_ALLOC | SHF_WRITE | SHF_EXECINSTR)) == SHF_ALLOC)
            bh_find_api_markers(r, &shdr);
    }
    if (unreadable)
        bh_problem(r,
                   "%zu section headers or names cannot be read (corrupt section header table or name table); "
                   "records in those sections may be missing",
                   unreadable);

    /* Then the symbols: where records come from, and which Swift types the image defines. */
    int descriptors = (r->owner->flags & BH_INSPECT_TYPE_DESCRIPTORS) != 0;
    if (symtab && (image->section_count > 0 || descriptors)) bh_read_symbols(r, symtab, &symtab_shdr, 0, descriptors);
    if (dynsym && descriptors) bh_read_symbols(r, dynsym, &dynsym_shdr, 1, 1);
}

/* Adds an image to the file and reads it. */
static void bh_add_image(bh_owned_file *f, Elf *elf, const char *member, uint64_t base, uint64_t limit) {
    if (!bh_grow(&f->arena, &f->images, &f->image_capacity, f->file.image_count, sizeof *f->images)) {
        bh_file_problem(f, "out of memory after %zu images", f->file.image_count);
        return;
    }
    bh_inspect_image *image = &f->images[f->file.image_count++];
    f->file.images = f->images;
    memset(image, 0, sizeof *image);
    image->defined_globals = -1;
    image->member = member ? bh_one_line(bh_strdup(&f->arena, member)) : NULL;
    bh_reader reader;
    memset(&reader, 0, sizeof reader);
    reader.owner = f;
    reader.elf = elf;
    reader.base = base;
    reader.limit = limit;
    reader.image = image;
    if (elf)
        bh_read_image(&reader);
    else
        image->type = BH_INSPECT_OTHER;
    free(reader.named);
}

/* ---- Files ------------------------------------------------------------------------ */

static const char *bh_file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

/* Describes the first bytes of a file that is neither ELF nor an archive: "starting 23 21 2f 62 ("#!/b")". */
static void bh_describe_start(const unsigned char *bytes, size_t n, char *out, size_t size) {
    size_t used = (size_t)snprintf(out, size, "starting");
    for (size_t i = 0; i < n && used < size; i++) used += (size_t)snprintf(out + used, size - used, " %02x", bytes[i]);
    int printable = n > 0;
    for (size_t i = 0; i < n; i++) printable = printable && bytes[i] >= 0x20 && bytes[i] < 0x7f && bytes[i] != '"';
    if (printable && used < size) snprintf(out + used, size - used, " \"%.*s\"", (int)n, (const char *)bytes);
}

static int bh_is_special_member(const char *name) {
    return strcmp(name, "/") == 0 || strcmp(name, "//") == 0 || strcmp(name, "/SYM64/") == 0;
}

static void bh_read_archive(bh_owned_file *f, Elf *archive) {
    Elf_Cmd command = ELF_C_READ;
    Elf *member;
    while ((member = elf_begin(f->fd, command, archive)) != NULL) {
        Elf_Arhdr *header = elf_getarhdr(member);
        const char *name = header && header->ar_name ? header->ar_name : "(unnamed member)";
        if (!bh_is_special_member(name)) {
            f->file.member_count++;
            uint64_t base = (uint64_t)elf_getbase(member);
            uint64_t size = header ? (uint64_t)header->ar_size : 0;
            if (elf_kind(member) == ELF_K_ELF) {
                bh_add_image(f, member, name, base, size);
            } else {
                unsigned char start[4] = {0};
                size_t n = size < sizeof start ? (size_t)size : sizeof start;
                char described[64] = "";
                if (n && bh_pread(f->fd, start, n, base) == 0) bh_describe_start(start, n, described, sizeof described);
                int bitcode = n == 4 && memcmp(start, "BC\xc0\xde", 4) == 0;
                bh_add_image(f, NULL, name, base, size);
                bh_reader reader = {.owner = f, .image = &f->images[f->file.image_count - 1]};
                bh_problem(&reader, "member %s is not an ELF object (%llu bytes, %s)%s; it was skipped", name,
                           (unsigned long long)size, described,
                           bitcode ? ": LLVM bitcode (built with -flto?), whose records cannot be read" : "");
            }
        }
        command = elf_next(member);
        elf_end(member);
        if (f->file.member_count >= BH_INSPECT_MAX_MEMBERS) {
            bh_file_problem(f, "the archive has more than %u members; the rest were not read", BH_INSPECT_MAX_MEMBERS);
            return;
        }
    }
    int error = elf_errno();
    if (command != ELF_C_NULL && error != 0)
        bh_file_problem(f, "an archive member header after member %zu cannot be read (%s); the members after it "
                           "were not read", f->file.member_count, elf_errmsg(error));
}

static void bh_init_libelf(void) { elf_version(EV_CURRENT); }

bh_inspect_file *bh_inspect_open(const char *path, int flags) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, bh_init_libelf);
    bh_owned_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->fd = -1;
    f->flags = flags;
    f->file.path = bh_strdup(&f->arena, path);
    if (!f->file.path) {
        bh_arena_free(&f->arena);
        free(f);
        return NULL;
    }

    f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f->fd < 0) {
        int error = errno;
        bh_fail(f, "cannot be opened: %s", strerror(error));
        return &f->file;
    }
    struct stat st;
    if (fstat(f->fd, &st) != 0) {
        bh_fail(f, "cannot be examined (fstat): %s", strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        bh_fail(f, "is %s; expected an ELF file or an ar archive", bh_file_kind(st.st_mode));
        goto done;
    }
    f->file.size = (uint64_t)st.st_size;
    if (st.st_size == 0) {
        bh_fail(f, "is empty; expected an ELF file or an ar archive");
        goto done;
    }
    unsigned char start[8] = {0};
    size_t n = st.st_size < (off_t)sizeof start ? (size_t)st.st_size : sizeof start;
    int error = bh_pread(f->fd, start, n, 0);
    if (error) {
        bh_fail(f, "cannot be read: %s", error == EIO ? "it ended while being read" : strerror(error));
        goto done;
    }
    if (n == 8 && memcmp(start, "!<thin>\n", 8) == 0) {
        bh_fail(f, "is a thin archive (ar T), whose members are separate files; expected a regular archive: pass the "
                   "object files themselves");
        goto done;
    }
    int elf_magic = n >= 4 && memcmp(start, ELFMAG, SELFMAG) == 0;
    Elf *elf = elf_begin(f->fd, ELF_C_READ, NULL);
    Elf_Kind kind = elf ? elf_kind(elf) : ELF_K_NONE;
    if (kind == ELF_K_ELF) {
        bh_add_image(f, elf, NULL, 0, f->file.size);
    } else if (kind == ELF_K_AR) {
        f->file.is_archive = 1;
        bh_read_archive(f, elf);
    } else if (elf_magic) {
        uint64_t header = n > EI_CLASS && start[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
        if (f->file.size < header)
            bh_fail(f, "has the ELF magic but only %llu bytes; expected at least a %llu-byte ELF header (truncated?)",
                    (unsigned long long)f->file.size, (unsigned long long)header);
        else
            bh_fail(f, "has the ELF magic but its ELF header cannot be read (%s); expected a 32- or 64-bit ELF file "
                       "of version 1",
                    elf ? "unknown class, byte order or version" : elf_errmsg(-1));
    } else {
        char described[64];
        bh_describe_start(start, n < 4 ? n : 4, described, sizeof described);
        bh_fail(f, "is not an ELF file or an ar archive (%llu bytes, %s)", (unsigned long long)f->file.size,
                described);
    }
    if (elf) elf_end(elf);
done:
    f->file.images = f->images;
    f->file.problems = f->problems;
    f->file.problem_count = f->problem_count;
    close(f->fd);
    f->fd = -1;
    return &f->file;
}

void bh_inspect_close(bh_inspect_file *file) {
    if (!file) return;
    bh_owned_file *f = (bh_owned_file *)file;
    bh_arena_free(&f->arena);
    free(f);
}
