/*
 * sections.c — the record sections of an opened image file. libelf reads its section headers (ELF_C_READ: pread,
 * no mapping, so a file truncated since load gives an error, not SIGBUS); every section with a name the notes
 * give is checked (allocated, inside a readable loaded segment, where its address says) and read into memory:
 * JSON records from the file, typed records (which hold relocated pointers) from memory. Records are parsed
 * later, in Swift.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void bh_queue_section(bh_scanner *s, bh_image *image, const char *name, bh_kind kind, unsigned char *bytes,
                             size_t size, uint64_t file_offset, uint64_t address, unsigned index) {
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

static void bh_init_libelf(void) { elf_version(EV_CURRENT); }

/* Does the file's program header table equal the one the loader mapped? Catches a file rewritten since load. */
static int bh_phdrs_match(Elf *elf, const bh_image *image) {
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) != 0 || phnum != image->phnum) return 0;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        const ElfW(Phdr) *mem = &image->phdrs[i];
        if (!gelf_getphdr(elf, (int)i, &ph)) return 0;
        if (ph.p_type != mem->p_type || ph.p_offset != mem->p_offset || ph.p_vaddr != mem->p_vaddr ||
            ph.p_filesz != mem->p_filesz || ph.p_memsz != mem->p_memsz || ph.p_flags != mem->p_flags)
            return 0;
    }
    return 1;
}

/* Checks one wanted section and reads it from the file. */
static void bh_read_section(bh_scanner *s, bh_image *image, int fd, off_t file_size, const GElf_Shdr *shdr,
                            const char *name, bh_kind kind, unsigned index) {
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
    if (kind == BH_KIND_TYPES) {
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
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, bytes + done, size - done, (off_t)(shdr->sh_offset + done));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
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
static int bh_name_table_holds(Elf *elf, size_t shstrndx, const char *name) {
    Elf_Scn *scn = elf_getscn(elf, shstrndx);
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    if (!data || !data->d_buf) return 0;
    const char *table = data->d_buf;
    size_t size = data->d_size, length = strlen(name);
    if (length > BH_MAX_SECTION_NAME) return 0;
    if (length < size && memcmp(table, name, length + 1) == 0) return 1;
    char needle[BH_MAX_SECTION_NAME + 2]; /* NUL, the name, NUL */
    needle[0] = '\0';
    memcpy(needle + 1, name, length + 1);
    return memmem(table, size, needle, length + 2) != NULL;
}

/* Reads the wanted sections of an opened image file. */
void bh_scan_file(bh_scanner *s, bh_image *image, int fd, off_t file_size) {
    static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
    pthread_once(&elf_once, bh_init_libelf);
    const char *label = bh_label(image);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        unsigned char magic[4] = {0};
        ssize_t n = pread(fd, magic, sizeof magic, 0);
        bh_add_problem(s, label, image->id, 0,
                       "expected an ELF file; found %s (%lld bytes, starting %02x %02x %02x %02x); its records were "
                       "not read",
                       n <= 0 ? "an empty file" : "a file without the ELF magic", (long long)file_size, magic[0],
                       magic[1], magic[2], magic[3]);
        goto done;
    }
    if (!bh_phdrs_match(elf, image)) {
        bh_add_problem(s, label, image->id, 0,
                       "the file on disk differs from the loaded image (its program headers changed: rebuilt or "
                       "rewritten since it was loaded); its records were not read");
        goto done;
    }
    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || shnum == 0) {
        GElf_Ehdr ehdr;
        /* libelf counts no sections when the table lies past the end of the file: say so. */
        if (gelf_getehdr(elf, &ehdr) && ehdr.e_shoff != 0 && ehdr.e_shnum != 0 &&
            (uint64_t)file_size < ehdr.e_shoff + (uint64_t)ehdr.e_shnum * ehdr.e_shentsize)
            bh_add_problem(s, label, image->id, 0,
                           "the image's %u section headers at file offset 0x%llx lie past the end of the file "
                           "(%lld bytes: truncated since it was loaded?); expected them inside the file to locate the "
                           "%zu record sections its BeeHive note names (%s%s); their records were not read",
                           (unsigned)ehdr.e_shnum, (unsigned long long)ehdr.e_shoff, (long long)file_size,
                           image->wanted.count, image->wanted.items[0].name, image->wanted.count > 1 ? ", …" : "");
        else
            bh_add_problem(s, label, image->id, 0,
                           "the image has no section headers (stripped with --strip-sections?); expected them to "
                           "locate the %zu record sections its BeeHive note names (%s%s); their records were not read",
                           image->wanted.count, image->wanted.items[0].name, image->wanted.count > 1 ? ", …" : "");
        goto done;
    }
    if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
        bh_add_problem(s, label, image->id, 0,
                       "the section name table cannot be read (%s); expected a valid e_shstrndx; the record "
                       "sections were not read",
                       elf_errmsg(-1));
        goto done;
    }
    unsigned char found[BH_MAX_WANTED] = {0};
    size_t unreadable = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        const char *name = gelf_getshdr(scn, &shdr) ? elf_strptr(elf, shstrndx, shdr.sh_name) : NULL;
        if (!name) {
            unreadable++;
            continue;
        }
        for (size_t w = 0; w < image->wanted.count; w++) {
            const char *wanted = image->wanted.items[w].name;
            if (name[0] != wanted[0] || strcmp(name, wanted) != 0) continue;
            found[w] = 1;
            bh_read_section(s, image, fd, file_size, &shdr, name, image->wanted.items[w].kind,
                            (unsigned)elf_ndxscn(scn));
        }
    }
    /* beehive.h names every kind of section in the note, so a missing one normally means no records of that
     * kind. Records may have been lost when section names could not be read, or when the section name table holds
     * the name (linkers and strip write only the names of sections they emit) but no header carries it: an sh_name
     * pointing at another name. */
    for (size_t w = 0; w < image->wanted.count; w++) {
        if (found[w]) continue;
        const char *name = image->wanted.items[w].name;
        if (unreadable > 0)
            bh_add_problem(s, label, image->id, 0,
                           "the BeeHive note names section %s, but no section of that name was found, and %zu section "
                           "headers have names that cannot be read (corrupt sh_name or string table); expected readable "
                           "section headers; records in them may be lost",
                           name, unreadable);
        else if (bh_name_table_holds(elf, shstrndx, name))
            bh_add_problem(s, label, image->id, 0,
                           "the section name table holds %s, but no section header carries that name (a corrupt "
                           "sh_name?); expected the header of the record section the BeeHive note names; its records "
                           "were not read",
                           name);
    }
done:
    if (elf) elf_end(elf);
}
