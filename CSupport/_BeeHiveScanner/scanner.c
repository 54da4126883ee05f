/*
 * scanner.c — finds BeeHive record sections in every loaded ELF image.
 *
 * 1. dl_iterate_phdr visits every loaded image. glibc's dlpi_adds/dlpi_subs tell, in
 *    the first callback, whether any image was loaded or unloaded since the last
 *    walk; if not, the walk stops there.
 * 2. For an image not seen before, its PT_NOTE segments are read from memory. An
 *    image that includes beehive.h carries a note (owner "BeeHive", type 1) naming
 *    its record sections. Images without it are done: no file is opened.
 * 3. A marked image is opened with libelf; every section with a listed name is
 *    checked (allocated, inside a loaded segment) and queued with its address in
 *    memory: dlpi_addr + sh_addr. Records are parsed later, in Swift.
 */
#define _GNU_SOURCE
#include "bh_scanner.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#define BH_NOTE_OWNER "BeeHive"
#define BH_NOTE_TYPE 1u
#define BH_SUPPORTED_VERSION 1u
#define BH_MAX_WANTED 16

typedef struct {
    bh_kind kind;
    char name[128];
} bh_wanted;

typedef struct {
    uintptr_t base; /* dlpi_addr */
    const ElfW(Phdr) *phdr;
    char *path;
    uint64_t generation;
    /* A marked image whose sections are not read yet (the startup scan defers libelf). */
    int pending;
    /* The sections a marked image's note names; NULL for the (many) unmarked images. */
    size_t wanted_count;
    bh_wanted *wanted;
} bh_image;

typedef struct {
    bh_section section; /* strings owned */
} bh_pending_section;

typedef struct {
    char *image_path;
    char *message;
} bh_pending_problem;

struct bh_scanner {
    pthread_mutex_t lock;
    int flags;
    int walked;
    size_t pending;
    unsigned long long adds, subs;
    uint64_t generation;

    bh_image *images;
    size_t image_count, image_capacity;

    bh_pending_section *sections;
    size_t section_count, section_capacity;
    bh_pending_problem *problems;
    size_t problem_count, problem_capacity;
    char **unloaded;
    size_t unloaded_count, unloaded_capacity;

    bh_scan_stats stats;
};

/* ---- Small helpers --------------------------------------------------------- */

static uint64_t bh_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *bh_strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy) memcpy(copy, s, n);
    return copy;
}

/* Grows `*array` (of `size`-byte elements) to hold one more; returns 0 on failure. */
static int bh_reserve(void **array, size_t *capacity, size_t count, size_t size) {
    if (count < *capacity) return 1;
    size_t grown = *capacity ? *capacity * 2 : 16;
    void *p = realloc(*array, grown * size);
    if (!p) return 0;
    *array = p;
    *capacity = grown;
    return 1;
}

static void bh_add_problem(bh_scanner *s, const char *image, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void bh_add_problem(bh_scanner *s, const char *image, const char *format, ...) {
    char message[512];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof message, format, args);
    va_end(args);
    if (!bh_reserve((void **)&s->problems, &s->problem_capacity, s->problem_count, sizeof *s->problems)) return;
    bh_pending_problem *p = &s->problems[s->problem_count];
    p->image_path = bh_strdup(image);
    p->message = bh_strdup(message);
    if (p->image_path && p->message) {
        s->problem_count++;
    } else {
        free(p->image_path);
        free(p->message);
    }
}

/* ---- Notes, read from memory ----------------------------------------------- */

static int bh_kind_from_prefix(const char *entry, bh_kind *kind, const char **name) {
    static const struct {
        const char *prefix;
        bh_kind kind;
    } table[] = {
        {"services=", BH_KIND_SERVICES},
        {"modules=", BH_KIND_MODULES},
        {"routes=", BH_KIND_ROUTES},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        size_t n = strlen(table[i].prefix);
        if (strncmp(entry, table[i].prefix, n) == 0) {
            *kind = table[i].kind;
            *name = entry + n;
            return 1;
        }
    }
    return 0;
}

