/*
 * scanner.c — finds BeeHive record sections in every loaded ELF image: the scanner's life, its scans and
 * drains, and the startup scan. The other files of this target do one concern each (scanner_internal.h).
 *
 * 1. The walk. dl_iterate_phdr visits every loaded image while the loader's lock is held, so the
 *    walk does no file I/O: glibc's dlpi_adds/dlpi_subs tell, in the first callback, whether any
 *    image was loaded or unloaded since the last walk (if not, the walk stops there); for each
 *    image not seen before, its program headers are copied and its PT_NOTE segments are read from
 *    memory, after checking that they lie inside readable, file-backed PT_LOAD segments. An image
 *    that includes beehive.h carries a note (owner "BeeHive", type 1) naming its record sections.
 *    Images without it are done: no file is ever opened for them.
 * 2. After the walk, the record sections that a note of format version 3 places in memory (the linker's
 *    __start_ and __stop_ bounds) are copied from there (located.c): for images written by this version's
 *    beehive.h, nothing else is needed, and no file is opened.
 * 3. Sections no note places (format 1 and 2: the Swift macros' and C macros' images of BeeHive before format 3)
 *    are read from the image's file: each such image is opened through the kernel's mapping of it
 *    (/proc/self/map_files, or the path /proc/self/maps gives, checked by device and inode), never
 *    blocking and only if it is a regular file. Its section headers are read with libelf (ELF_C_READ: pread,
 *    no mapping, so a file truncated since load gives an error, not SIGBUS), loaded with dlopen the first time
 *    such an image is met, with no lock of the scanner held; every section with a listed name is checked
 *    (allocated, inside a readable loaded segment, where its address says) and read from the file into memory.
 *    Records are parsed later, in Swift.
 *
 * Identity. An image is known by its load address, program-header address and name; when an image
 * was unloaded since the last walk (dlpi_subs moved), also by the hash of its notes (GNU build-id
 * and BeeHive note) and, for images with records, by the device and inode of the file the kernel
 * mapped. So a new image at an old address is scanned as new and the old one reported unloaded.
 * Every image gets an id, never reused, that travels with its sections, problems and unloading.
 */
#define _GNU_SOURCE
#include "bh_pinning.h"
#include "elf_library.h"
#include "scanner_internal.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/* ---- Scans ----------------------------------------------------------------- */

bh_scanner *bh_scanner_create(int flags) {
    bh_scanner *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    pthread_mutex_init(&s->lock, NULL);
    s->flags = flags;
    return s;
}

static void bh_free_kept(bh_scanner *s) {
    for (size_t i = 0; i < s->kept_count; i++) free(s->kept_sections[i]);
    free(s->kept_sections);
    s->kept_sections = NULL;
    s->kept_count = 0;
    s->filters_sections = 0;
}

int bh_scanner_keep_only(bh_scanner *s, const char *const *names, size_t count) {
    pthread_mutex_lock(&s->lock);
    bh_free_kept(s);
    int result = 0;
    s->kept_sections = count ? calloc(count, sizeof *s->kept_sections) : NULL;
    if (count && !s->kept_sections) result = -1;
    for (size_t i = 0; result == 0 && i < count; i++)
        if (!(s->kept_sections[s->kept_count++] = bh_strdup(names[i]))) result = -1;
    if (result == 0) s->filters_sections = 1;
    else bh_free_kept(s);
    pthread_mutex_unlock(&s->lock);
    return result;
}

int bh_scanner_keeps(const bh_scanner *s, const char *name, size_t length) {
    if (!s->filters_sections) return 1;
    for (size_t i = 0; i < s->kept_count; i++)
        if (strlen(s->kept_sections[i]) == length && memcmp(s->kept_sections[i], name, length) == 0) return 1;
    return 0;
}

void bh_drop_unkept(const bh_scanner *s, bh_wanted_list *list) {
    if (!s->filters_sections) return;
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (bh_scanner_keeps(s, list->items[i].name, strlen(list->items[i].name)))
            list->items[kept++] = list->items[i];
        else
            free(list->items[i].name);
    }
    list->count = kept;
}

static void bh_free_pending(bh_scanner *s) {
    for (size_t i = 0; i < s->section_count; i++) {
        free((void *)s->sections[i].section.image_path);
        free((void *)s->sections[i].section.section_name);
        free(s->sections[i].section.bytes);
    }
    for (size_t i = 0; i < s->problem_count; i++) {
        free(s->problems[i].image_path);
        free(s->problems[i].message);
    }
    for (size_t i = 0; i < s->unloaded_count; i++) free(s->unloaded[i].image_path);
    s->section_count = s->problem_count = s->unloaded_count = 0;
}

