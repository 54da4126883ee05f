/*
 * plugin_files.c — what BeeHive checks before it copies or loads a plugin (see bh_plugins.h): the file, read with
 * libelf (loaded on demand), and the images the process has loaded, read from memory.
 */
#define _GNU_SOURCE
#include "bh_plugins.h"
#include "elf_library.h"
#include "scanner_internal.h"

#include <bh_note.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

/* Program headers read of a plugin's file, at most (real libraries have about ten). */
#define BH_MAX_PLUGIN_PROGRAM_HEADERS 4096
#define BH_MAX_PLUGIN_SECTIONS 65536

#if defined(__x86_64__)
#define BH_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define BH_MACHINE EM_AARCH64
#else
#define BH_MACHINE EM_NONE
#endif

/* Reads the notes of `bytes`: whether one is BeeHive's, and the GNU build-id. */
static void bh_plugin_notes(const unsigned char *bytes, size_t size, uint64_t align, int *beehive,
                            unsigned char *build_id, size_t *build_id_size) {
    bh_note_reader reader;
    bh_note_reader_init(&reader, bytes, size, align, 0);
    bh_note note;
    while (bh_note_next(&reader, &note)) {
        if (bh_note_is_beehive(&note)) *beehive = 1;
        if (bh_note_is_gnu_build_id(&note) && note.descsz > 0 && note.descsz <= BH_MAX_BUILD_ID) {
            memcpy(build_id, note.desc, note.descsz);
            *build_id_size = note.descsz;
        }
    }
}