static void bh_want(bh_wanted *wanted, size_t *count, bh_kind kind, const char *name, size_t length) {
    if (length == 0 || length >= sizeof wanted[0].name) return;
    for (size_t i = 0; i < *count; i++) {
        if (wanted[i].kind == kind && strlen(wanted[i].name) == length && memcmp(wanted[i].name, name, length) == 0)
            return;
    }
    if (*count == BH_MAX_WANTED) return;
    wanted[*count].kind = kind;
    memcpy(wanted[*count].name, name, length);
    wanted[*count].name[length] = 0;
    (*count)++;
}

/* Parses one BeeHive note descriptor: u32 version, then NUL-terminated "kind=section" strings. */
static void bh_parse_note(bh_scanner *s, const char *image, const unsigned char *desc, size_t size,
                          bh_wanted *wanted, size_t *count) {
    uint32_t version;
    if (size < sizeof version) {
        bh_add_problem(s, image, "BeeHive note of %zu bytes is too short: expected at least a 4-byte version", size);
        return;
    }
    memcpy(&version, desc, sizeof version);
    if (version != BH_SUPPORTED_VERSION) {
        bh_add_problem(s, image, "BeeHive note has format version %u; this scanner reads version %u, image skipped",
                       version, BH_SUPPORTED_VERSION);
        return;
    }
    const char *p = (const char *)desc + sizeof version;
    const char *end = (const char *)desc + size;
    while (p < end) {
        const char *nul = memchr(p, 0, (size_t)(end - p));
        if (!nul) break; /* trailing padding is zeros; a truncated string is ignored */
        bh_kind kind;
        const char *name;
        if (nul > p && bh_kind_from_prefix(p, &kind, &name)) bh_want(wanted, count, kind, name, (size_t)(nul - name));
        p = nul + 1;
    }
}

/* Collects the section names an image announces in its notes. Returns 1 if it has a BeeHive note. */
static int bh_read_notes(bh_scanner *s, struct dl_phdr_info *info, const char *image, bh_wanted *wanted,
                         size_t *count) {
    int marked = 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE) continue;
        size_t align = ph->p_align == 8 ? 8 : 4;
        const unsigned char *p = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
        const unsigned char *end = p + ph->p_memsz;
        while ((size_t)(end - p) >= 12) {
            uint32_t namesz, descsz, type;
            memcpy(&namesz, p, 4);
            memcpy(&descsz, p + 4, 4);
            memcpy(&type, p + 8, 4);
            const unsigned char *name = p + 12;
            size_t name_span = (namesz + align - 1) & ~(align - 1);
            size_t desc_span = (descsz + align - 1) & ~(align - 1);
            if ((size_t)(end - name) < name_span || (size_t)(end - name) - name_span < descsz) break;
            const unsigned char *desc = name + name_span;
            if (type == BH_NOTE_TYPE && namesz == sizeof BH_NOTE_OWNER &&
                memcmp(name, BH_NOTE_OWNER, sizeof BH_NOTE_OWNER) == 0) {
                marked = 1;
                bh_parse_note(s, image, desc, descsz, wanted, count);
            }
            if ((size_t)(end - desc) < desc_span) break;
            p = desc + desc_span;
        }
    }
    return marked;
}

/* ---- Sections, found with libelf ------------------------------------------- */

/* Is [vaddr, vaddr + size) inside one PT_LOAD segment of the loaded image? */
static int bh_is_loaded(struct dl_phdr_info *info, uint64_t vaddr, uint64_t size) {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && vaddr >= ph->p_vaddr && size <= ph->p_filesz &&
            vaddr - ph->p_vaddr <= ph->p_filesz - size)
            return 1;
    }
    return 0;
}

/* Does the ELF header mapped in memory match the file's? Catches a file rebuilt since it was loaded. */
static int bh_header_matches(struct dl_phdr_info *info, Elf *elf) {
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && ph->p_offset == 0 && ph->p_filesz >= sizeof(ElfW(Ehdr))) {
            size_t size = 0;
            const char *raw = elf_rawfile(elf, &size);
            const void *mapped = (const void *)(info->dlpi_addr + ph->p_vaddr);
            return raw == NULL || size < sizeof(ElfW(Ehdr)) || memcmp(raw, mapped, sizeof(ElfW(Ehdr))) == 0;
        }
    }
    return 1; /* header not mapped: nothing to compare */
}