void bh_scanner_destroy(bh_scanner *s) {
    if (!s) return;
    bh_free_pending(s);
    bh_free_kept(s);
    for (size_t i = 0; i < s->image_count; i++) bh_image_free(&s->images[i]);
    free(s->images);
    free(s->sections);
    free(s->problems);
    free(s->unloaded);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* Forgets what is queued for an image that never reached a drain. */
static void bh_drop_queued(bh_scanner *s, uint64_t id) {
    size_t kept = 0;
    for (size_t i = 0; i < s->section_count; i++) {
        bh_section *sec = &s->sections[i].section;
        if (sec->image_id != id) {
            s->sections[kept++] = s->sections[i];
            continue;
        }
        free((void *)sec->image_path);
        free((void *)sec->section_name);
        free(sec->bytes);
    }
    s->section_count = kept;
    kept = 0;
    for (size_t i = 0; i < s->problem_count; i++) {
        if (s->problems[i].image_id != id) {
            s->problems[kept++] = s->problems[i];
            continue;
        }
        free(s->problems[i].image_path);
        free(s->problems[i].message);
    }
    s->problem_count = kept;
}

/* Removes an image that is gone; reports it if it may have registered anything. */
void bh_forget_image(bh_scanner *s, bh_image *image) {
    s->stats.images_removed++;
    if (image->pending) s->pending--;
    if (image->delivered) {
        if (bh_reserve((void **)&s->unloaded, &s->unloaded_capacity, s->unloaded_count, sizeof *s->unloaded)) {
            s->unloaded[s->unloaded_count].image_path = bh_strdup(bh_label(image));
            s->unloaded[s->unloaded_count].image_id = image->id;
            if (s->unloaded[s->unloaded_count].image_path) s->unloaded_count++;
        }
    } else {
        bh_drop_queued(s, image->id);
    }
    bh_image_free(image);
}

static void bh_verify_identities(bh_scanner *s, bh_lazy_maps *lazy) {
    size_t count = s->image_count;
    for (size_t i = 0; i < count; i++) {
        bh_image *image = &s->images[i];
        int same = image->opened ? bh_same_file(image, lazy)
                                 : !image->located_read || image->is_main || bh_same_records(image);
        if (same) continue;
        /* Keep the copies the new image needs, report the old one. */
        bh_image fresh = *image;
        fresh.id = bh_new_image_id();
        fresh.path = NULL;
        fresh.opened = fresh.delivered = fresh.transient_reported = fresh.located_read = 0;
        fresh.pending = 1;
        fresh.phdrs = malloc(image->phnum * sizeof *image->phdrs);
        fresh.name = image->name ? bh_strdup(image->name) : NULL;
        bh_wanted_copy(&image->wanted, &fresh.wanted);
        if (fresh.phdrs) memcpy(fresh.phdrs, image->phdrs, image->phnum * sizeof *image->phdrs);
        bh_forget_image(s, image);
        if (!fresh.phdrs) {
            bh_image_free(&fresh);
            s->images[i] = s->images[--s->image_count];
            s->walked = 0; /* seen again as new by the next walk */
            continue;
        }
        s->images[i] = fresh;
        s->pending++;
    }
}

/* Opens every pending image. Call with the lock held; the loader's lock is not held. */
static void bh_open_pending(bh_scanner *s, int subs_changed) {
    int verify = subs_changed && s->image_count > 0;
    if (s->pending == 0 && !verify) return;
    uint64_t start = bh_now_ns();
    bh_lazy_maps lazy = {0};
    if (verify) bh_verify_identities(s, &lazy);
    for (size_t i = 0; i < s->image_count && s->pending > 0; i++)
        if (s->images[i].pending) bh_open_image(s, &s->images[i], &lazy);
    if (lazy.state == 1) bh_maps_free(&lazy.maps);
    s->stats.open_ns += bh_now_ns() - start;
}

static int bh_read_subs(struct dl_phdr_info *info, size_t size, void *data) {
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(unsigned long long *)data = info->dlpi_subs;
    return 1;
}

static unsigned long long bh_current_subs(void) {
    unsigned long long subs = 0;
    dl_iterate_phdr(bh_read_subs, &subs);
    return subs;
}

/*
 * Walks, then opens what the walk found. An image unloaded while files were being read is caught by
 * walking again (at most BH_MAX_RESCANS times), so nothing it queued reaches a drain. Images still pending from an
 * earlier walk (the one before main) need no second look while the loader's counters have not moved: none of them
 * was unloaded. Call with the lock held.
 */
static void bh_scan_locked(bh_scanner *s, int counts_as_scan) {
    for (int round = 0; round < BH_MAX_RESCANS; round++) {
        int subs_changed = bh_walk_images(s, 1, counts_as_scan && round == 0);
        bh_find_swift_records(s);
        bh_open_pending(s, subs_changed);
        if (bh_current_subs() == s->subs) break;
    }
}

/*
 * When an image waits for libelf (image_file.c), loads it with the scanner's lock released, and returns 1: the scan
 * must run again. dlopen takes the loader's lock, and a thread that holds it (in a plugin's constructor) may be
 * waiting for this scanner's lock. At most once per scan: then libelf is loaded, or known to be missing, or could not
 * be loaded for a cause that can pass (no file descriptor left), and the images wait for the next scan, with a
 * warning. Call with the lock held.
 */
static int bh_load_libelf_unlocked(bh_scanner *s) {
    if (!s->wants_libelf) return 0;
    s->wants_libelf = 0;
    pthread_mutex_unlock(&s->lock);
    int error = 0;
    bh_libelf_load(&error);
    pthread_mutex_lock(&s->lock);
    s->libelf_error = error; /* the images wait for the next scan (image_file.c) */
    return 1;
}

size_t bh_scanner_scan(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    size_t before = s->section_count;
    s->libelf_error = 0;
    bh_scan_locked(s, 1);
    while (bh_load_libelf_unlocked(s)) {
        if (s->section_count < before) before = 0; /* drained by another thread meanwhile */
        bh_scan_locked(s, 0);
    }
    size_t found = s->section_count - before;
    pthread_mutex_unlock(&s->lock);
    return found;
}

void bh_scanner_mark(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    /* Before main: the images were just mapped by the loader, so their notes are read directly. */
    bh_walk_images(s, 0, 1);
    pthread_mutex_unlock(&s->lock);
}

void bh_scanner_drain(bh_scanner *s, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                      bh_unload_fn on_unload) {
    pthread_mutex_lock(&s->lock);
    if (s->pending > 0 || bh_swift_search_due(s)) {
        s->libelf_error = 0;
        bh_scan_locked(s, 0);
        while (bh_load_libelf_unlocked(s)) bh_scan_locked(s, 0);
    }
    for (size_t i = 0; i < s->unloaded_count; i++)
        if (on_unload) on_unload(context, s->unloaded[i].image_path, s->unloaded[i].image_id);
    for (size_t i = 0; i < s->problem_count; i++) {
        bh_problem problem = {s->problems[i].image_path, s->problems[i].image_id, s->problems[i].message,
                              s->problems[i].transient};
        if (on_problem) on_problem(context, &problem);
    }
    for (size_t i = 0; i < s->section_count; i++) {
        bh_section *section = &s->sections[i].section;
        for (size_t j = 0; j < s->image_count; j++)
            if (s->images[j].id == section->image_id) s->images[j].delivered = 1;
        if (on_section) {
            on_section(context, section);
            section->bytes = NULL; /* the callback owns them now */
        }
    }
    bh_free_pending(s);
    pthread_mutex_unlock(&s->lock);
}

int bh_scanner_has_pending(bh_scanner *s) {
    pthread_mutex_lock(&s->lock);
    int pending = s->section_count + s->problem_count + s->unloaded_count + s->pending > 0 || bh_swift_search_due(s);
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

uint64_t bh_unloaded_image_count(void) { return (uint64_t)bh_current_subs(); }

uintptr_t bh_image_base(const void *address) {
    Dl_info info;
    return dladdr(address, &info) != 0 ? (uintptr_t)info.dli_fbase : 0;
}

const void *bh_scanner_image_address(bh_scanner *s, uint64_t id) {
    const void *address = NULL;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->image_count && !address; i++)
        if (s->images[i].id == id) address = s->images[i].phdr_address;
    pthread_mutex_unlock(&s->lock);
    return address;
}

const void *bh_main_program_address(void) { return (const void *)getauxval(AT_PHDR); }

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
    bh_pin_note_startup_images((const void *)&bh_scan_at_startup);
    const char *mode = getenv("BEEHIVE_SCAN");
    int flags = (mode && strcmp(mode, "all") == 0) ? BH_SCAN_ALL_IMAGES : 0;
    if (mode && strcmp(mode, "off") == 0) return;
    /* A relative path of the program is resolved now, before main can change the working directory. */
    const char *executed = (const char *)getauxval(AT_EXECFN);
    if (executed && executed[0] != '/') free(bh_main_program_path());
    bh_startup = bh_scanner_create(flags);
    if (bh_startup) bh_scanner_mark(bh_startup); /* files wait for the first drain */
}

