/*
 * notes.c — an image's notes, read from memory: which record sections its BeeHive notes name, and a hash of
 * those notes and of its GNU build-id (part of the image's identity). The notes are parsed by bh_note.h, the one
 * parser the tool's file reader uses too.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <bh_note.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Adds a section name to an image's list, once per kind and name. At most BH_MAX_WANTED names (so this is linear
 * in the entries read), each at most BH_MAX_SECTION_NAME bytes; beyond that it counts what it leaves out. */
bh_wanted *bh_want(bh_wanted_list *list, bh_format_kind kind, const char *name, size_t length) {
    if (length == 0) return NULL;
    if (length > BH_MAX_SECTION_NAME) {
        list->too_long++;
        return NULL;
    }
    for (size_t i = 0; i < list->count; i++) {
        bh_wanted *w = &list->items[i];
        if (w->kind == kind && strlen(w->name) == length && memcmp(w->name, name, length) == 0) return w;
    }
    if (list->count == BH_MAX_WANTED) {
        list->dropped++;
        return NULL;
    }
    if (!bh_reserve((void **)&list->items, &list->capacity, list->count, sizeof *list->items)) {
        list->dropped++;
        return NULL;
    }
    char *copy = bh_strndup(name, length);
    if (!copy) {
        list->dropped++;
        return NULL;
    }
    bh_wanted *w = &list->items[list->count++];
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->name = copy;
    return w;
}

void bh_wanted_copy(const bh_wanted_list *from, bh_wanted_list *to) {
    memset(to, 0, sizeof *to);
    for (size_t w = 0; w < from->count; w++) {
        const bh_wanted *old = &from->items[w];
        bh_wanted *copy = bh_want(to, old->kind, old->name, strlen(old->name));
        if (copy) copy->located = old->located, copy->vaddr = old->vaddr, copy->size = old->size;
    }
    to->dropped = from->dropped;
    to->too_long = from->too_long;
}

/* The default names, for an image read without a note (BH_SCAN_ALL_IMAGES). */
void bh_want_defaults(bh_wanted_list *wanted) {
    for (int k = 0; k < BH_FORMAT_KIND_COUNT; k++) {
        const char *name = bh_format_default_section((bh_format_kind)k);
        bh_want(wanted, (bh_format_kind)k, name, strlen(name));
    }
}

/* Where the note's image is loaded, to place version 3's bounds: its program headers, and the link-time address of
 * the bytes being parsed (0 when they were read from a file, whose bounds are not used). */
typedef struct {
    const ElfW(Phdr) *phdrs;
    size_t phnum;
    uint64_t vaddr;
} bh_note_place;

/* Version 3: takes the bounds of each section the note names, once checked to lie inside a readable PT_LOAD
 * segment of the image; a section whose bounds do not is reported and not read (its file would place it there too). */
static void bh_locate_sections(bh_scanner *s, const char *image, uint64_t id, int report,
                               const bh_note_entries *entries, const size_t named[BH_FORMAT_KIND_COUNT],
                               const bh_note_place *place, uint64_t desc_vaddr, bh_wanted_list *list) {
    for (size_t i = 0; i < entries->bound_count; i++) {
        bh_note_bound bound = bh_note_bound_at(entries, i, 0);
        if (bound.kind >= BH_FORMAT_KIND_COUNT || !named[bound.kind]) continue; /* a kind this reader does not know */
        bh_wanted *wanted = &list->items[named[bound.kind] - 1];
        uint64_t start = desc_vaddr + (uint64_t)(int64_t)bound.start, stop = desc_vaddr + (uint64_t)(int64_t)bound.stop;
        const ElfW(Phdr) *load = bound.start <= bound.stop && stop - start <= BH_MAX_SECTION_SIZE
                                     ? bh_segment_of(place->phdrs, place->phnum, start, stop - start)
                                     : NULL;
        if (!load || !(load->p_flags & PF_R)) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "section %s (placed by the BeeHive note at 0x%llx … 0x%llx, %+d … %+d from its "
                               "descriptor) lies %s; expected it inside a readable loaded segment, at most %u bytes; "
                               "its records were not read",
                               wanted->name, (unsigned long long)start, (unsigned long long)stop, bound.start,
                               bound.stop,
                               load ? "in a loaded segment without read permission"
                               : bound.start > bound.stop ? "nowhere (it ends before it starts)"
                                                          : "outside the image's loaded segments",
                               BH_MAX_SECTION_SIZE);
            wanted->located = 1; /* refused: not read from the file either, which gives the same place */
            wanted->size = 0;
            continue;
        }
        wanted->located = 1;
        wanted->vaddr = start;
        wanted->size = stop - start;
    }
}