static void bh_queue_section(bh_scanner *s, const char *image, const char *name, bh_kind kind,
                             const unsigned char *bytes, size_t size, uint64_t file_offset, unsigned index) {
    if (!bh_reserve((void **)&s->sections, &s->section_capacity, s->section_count, sizeof *s->sections)) {
        bh_add_problem(s, image, "out of memory while queueing section %s", name);
        return;
    }
    bh_section *sec = &s->sections[s->section_count].section;
    sec->image_path = bh_strdup(image);
    sec->section_name = bh_strdup(name);
    if (!sec->image_path || !sec->section_name) {
        free((void *)sec->image_path);
        free((void *)sec->section_name);
        bh_add_problem(s, image, "out of memory while queueing section %s", name);
        return;
    }
    sec->kind = kind;
    sec->bytes = bytes;
    sec->size = size;
    sec->file_offset = file_offset;
    sec->section_index = index;
    s->section_count++;
    s->stats.sections_found++;
}

static void bh_init_libelf(void) { elf_version(EV_CURRENT); }

static void bh_scan_file(bh_scanner *s, struct dl_phdr_info *info, const char *open_path, const char *image,
                         const bh_wanted *wanted, size_t wanted_count) {
    static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
    pthread_once(&elf_once, bh_init_libelf);
    int fd = open(open_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        bh_add_problem(s, image, "cannot open the image file to read its section headers: %s", strerror(errno));
        return;
    }
    s->stats.images_opened++;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    size_t shstrndx = 0;
    if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0) {
        bh_add_problem(s, image, "libelf cannot read the file as ELF: %s", elf_errmsg(-1));
        goto done;
    }
    if (!bh_header_matches(info, elf)) {
        bh_add_problem(s, image, "the file on disk differs from the loaded image (rebuilt or replaced since it was "
                                 "loaded); its records were not read");
        goto done;
    }
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
        GElf_Shdr shdr;
        if (!gelf_getshdr(scn, &shdr)) continue;
        const char *name = elf_strptr(elf, shstrndx, shdr.sh_name);
        if (!name) continue;
        for (size_t w = 0; w < wanted_count; w++) {
            if (strcmp(name, wanted[w].name) != 0) continue;
            unsigned index = (unsigned)elf_ndxscn(scn);
            if (!(shdr.sh_flags & SHF_ALLOC) || shdr.sh_type == SHT_NOBITS) {
                bh_add_problem(s, image, "section %s (index %u) is not loaded into memory (flags 0x%llx, type %u); "
                                         "expected an allocated PROGBITS section",
                               name, index, (unsigned long long)shdr.sh_flags, (unsigned)shdr.sh_type);
            } else if (!bh_is_loaded(info, shdr.sh_addr, shdr.sh_size)) {
                bh_add_problem(s, image, "section %s (index %u) at 0x%llx+%llu lies outside every loaded segment",
                               name, index, (unsigned long long)shdr.sh_addr, (unsigned long long)shdr.sh_size);
            } else {
                const unsigned char *bytes = (const unsigned char *)(info->dlpi_addr + shdr.sh_addr);
                bh_queue_section(s, image, name, wanted[w].kind, bytes, (size_t)shdr.sh_size, shdr.sh_offset, index);
            }
        }
    }
done:
    if (elf) elf_end(elf);
    close(fd);
}

/* ---- The walk -------------------------------------------------------------- */

typedef struct {
    bh_scanner *scanner;
    size_t visited;
    int short_circuit;
    int defer_open;
} bh_walk;

static bh_image *bh_find_image(bh_scanner *s, uintptr_t base, const ElfW(Phdr) *phdr) {
    for (size_t i = 0; i < s->image_count; i++) {
        if (s->images[i].base == base && s->images[i].phdr == phdr) return &s->images[i];
    }
    return NULL;
}

static int bh_is_vdso(struct dl_phdr_info *info) {
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!vdso) return 0;
    const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *)vdso;
    return (uintptr_t)info->dlpi_phdr == vdso + ehdr->e_phoff;
}