static void bh_describe_start(int fd, bh_plugin_file *file, const char *what) {
    unsigned char head[4] = {0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    if (n <= 0) {
        snprintf(file->found, sizeof file->found, "%s: an empty file", what);
    } else {
        snprintf(file->found, sizeof file->found, "%s: its first bytes are %02x %02x %02x %02x, not ELF's 7f 45 4c 46",
                 what, head[0], head[1], head[2], head[3]);
    }
}

/* Whether the file has a section of the Swift macros' records (their JSON for tools, which every Swift annotation of
 * record format 3 writes beside its record in swift5_tests): such a plugin declares records without a note. Reads
 * at most BH_MAX_PLUGIN_SECTIONS section headers. */
static int bh_plugin_swift_records(const bh_elf_library *elf, bh_elf *image) {
    static const char *const names[] = {BH_FORMAT_SWIFT_SERVICES_SECTION, BH_FORMAT_SWIFT_MODULES_SECTION,
                                        BH_FORMAT_SWIFT_ROUTES_SECTION};
    size_t strings;
    if (elf->getshdrstrndx(image, &strings) != 0) return 0;
    bh_elf_scn *section = NULL;
    for (size_t i = 0; i < BH_MAX_PLUGIN_SECTIONS && (section = elf->nextscn(image, section)) != NULL; i++) {
        Elf64_Shdr header;
        if (elf->getshdr(section, &header) == NULL) continue;
        const char *name = elf->strptr(image, strings, header.sh_name);
        for (size_t n = 0; name && n < sizeof names / sizeof names[0]; n++)
            if (strcmp(name, names[n]) == 0) return 1;
    }
    return 0;
}

int bh_plugin_file_read(const char *path, bh_plugin_file *file) {
    memset(file, 0, sizeof *file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat info;
    if (fd < 0 || fstat(fd, &info) != 0) {
        snprintf(file->found, sizeof file->found, "%s", strerror(errno));
        if (fd >= 0) close(fd);
        return file->status = BH_PLUGIN_FILE_UNREADABLE;
    }
    file->device = (uint64_t)info.st_dev;
    file->inode = (uint64_t)info.st_ino;
    if (!S_ISREG(info.st_mode)) {
        snprintf(file->found, sizeof file->found, "not a regular file (mode %o)", (unsigned)(info.st_mode & S_IFMT));
        close(fd);
        return file->status = BH_PLUGIN_FILE_NOT_ELF;
    }
    const bh_elf_library *elf = bh_libelf();
    if (elf == NULL) {
        close(fd);
        return file->status = BH_PLUGIN_FILE_NO_READER;
    }
    bh_elf *image = elf->begin(fd, BH_ELF_C_READ_MMAP, NULL);
    Elf64_Ehdr header;
    size_t count = 0;
    if (image == NULL || elf->kind(image) != BH_ELF_K_ELF) {
        if (image != NULL && elf->kind(image) == 1 /* ELF_K_AR */)
            snprintf(file->found, sizeof file->found, "an ar archive (a static library)");
        else
            bh_describe_start(fd, file, "not an ELF file");
        file->status = BH_PLUGIN_FILE_NOT_ELF;
    } else if (elf->getehdr(image, &header) == NULL || elf->getphdrnum(image, &count) != 0) {
        snprintf(file->found, sizeof file->found, "an ELF file whose headers cannot be read (%s)", elf->errmsg(-1));
        file->status = BH_PLUGIN_FILE_NOT_ELF;
    } else {
        file->status = BH_PLUGIN_FILE_READ;
        file->elf_type = header.e_type;
        file->machine_matches = header.e_ident[EI_CLASS] == ELFCLASS64 && header.e_machine == BH_MACHINE;
        file->machine = header.e_machine;
        for (size_t i = 0; i < count && i < BH_MAX_PLUGIN_PROGRAM_HEADERS; i++) {
            Elf64_Phdr ph;
            if (elf->getphdr(image, (int)i, &ph) == NULL) break;
            if (ph.p_type == PT_INTERP) file->has_interpreter = 1;
            if (ph.p_type != PT_NOTE || ph.p_filesz == 0 || ph.p_filesz > BH_MAX_NOTE_SEGMENT) continue;
            bh_elf_data *data = elf->getdata_rawchunk(image, (int64_t)ph.p_offset, (size_t)ph.p_filesz, BH_ELF_T_BYTE);
            if (data == NULL || data->buffer == NULL) continue;
            bh_plugin_notes(data->buffer, data->size, ph.p_align, &file->has_beehive_note, file->build_id,
                            &file->build_id_size);
        }
        if (!file->has_beehive_note) file->has_swift_records = bh_plugin_swift_records(elf, image);
    }
    if (image != NULL) elf->end(image);
    close(fd);
    return file->status;
}

/* ---- The images the process has loaded ------------------------------------------------------------------------ */

typedef struct {
    bh_loaded_image *items;
    size_t count, capacity;
} bh_loaded_list;

/* Inside dl_iterate_phdr: names and build-ids, read from memory (careful copies); no I/O. */
static int bh_collect_image(struct dl_phdr_info *info, size_t size, void *context) {
    (void)size;
    bh_loaded_list *list = context;
    int is_main = list->count == 0;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (!is_main && name[0] != '/') return 0; /* the vDSO */
    if (!bh_reserve((void **)&list->items, &list->capacity, list->count, sizeof *list->items)) return 1;
    bh_loaded_image *image = &list->items[list->count];
    memset(image, 0, sizeof *image);
    image->is_main = is_main;
    image->path = is_main ? NULL : strdup(name);
    if (!is_main && image->path == NULL) return 1;
    unsigned char stack[4096];
    for (size_t i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE || ph->p_memsz == 0 || ph->p_memsz > BH_MAX_NOTE_SEGMENT) continue;
        if (!bh_segment_of(info->dlpi_phdr, info->dlpi_phnum, ph->p_vaddr, ph->p_memsz)) continue;
        /* A segment of many notes (the Swift macros write one per annotation) is copied to the heap. */
        unsigned char *buffer = ph->p_memsz <= sizeof stack ? stack : malloc(ph->p_memsz);
        if (buffer == NULL) continue;
        if (bh_copy_memory(1, buffer, info->dlpi_addr + ph->p_vaddr, ph->p_memsz) == 0) {
            int beehive = 0;
            bh_plugin_notes(buffer, ph->p_memsz, ph->p_align, &beehive, image->build_id, &image->build_id_size);
        }
        if (buffer != stack) free(buffer);
    }
    list->count++;
    return 0;
}

size_t bh_loaded_images(bh_loaded_image **images) {
    bh_loaded_list list = {0};
    dl_iterate_phdr(bh_collect_image, &list);
    /* The main program's path, outside the loader's lock. */
    if (list.count > 0 && list.items[0].is_main) {
        char buffer[4096];
        ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
        if (n > 0) {
            buffer[n] = '\0';
            list.items[0].path = strdup(buffer);
        } else {
            const char *given = (const char *)getauxval(AT_EXECFN);
            list.items[0].path = given ? realpath(given, NULL) : NULL;
        }
    }
    *images = list.items;
    return list.count;
}

void bh_loaded_images_free(bh_loaded_image *images, size_t count) {
    for (size_t i = 0; i < count; i++) free(images[i].path);
    free(images);
}
