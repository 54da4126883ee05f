/*
 * elf_sections.c — the record sections of an opened image file of record format 1 or 2 (no note places them in
 * memory), read with libelf (elf_library.c, loaded on demand outside every lock: scanner.c) in ELF_C_READ mode:
 * pread, no mapping, so a file truncated since load gives an error, not SIGBUS. libelf parses the headers (extended
 * numbering included) and bounds every table it reads by the file's size; what it does not check is checked here
 * first, so that every problem is named: the file must be of this process's class and byte order with the loaded
 * image's program headers; the section header table must have entries of this class's size and lie inside the file;
 * the section name table must be a string table inside the file, ended by a NUL (so that every name libelf hands out
 * ends inside it, at O(1) each). Every section with a name the notes give is checked (allocated, inside a readable
 * loaded segment, where its address says) and read into memory: JSON records from the file, typed records (which
 * hold relocated pointers) from memory. Records are parsed later, in Swift.
 */
#define _GNU_SOURCE
#include "elf_library.h"
#include "scanner_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bh_queue_section(bh_scanner *s, bh_image *image, const char *name, bh_format_kind kind, unsigned char *bytes, size_t size,
                      uint64_t file_offset, uint64_t address, unsigned index) {
    if (!bh_reserve((void **)&s->sections, &s->section_capacity, s->section_count, sizeof *s->sections)) {
        bh_add_problem(s, bh_label(image), image->id, 0, "out of memory while queueing section %s", name);
        free(bytes);
        return;
    }
    bh_section *sec = &s->sections[s->section_count].section;
    sec->image_path = bh_strdup(bh_label(image));
    sec->section_name = bh_strdup(name);
    if (!sec->image_path || !sec->section_name) {
        free((void *)sec->image_path);
        free((void *)sec->section_name);
        free(bytes);
        bh_add_problem(s, bh_label(image), image->id, 0, "out of memory while queueing section %s", name);
        return;
    }
    sec->image_id = image->id;
    sec->kind = kind;
    sec->bytes = bytes;
    sec->size = size;
    sec->file_offset = file_offset;
    sec->address = (const void *)(uintptr_t)(image->base + address);
    sec->section_index = index;
    s->section_count++;
    s->stats.sections_found++;
}