/* Opens a marked image with libelf and queues its sections. Runs inside dl_iterate_phdr. */
static void bh_open_image(bh_scanner *s, struct dl_phdr_info *info, bh_image *image, int is_main) {
    char path[4096];
    const char *open_path;
    if (is_main) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        if (n < 0) n = (ssize_t)strlen(strcpy(path, "/proc/self/exe"));
        path[n] = 0;
        open_path = "/proc/self/exe";
    } else {
        snprintf(path, sizeof path, "%s", info->dlpi_name ? info->dlpi_name : "");
        open_path = path;
    }
    free(image->path);
    image->path = bh_strdup(path);
    image->pending = 0;
    s->pending--;
    if (path[0] && !bh_is_vdso(info)) { /* else no file behind it */
        uint64_t start = bh_now_ns();
        bh_scan_file(s, info, open_path, path, image->wanted, image->wanted_count);
        s->stats.open_ns += bh_now_ns() - start;
    }
    free(image->wanted);
    image->wanted = NULL;
    image->wanted_count = 0;
}

static int bh_visit(struct dl_phdr_info *info, size_t size, void *data) {
    bh_walk *walk = data;
    bh_scanner *s = walk->scanner;
    if (walk->visited++ == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        if (s->walked && info->dlpi_adds == s->adds && info->dlpi_subs == s->subs) {
            walk->short_circuit = 1;
            return 1; /* nothing was loaded or unloaded since the last walk */
        }
        s->adds = info->dlpi_adds;
        s->subs = info->dlpi_subs;
    }
    int is_main = walk->visited == 1 && (!info->dlpi_name || !info->dlpi_name[0]);

    bh_image *image = bh_find_image(s, info->dlpi_addr, info->dlpi_phdr);
    if (image) {
        image->generation = s->generation;
        if (image->pending && !walk->defer_open) bh_open_image(s, info, image, is_main);
        return 0;
    }
    if (!bh_reserve((void **)&s->images, &s->image_capacity, s->image_count, sizeof *s->images)) return 0;
    image = &s->images[s->image_count++];
    memset(image, 0, sizeof *image);
    image->base = info->dlpi_addr;
    image->phdr = info->dlpi_phdr;
    image->generation = s->generation;
    s->stats.images_new++;

    bh_wanted wanted[BH_MAX_WANTED];
    size_t wanted_count = 0;
    int marked = bh_read_notes(s, info, is_main ? "main executable" : info->dlpi_name, wanted, &wanted_count);
    if (marked) s->stats.images_marked++;
    if (!marked) {
        if (!(s->flags & BH_SCAN_ALL_IMAGES)) return 0;
        bh_want(wanted, &wanted_count, BH_KIND_SERVICES, "beehive_services", 16);
        bh_want(wanted, &wanted_count, BH_KIND_MODULES, "beehive_mods", 12);
        bh_want(wanted, &wanted_count, BH_KIND_ROUTES, "beehive_routes", 14);
    }
    if (wanted_count == 0) return 0;
    image->wanted = malloc(wanted_count * sizeof *wanted);
    if (!image->wanted) return 0;
    memcpy(image->wanted, wanted, wanted_count * sizeof *wanted);
    image->wanted_count = wanted_count;
    image->pending = 1;
    s->pending++;
    if (!walk->defer_open) bh_open_image(s, info, image, is_main);
    return 0;
}

/* ---- Public entry points --------------------------------------------------- */

bh_scanner *bh_scanner_create(int flags) {
    bh_scanner *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->flags = flags;
    return s;
}

static void bh_free_pending(bh_scanner *s) {
    for (size_t i = 0; i < s->section_count; i++) {
        free((void *)s->sections[i].section.image_path);
        free((void *)s->sections[i].section.section_name);
    }
    for (size_t i = 0; i < s->problem_count; i++) {
        free(s->problems[i].image_path);
        free(s->problems[i].message);
    }
    for (size_t i = 0; i < s->unloaded_count; i++) free(s->unloaded[i]);
    s->section_count = s->problem_count = s->unloaded_count = 0;
}