/* Reads one BeeHive note descriptor: u32 version, in version 3 a table of bounds, then NUL-terminated
 * "kind=section" strings. */
static void bh_parse_note(bh_scanner *s, const char *image, uint64_t id, int report, const unsigned char *desc,
                          size_t size, const bh_note_place *place, uint64_t desc_vaddr, bh_notes *notes) {
    bh_note_entries entries;
    switch (bh_note_entries_begin(&entries, desc, size, 0)) {
    case BH_NOTE_DESC_TOO_SHORT:
        if (report)
            bh_add_problem(s, image, id, 0,
                           "BeeHive note of %zu bytes is too short: expected at least a 4-byte version; "
                           "the note was ignored",
                           size);
        return;
    case BH_NOTE_DESC_VERSION:
        if (report)
            bh_add_problem(s, image, id, 0,
                           "BeeHive note has format version %u; expected version %u to %u; the sections it names "
                           "were not read",
                           entries.version, BH_FORMAT_OLDEST_VERSION, BH_FORMAT_NEWEST_VERSION);
        return;
    case BH_NOTE_DESC_BOUNDS:
        if (report)
            bh_add_problem(s, image, id, 0,
                           "BeeHive note of version %u has a table of %zu bounds of %zu bytes each in a descriptor of "
                           "%zu bytes; expected entries of at least %d bytes (a multiple of 4) that fit; the sections "
                           "it names were not read",
                           entries.version, entries.bound_count, entries.bound_size, size,
                           BH_FORMAT_BOUNDS_ENTRY_MIN_SIZE);
        return;
    case BH_NOTE_DESC_OK: break;
    }
    size_t named[BH_FORMAT_KIND_COUNT] = {0}; /* the list's index + 1 of the section of each kind (the list grows) */
    bh_note_entry entry;
    int status;
    while ((status = bh_note_entries_next(&entries, &entry)) != 0) {
        if (status < 0) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "BeeHive note ends inside an entry (\"%.*s\"): expected NUL-terminated "
                               "\"kind=section\" entries; that entry was ignored",
                               (int)(entries.end - entry.text < 40 ? entries.end - entry.text : 40), entry.text);
            break;
        }
        if (entry.known) {
            bh_wanted *wanted = bh_want(&notes->wanted, (bh_format_kind)entry.kind, entry.section, entry.section_length);
            if (wanted && !named[entry.kind]) named[entry.kind] = (size_t)(wanted - notes->wanted.items) + 1;
        }
    }
    if (entries.bound_count && place->phdrs)
        bh_locate_sections(s, image, id, report, &entries, named, place, desc_vaddr, &notes->wanted);
}

/* Moves `reader` past the notes that follow the one at `raw` and are byte for byte the same. The run is compared
 * against itself in chunks that double while they match and halve when they do not: linear in its bytes, and few
 * comparisons (1,000 notes: about 10). */
static void bh_skip_copies(bh_note_reader *reader, const unsigned char *raw) {
    if (!reader->p) return;
    size_t length = (size_t)(reader->p - raw), chunk = length;
    while (length) {
        size_t left = (size_t)(reader->end - reader->p), copies = (size_t)(reader->p - raw);
        if (chunk > copies) chunk = copies; /* compared against the run so far, which is `copies` bytes of copies */
        if (chunk > left) chunk = left - left % length;
        if (chunk < length) return;
        if (memcmp(reader->p, raw, chunk) == 0) {
            reader->p += chunk;
            chunk *= 2;
        } else if (chunk == length) {
            return;
        } else {
            chunk = chunk / 2 - (chunk / 2) % length;
        }
    }
}