/* Reads `size` bytes at `offset`; returns how many were read (fewer at the end of the file or on an error). */
static size_t bh_pread_all(int fd, void *buffer, size_t size, uint64_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (unsigned char *)buffer + done, size - done, (off_t)(offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    return done;
}

/* Whether `count` items of `size` bytes at `offset` lie inside a file of `file_size` bytes (no overflow). */
static int bh_inside_file(off_t file_size, uint64_t offset, uint64_t count, uint64_t size) {
    uint64_t total = (uint64_t)file_size;
    return offset <= total && (size == 0 || count <= (total - offset) / size);
}

/* Does the file's program header table equal the one the loader mapped? Catches a file rewritten since load. */
static int bh_phdrs_match(const bh_elf_library *elf, bh_elf *file, const Elf64_Ehdr *ehdr, const bh_image *image) {
    size_t phnum = 0;
    if (elf->getphdrnum(file, &phnum) != 0 || phnum != image->phnum) return 0;
    if (phnum == 0) return 1;
    if (ehdr->e_phentsize != sizeof(ElfW(Phdr))) return 0;
    for (size_t i = 0; i < phnum; i++) {
        Elf64_Phdr ph;
        if (i > (size_t)__INT_MAX__ || elf->getphdr(file, (int)i, &ph) == NULL) return 0;
        const ElfW(Phdr) *mem = &image->phdrs[i];
        if (ph.p_type != mem->p_type || ph.p_offset != mem->p_offset || ph.p_vaddr != mem->p_vaddr ||
            ph.p_filesz != mem->p_filesz || ph.p_memsz != mem->p_memsz || ph.p_flags != mem->p_flags)
            return 0;
    }
    return 1;
}

/* Checks one wanted section and reads it from the file. */
static void bh_read_section(bh_scanner *s, bh_image *image, int fd, off_t file_size, const Elf64_Shdr *shdr,
                            const char *name, bh_format_kind kind, unsigned index) {
    const char *label = bh_label(image);
    if (!(shdr->sh_flags & SHF_ALLOC) || shdr->sh_type == SHT_NOBITS) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) is not loaded into memory (flags 0x%llx, type %u); expected an "
                       "allocated PROGBITS section; its records were not read",
                       name, index, (unsigned long long)shdr->sh_flags, (unsigned)shdr->sh_type);
        return;
    }
    if (shdr->sh_size == 0) return; /* no records */
    const ElfW(Phdr) *load = bh_segment_of(image->phdrs, image->phnum, shdr->sh_addr, shdr->sh_size);
    if (!load) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) at 0x%llx+%llu lies outside every loaded segment; expected it inside a "
                       "PT_LOAD segment; its records were not read",
                       name, index, (unsigned long long)shdr->sh_addr, (unsigned long long)shdr->sh_size);
        return;
    }
    if (!(load->p_flags & PF_R)) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) lies in a loaded segment without read permission (flags 0x%x); "
                       "expected a readable segment; its records were not read",
                       name, index, (unsigned)load->p_flags);
        return;
    }
    if (shdr->sh_offset < load->p_offset || shdr->sh_offset - load->p_offset != shdr->sh_addr - load->p_vaddr) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u): its file offset 0x%llx disagrees with its address 0x%llx in the "
                       "segment at file offset 0x%llx; expected the offset the address implies; its records were "
                       "not read",
                       name, index, (unsigned long long)shdr->sh_offset, (unsigned long long)shdr->sh_addr,
                       (unsigned long long)load->p_offset);
        return;
    }
    if (shdr->sh_size > BH_MAX_SECTION_SIZE) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) is %llu bytes; expected at most %u; its records were not read", name,
                       index, (unsigned long long)shdr->sh_size, BH_MAX_SECTION_SIZE);
        return;
    }
    if ((uint64_t)file_size < shdr->sh_offset || (uint64_t)file_size - shdr->sh_offset < shdr->sh_size) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u) ends at file offset 0x%llx, but the file has %lld bytes (truncated "
                       "since it was loaded?); its records were not read",
                       name, index, (unsigned long long)(shdr->sh_offset + shdr->sh_size), (long long)file_size);
        return;
    }
    size_t size = (size_t)shdr->sh_size;
    unsigned char *bytes = malloc(size);
    if (!bytes) {
        bh_add_problem(s, label, image->id, 0, "out of memory reading section %s (%zu bytes)", name, size);
        return;
    }
    if (kind == BH_FORMAT_KIND_TYPES) {
        /* Typed records hold pointers that the loader relocated: read them from memory, not from the file. */
        if (bh_copy_memory(1, bytes, image->base + shdr->sh_addr, size) != 0) {
            bh_add_problem(s, label, image->id, 0,
                           "section %s (index %u): its %zu bytes could not be read from memory; its typed records "
                           "were not read (their services resolve by name)",
                           name, index, size);
            free(bytes);
            return;
        }
        bh_check_typed_records(s, image, name, bytes, size);
        bh_queue_section(s, image, name, kind, bytes, size, shdr->sh_offset, shdr->sh_addr, index);
        return;
    }
    /* The bytes the section header describes, checked above: one pread into the queued buffer (elf_getdata would
     * read them into a buffer of libelf's, to be copied again). */
    size_t done = bh_pread_all(fd, bytes, size, shdr->sh_offset);
    if (done < size) {
        bh_add_problem(s, label, image->id, 0,
                       "section %s (index %u): read %zu of %zu bytes from the file (truncated since it was "
                       "loaded?); its records were not read",
                       name, index, done, size);
        free(bytes);
        return;
    }
    bh_queue_section(s, image, name, kind, bytes, size, shdr->sh_offset, shdr->sh_addr, index);
}

/* Whether the section name table holds `name` as a whole name: at its start or after a NUL, and ended by a NUL. */
static int bh_name_table_holds(const char *table, size_t size, const char *name) {
    size_t length = strlen(name);
    if (length > BH_MAX_SECTION_NAME) return 0;
    if (length < size && memcmp(table, name, length + 1) == 0) return 1;
    char needle[BH_MAX_SECTION_NAME + 2]; /* NUL, the name, NUL */
    needle[0] = '\0';
    memcpy(needle + 1, name, length + 1);
    return memmem(table, size, needle, length + 2) != NULL;
}

/* The names the notes want, for messages: "beehive_services" or "beehive_services, …". */
#define BH_WANTED_FORMAT "%zu record sections its BeeHive note names (%s%s)"
#define BH_WANTED_ARGS(image) \
    (image)->wanted.count, (image)->wanted.items[0].name, (image)->wanted.count > 1 ? ", …" : ""

/* An opened file's section name table, as libelf read it. */
typedef struct {
    size_t index;
    const char *bytes;
    size_t size;
} bh_name_table;

/*
 * Checks the section header table and the section name table of an ELF file of our class and byte order (checked by
 * the caller) before its sections are visited: libelf takes a table that runs past the end of the file for no table,
 * and reads entries of its class's size whatever e_shentsize says. Returns the number of sections, or 0 after adding
 * a problem.
 */