void bh_scanner_destroy(bh_scanner *s) {
    if (!s) return;
    bh_free_pending(s);
    for (size_t i = 0; i < s->image_count; i++) {
        free(s->images[i].path);
        free(s->images[i].wanted);
    }
    free(s->images);
    free(s->sections);
    free(s->problems);
    free(s->unloaded);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* One walk over the loaded images. Call with the lock held. */
static void bh_walk_images(bh_scanner *s, int defer_open, int counts_as_scan) {
    uint64_t start = bh_now_ns();
    s->generation++;
    bh_walk walk = {s, 0, 0, defer_open};
    dl_iterate_phdr(bh_visit, &walk);
    s->stats.scans += counts_as_scan;
    if (walk.short_circuit) {
        s->stats.scans_short_circuit++;
    } else {
        s->walked = 1;
        s->stats.images_seen = walk.visited;
        /* Images not visited by this walk were unloaded. */
        size_t kept = 0;
        for (size_t i = 0; i < s->image_count; i++) {
            bh_image *image = &s->images[i];
            if (image->generation == s->generation) {
                s->images[kept++] = *image;
                continue;
            }
            s->stats.images_removed++;
            if (image->pending) s->pending--;
            free(image->wanted);
            if (!image->path) continue; /* never opened: it registered nothing */
            if (bh_reserve((void **)&s->unloaded, &s->unloaded_capacity, s->unloaded_count, sizeof(char *)))
                s->unloaded[s->unloaded_count++] = image->path;
            else
                free(image->path);
        }
        s->image_count = kept;
    }
    uint64_t elapsed = bh_now_ns() - start;
    s->stats.last_scan_ns = counts_as_scan ? elapsed : s->stats.last_scan_ns + elapsed;
    if (s->stats.scans == 1 && counts_as_scan) s->stats.first_scan_ns = elapsed;
    s->stats.total_scan_ns += elapsed;
}

/* Opens the images a deferred walk marked. Call with the lock held. */
static void bh_open_pending(bh_scanner *s) {
    if (s->pending == 0) return;
    s->walked = 0; /* a full walk: do not stop at the first image */
    bh_walk_images(s, 0, 0);
}

size_t bh_scanner_scan(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    size_t before = s->section_count;
    bh_open_pending(s);
    bh_walk_images(s, 0, 1);
    size_t found = s->section_count - before;
    pthread_mutex_unlock(&s->lock);
    return found;
}

void bh_scanner_mark(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    bh_walk_images(s, 1, 1);
    pthread_mutex_unlock(&s->lock);
}

void bh_scanner_drain(bh_scanner *s, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                      bh_unload_fn on_unload) {
    pthread_mutex_lock(&s->lock);
    bh_open_pending(s);
    for (size_t i = 0; i < s->unloaded_count; i++)
        if (on_unload) on_unload(context, s->unloaded[i]);
    for (size_t i = 0; i < s->problem_count; i++) {
        bh_problem problem = {s->problems[i].image_path, s->problems[i].message};
        if (on_problem) on_problem(context, &problem);
    }
    for (size_t i = 0; i < s->section_count; i++)
        if (on_section) on_section(context, &s->sections[i].section);
    bh_free_pending(s);
    pthread_mutex_unlock(&s->lock);
}

int bh_scanner_has_pending(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    int pending = s->section_count + s->problem_count + s->unloaded_count + s->pending > 0;
    pthread_mutex_unlock(&s->lock);
    return pending;
}

static int bh_read_adds(struct dl_phdr_info *info, size_t size, void *data) {
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(uint64_t *)data = info->dlpi_adds;
    return 1; /* the first image carries the counter */
}

uint64_t bh_loaded_image_count(void) {
    uint64_t adds = 0;
    dl_iterate_phdr(bh_read_adds, &adds);
    return adds;
}

bh_scan_stats bh_scanner_stats(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    bh_scan_stats stats = s->stats;
    pthread_mutex_unlock(&s->lock);
    return stats;
}

/* ---- The startup scan ------------------------------------------------------ */

static bh_scanner *bh_startup;

bh_scanner *bh_startup_scanner(void) { return bh_startup; }

__attribute__((constructor)) static void bh_scan_at_startup(void) {
    const char *mode = getenv("BEEHIVE_SCAN");
    int flags = (mode && strcmp(mode, "all") == 0) ? BH_SCAN_ALL_IMAGES : 0;
    if (mode && strcmp(mode, "off") == 0) return;
    bh_startup = bh_scanner_create(flags);
    if (bh_startup) bh_scanner_mark(bh_startup); /* libelf waits for the first drain */
}