/* Reads one PT_NOTE segment's notes from a copy of its bytes. */
static void bh_parse_notes(bh_scanner *s, const char *image, uint64_t id, int report, const unsigned char *p,
                           size_t size, uint64_t align, size_t segment, const bh_note_place *place, bh_notes *notes) {
    bh_note_reader reader;
    bh_note_reader_init(&reader, p, size, align, 0);
    bh_note note;
    /* The Swift macros write one note per annotation, all alike and side by side: a note equal to the BeeHive note
     * before it adds nothing. A run of them is skipped in a few comparisons (bh_skip_copies); a note equal to an
     * earlier one elsewhere costs one comparison of its descriptor, not a parse. */
    const unsigned char *previous = NULL;
    size_t previous_size = 0;
    while (bh_note_next(&reader, &note)) {
        if (bh_note_is_beehive(&note)) {
            notes->marked = 1;
            if (!previous || note.descsz != previous_size || memcmp(note.desc, previous, previous_size) != 0) {
                previous = note.desc;
                previous_size = note.descsz;
                notes->hash = bh_hash(notes->hash, note.desc, note.descsz);
                uint64_t desc_vaddr = place->vaddr + (uint64_t)(note.desc - reader.start);
                bh_parse_note(s, image, id, report, note.desc, note.descsz, place, desc_vaddr, notes);
            }
            bh_skip_copies(&reader, reader.start + note.offset);
        } else if (bh_note_is_gnu_build_id(&note)) {
            notes->hash = bh_hash(notes->hash, note.desc, note.descsz);
        }
    }
    if (reader.malformed && report)
        bh_add_problem(s, image, id, 0,
                       "malformed note at offset %zu of PT_NOTE segment %zu: its name (%u bytes) and "
                       "descriptor (%u bytes) exceed the %zu bytes left in the segment; the notes after it "
                       "were not read",
                       reader.bad_offset, segment, reader.bad_namesz, reader.bad_descsz, reader.bad_left);
}

/*
 * Notes kept while nothing is unloaded. A new hive's walk read and parsed the notes of every image with records again
 * (~6 K instructions for the benchmark's executable). Notes read after startup from segments without write permission,
 * which gave no problem, cannot change while the image stays mapped, and nothing can be mapped at its address before
 * something is unloaded: so what they said (the hash, the sections and their bounds) is kept for every scanner, by the
 * image's address, while the loader's count of unloaded images is the one the reading scan saw (as for the copies
 * kept in support.c). At most BH_KEPT_NOTES images; the mutex is held over a copy of one list of at most
 * BH_MAX_WANTED names.
 */
#define BH_KEPT_NOTES 64

static struct {
    pthread_mutex_t lock;
    unsigned long long subs;
    struct {
        uintptr_t base;
        bh_notes notes;
    } items[BH_KEPT_NOTES];
    size_t count;
} bh_kept_notes = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int bh_take_kept_notes(const bh_scanner *s, uintptr_t base, bh_notes *notes) {
    int found = 0;
    pthread_mutex_lock(&bh_kept_notes.lock);
    for (size_t i = 0; bh_kept_notes.subs == s->subs && i < bh_kept_notes.count && !found; i++) {
        if (bh_kept_notes.items[i].base != base) continue;
        const bh_notes *kept = &bh_kept_notes.items[i].notes;
        notes->marked = kept->marked;
        notes->hash = kept->hash;
        bh_wanted_copy(&kept->wanted, &notes->wanted);
        found = 1;
    }
    pthread_mutex_unlock(&bh_kept_notes.lock);
    return found;
}

static void bh_keep_notes(const bh_scanner *s, uintptr_t base, const bh_notes *notes) {
    pthread_mutex_lock(&bh_kept_notes.lock);
    if (s->subs > bh_kept_notes.subs) { /* images were unloaded since the kept notes were read */
        for (size_t i = 0; i < bh_kept_notes.count; i++) bh_wanted_free(&bh_kept_notes.items[i].notes.wanted);
        bh_kept_notes.count = 0;
        bh_kept_notes.subs = s->subs;
    }
    int room = s->subs == bh_kept_notes.subs && bh_kept_notes.count < BH_KEPT_NOTES;
    for (size_t i = 0; room && i < bh_kept_notes.count; i++)
        if (bh_kept_notes.items[i].base == base) room = 0; /* kept already */
    if (room) {
        bh_notes *kept = &bh_kept_notes.items[bh_kept_notes.count].notes;
        kept->marked = notes->marked;
        kept->hash = notes->hash;
        bh_wanted_copy(&notes->wanted, &kept->wanted);
        bh_kept_notes.items[bh_kept_notes.count++].base = base;
    }
    pthread_mutex_unlock(&bh_kept_notes.lock);
}