static size_t bh_check_section_tables(bh_scanner *s, bh_image *image, const bh_elf_library *elf, bh_elf *file,
                                      off_t file_size, const Elf64_Ehdr *ehdr, bh_name_table *names) {
    const char *label = bh_label(image);
    size_t count = 0;
    if (ehdr->e_shoff == 0) {
        bh_add_problem(s, label, image->id, 0,
                       "the image has no section headers (stripped with --strip-sections?); expected them to "
                       "locate the " BH_WANTED_FORMAT "; their records were not read",
                       BH_WANTED_ARGS(image));
        return 0;
    }
    if (ehdr->e_shentsize != sizeof(ElfW(Shdr))) {
        bh_add_problem(s, label, image->id, 0,
                       "the image's section headers are %u bytes each; expected %zu, to locate the " BH_WANTED_FORMAT
                       "; their records were not read",
                       (unsigned)ehdr->e_shentsize, sizeof(ElfW(Shdr)), BH_WANTED_ARGS(image));
        return 0;
    }
    if (elf->getshdrnum(file, &count) != 0 || count == 0) {
        /* libelf counts none when e_shnum's table, or the first header that holds the count (e_shnum 0), does not
         * fit in the file; a first header that fits and counts 0 means no sections. */
        if (ehdr->e_shnum == 0 && bh_inside_file(file_size, ehdr->e_shoff, 1, sizeof(ElfW(Shdr))))
            bh_add_problem(s, label, image->id, 0,
                           "the image has no section headers (e_shnum 0, and the first header at file offset 0x%llx "
                           "counts none, or more than the file holds); expected them to locate the " BH_WANTED_FORMAT
                           "; their records were not read",
                           (unsigned long long)ehdr->e_shoff, BH_WANTED_ARGS(image));
        else
            bh_add_problem(s, label, image->id, 0,
                           "the image's %llu section headers at file offset 0x%llx lie past the end of the file "
                           "(%lld bytes: truncated since it was loaded?); expected them inside the file to locate "
                           "the " BH_WANTED_FORMAT "; their records were not read",
                           (unsigned long long)(ehdr->e_shnum ? ehdr->e_shnum : 1),
                           (unsigned long long)ehdr->e_shoff, (long long)file_size, BH_WANTED_ARGS(image));
        return 0;
    }
    Elf64_Shdr first;
    bh_elf_scn *zero = elf->getscn(file, 0);
    if (zero == NULL || elf->getshdr(zero, &first) == NULL) {
        bh_add_problem(s, label, image->id, 0,
                       "the image's section headers could not be read from the file (truncated since it was "
                       "loaded?); expected them to locate the " BH_WANTED_FORMAT "; their records were not read",
                       BH_WANTED_ARGS(image));
        return 0;
    }
    size_t index = 0;
    Elf64_Shdr header;
    bh_elf_scn *table = NULL;
    bh_elf_data *data = NULL;
    const char *problem = NULL;
    if (elf->getshdrstrndx(file, &index) != 0 || index == SHN_UNDEF || index >= count ||
        (table = elf->getscn(file, index)) == NULL || elf->getshdr(table, &header) == NULL)
        problem = "no such section";
    else if (header.sh_type != SHT_STRTAB)
        problem = "not a string table";
    else if (!bh_inside_file(file_size, header.sh_offset, 1, header.sh_size))
        problem = "past the end of the file";
    else if (header.sh_size == 0)
        problem = "empty";
    else if ((data = elf->rawdata(table, NULL)) == NULL || data->buffer == NULL || data->size != header.sh_size)
        problem = "truncated since it was loaded?";
    else if (((const char *)data->buffer)[data->size - 1] != '\0')
        problem = "not ended by a NUL byte";
    if (problem) {
        bh_add_problem(s, label, image->id, 0,
                       "the section name table cannot be read (section %llu of %llu: %s); expected it to locate the "
                       BH_WANTED_FORMAT "; their records were not read",
                       (unsigned long long)index, (unsigned long long)count, problem, BH_WANTED_ARGS(image));
        return 0;
    }
    names->index = index;
    names->bytes = data->buffer;
    names->size = data->size;
    return count;
}