/*
 * Reads an image's notes from memory: each PT_NOTE segment is first checked to lie inside a readable,
 * file-backed PT_LOAD segment, then copied (carefully, after startup) and parsed. `report` adds problems.
 */
void bh_read_notes(bh_scanner *s, uintptr_t base, const ElfW(Phdr) *phdrs, size_t phnum, const char *image,
                          uint64_t id, int careful, int report, bh_notes *notes) {
    memset(notes, 0, sizeof *notes);
    notes->hash = BH_HASH_SEED;
    int keeps = careful && report && s->knows_subs; /* after startup, by a walk that can tell an unload */
    if (keeps && bh_take_kept_notes(s, base, notes)) return;
    size_t problems = s->problem_count;
    int keepable = keeps; /* every PT_NOTE segment read whole, from a segment without write permission */
    unsigned char stack[4096];
    for (size_t i = 0; i < phnum; i++) {
        const ElfW(Phdr) *ph = &phdrs[i];
        if (ph->p_type != PT_NOTE || ph->p_memsz == 0) continue;
        const ElfW(Phdr) *load = bh_segment_of(phdrs, phnum, ph->p_vaddr, ph->p_memsz);
        if (!load || !(load->p_flags & PF_R)) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u at 0x%llx (%llu bytes) lies outside the image's readable loaded "
                               "segments; expected it inside a readable PT_LOAD segment; its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_vaddr, (unsigned long long)ph->p_memsz);
            continue;
        }
        if (load->p_flags & PF_W) keepable = 0;
        if (ph->p_memsz > BH_MAX_NOTE_SEGMENT) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u is %llu bytes; expected at most %u; its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_memsz, BH_MAX_NOTE_SEGMENT);
            continue;
        }
        size_t size = (size_t)ph->p_memsz;
        bh_note_place place = {phdrs, phnum, ph->p_vaddr};
        if (!careful) {
            /* Before main the image was just mapped from its file: read in place (a copy would read it too). */
            bh_parse_notes(s, image, id, report, (const unsigned char *)(base + ph->p_vaddr), size, ph->p_align, i,
                           &place, notes);
            continue;
        }
        unsigned char *buffer = size <= sizeof stack ? stack : malloc(size);
        if (!buffer) {
            keepable = 0;
            continue;
        }
        if (bh_copy_loaded(s, buffer, base + ph->p_vaddr, size, base, phdrs, phnum) != 0) {
            if (report)
                bh_add_problem(s, image, id, 0,
                               "PT_NOTE segment %u at 0x%llx cannot be read (the memory faults: is the file "
                               "truncated since it was loaded?); its notes were not read",
                               (unsigned)i, (unsigned long long)ph->p_vaddr);
        } else {
            bh_parse_notes(s, image, id, report, buffer, size, ph->p_align, i, &place, notes);
        }
        if (buffer != stack) free(buffer);
    }
    if (keepable && s->problem_count == problems) bh_keep_notes(s, base, notes);
}

/* The hash the walk computed from memory, computed from the file: its notes, read with pread. */
uint64_t bh_file_note_hash(bh_scanner *s, const bh_image *image, int fd) {
    bh_notes notes;
    memset(&notes, 0, sizeof notes);
    notes.hash = BH_HASH_SEED;
    for (size_t i = 0; i < image->phnum; i++) {
        const ElfW(Phdr) *ph = &image->phdrs[i];
        if (ph->p_type != PT_NOTE || ph->p_filesz == 0 || ph->p_filesz > BH_MAX_NOTE_SEGMENT) continue;
        unsigned char *buffer = malloc((size_t)ph->p_filesz);
        if (buffer && pread(fd, buffer, (size_t)ph->p_filesz, (off_t)ph->p_offset) == (ssize_t)ph->p_filesz)
            bh_parse_notes(s, "", 0, 0, buffer, (size_t)ph->p_filesz, ph->p_align, i, &(bh_note_place){0}, &notes);
        free(buffer);
    }
    bh_wanted_free(&notes.wanted);
    return notes.hash;
}