/* Reads the wanted sections of an opened image file. libelf must be loaded (bh_libelf_if_loaded). */
void bh_scan_file(bh_scanner *s, bh_image *image, int fd, off_t file_size) {
    const char *label = bh_label(image);
    const bh_elf_library *elf = bh_libelf_if_loaded();
    if (!elf) {
        bh_add_problem(s, label, image->id, 0,
                       "the image's record sections are found by its section headers (record format 1 or 2), which "
                       "BeeHive reads with libelf; expected libelf.so.1 (package libelf1); found none; its records "
                       "were not read");
        return;
    }
    bh_elf *file = elf->begin(fd, BH_ELF_C_READ, NULL);
    Elf64_Ehdr ehdr;
    if (file == NULL || elf->kind(file) != BH_ELF_K_ELF || elf->getehdr(file, &ehdr) == NULL) {
        unsigned char magic[4] = {0};
        size_t n = bh_pread_all(fd, magic, sizeof magic, 0);
        int elf_magic = n == sizeof magic && memcmp(magic, ELFMAG, SELFMAG) == 0;
        if (elf_magic && (uint64_t)file_size >= sizeof(Elf64_Ehdr))
            /* An ELF class, byte order or version libelf does not know, or a count of sections it refuses. */
            bh_add_problem(s, label, image->id, 0,
                           "the file on disk differs from the loaded image (libelf cannot read its ELF header: another "
                           "class, byte order or version, or a section count past 2^32; rebuilt or rewritten since it "
                           "was loaded?); its records were not read");
        else
            bh_add_problem(s, label, image->id, 0,
                           "expected an ELF file; found %s (%lld bytes, starting %02x %02x %02x %02x); its records "
                           "were not read",
                           file_size == 0 ? "an empty file"
                           : !elf_magic   ? "a file without the ELF magic"
                                          : "an ELF header cut short",
                           (long long)file_size, magic[0], magic[1], magic[2], magic[3]);
        if (file) elf->end(file);
        return;
    }
    /* The loaded image is of this process's class and byte order: a file of another is not the one loaded. */
    if (ehdr.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) ||
        ehdr.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB) ||
        !bh_phdrs_match(elf, file, &ehdr, image)) {
        bh_add_problem(s, label, image->id, 0,
                       "the file on disk differs from the loaded image (its program headers changed: rebuilt or "
                       "rewritten since it was loaded); its records were not read");
        elf->end(file);
        return;
    }
    bh_name_table names = {0};
    size_t count = bh_check_section_tables(s, image, elf, file, file_size, &ehdr, &names);
    if (count == 0) {
        elf->end(file);
        return;
    }
    /* How many headers carry each wanted name, and the first one's index: only the first is read, so that a file of
     * N bytes with N/64 headers of one name costs one read of that section, not N/64 of them. */
    size_t found[BH_MAX_WANTED] = {0};
    unsigned first[BH_MAX_WANTED] = {0};
    size_t unreadable = 0;
    for (bh_elf_scn *scn = elf->nextscn(file, NULL); scn; scn = elf->nextscn(file, scn)) { /* from section 1 */
        size_t index = elf->ndxscn(scn);
        Elf64_Shdr shdr;
        const char *name = elf->getshdr(scn, &shdr) ? elf->strptr(file, names.index, shdr.sh_name) : NULL;
        if (!name) {
            unreadable++;
            continue;
        }
        for (size_t w = 0; w < image->wanted.count; w++) {
            if (image->wanted.items[w].located) continue; /* read from memory (located.c) */
            const char *wanted = image->wanted.items[w].name;
            if (name[0] != wanted[0] || strcmp(name, wanted) != 0) continue;
            if (found[w]++ > 0) continue;
            first[w] = (unsigned)index;
            bh_read_section(s, image, fd, file_size, &shdr, name, image->wanted.items[w].kind, (unsigned)index);
        }
    }
    /* beehive.h names every kind of section in the note, so a missing one normally means no records of that
     * kind. Records may have been lost when section names could not be read, or when the section name table holds
     * the name (linkers and strip write only the names of sections they emit) but no header carries it: an sh_name
     * pointing at another name. */
    for (size_t w = 0; w < image->wanted.count; w++) {
        const char *name = image->wanted.items[w].name;
        if (image->wanted.items[w].located) continue;
        if (found[w] > 1)
            bh_add_problem(s, label, image->id, 0,
                           "%zu section headers carry the name %s; expected one (a linker merges sections of one "
                           "name); only the first (index %u) was read",
                           found[w], name, first[w]);
        if (found[w]) continue;
        if (unreadable > 0)
            bh_add_problem(s, label, image->id, 0,
                           "the BeeHive note names section %s, but no section of that name was found, and %zu section "
                           "headers have names that cannot be read (corrupt sh_name or string table); expected readable "
                           "section headers; records in them may be lost",
                           name, unreadable);
        else if (bh_name_table_holds(names.bytes, names.size, name))
            bh_add_problem(s, label, image->id, 0,
                           "the section name table holds %s, but no section header carries that name (a corrupt "
                           "sh_name?); expected the header of the record section the BeeHive note names; its records "
                           "were not read",
                           name);
    }
    elf->end(file);
}
