/*
 * walk.c — the walk over the loaded images. dl_iterate_phdr visits every loaded image while the loader's lock is
 * held, so the walk does no file I/O: glibc's dlpi_adds/dlpi_subs tell, in the first callback, whether any image
 * was loaded or unloaded since the last walk (if not, the walk stops there); for each image not seen before, its
 * program headers are copied and its notes read from memory (notes.c). Images without a BeeHive note are done.
 */
#define _GNU_SOURCE
#include "scanner_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

/* ---- The walk: inside dl_iterate_phdr, memory only ------------------------- */

typedef struct {
    bh_scanner *scanner;
    size_t visited;
    int short_circuit;
    int careful;      /* copy notes with process_vm_readv */
    int subs_changed; /* an image was unloaded since the last walk */
    int knows_subs;   /* the loader gives dlpi_subs: the memo may be used */
    unsigned long long subs;
    size_t known;      /* images of earlier walks: the first `known` of the scanner's images */
    size_t known_next; /* the one of those after the one found last */
    size_t memo_next;  /* the memo's entry after the one found last */
} bh_walk;

/* ---- The memo: images any walk of this process found without a BeeHive note -------------------------------
 *
 * Every scanner walks the loaded images once when it is made, and a new hive's walk copied every image's program
 * headers and notes again (about 3 us each). What a walk found in an image without a BeeHive note cannot change
 * while that image stays mapped, and nothing can be mapped at its address before something is unloaded: so the
 * memo keeps (address, program headers' address, name) of such images, valid while the loader's count of unloaded
 * images (dlpi_subs) has not moved. A later walk of any scanner takes an image it finds there as checked, without
 * copying anything. An image whose notes gave a diagnostic is not kept, so that every scanner reports it; images
 * with a note are not kept either: their notes are read each time. The memo is emptied when that count moves. It
 * is used only inside dl_iterate_phdr's callback, under its own lock, while nothing else is called. */

typedef struct {
    uintptr_t base;
    const void *phdr_address;
    uint64_t name_hash, note_hash;
} bh_memo_entry;

static struct {
    pthread_mutex_t lock;
    unsigned long long subs;
    bh_memo_entry *items;
    size_t count, capacity;
} bh_memo = {PTHREAD_MUTEX_INITIALIZER, 0, NULL, 0, 0};

/* The memo's entry for this image, if a walk found it without a note and nothing was unloaded since; the entry after
 * the one this walk found last first, since the loader lists images in the same order each time (the memo lacks the
 * images with a note, so the walk's own position is not the entry's). */
static int bh_memo_find(bh_walk *walk, const struct dl_phdr_info *info, uint64_t name_hash, uint64_t *note_hash) {
    if (!walk->knows_subs) return 0;
    int found = 0;
    pthread_mutex_lock(&bh_memo.lock);
    if (bh_memo.subs == walk->subs) {
        for (size_t n = 0; n < bh_memo.count && !found; n++) {
            size_t index = (walk->memo_next + n) % bh_memo.count;
            const bh_memo_entry *entry = &bh_memo.items[index];
            if (entry->base == info->dlpi_addr && entry->phdr_address == info->dlpi_phdr &&
                entry->name_hash == name_hash) {
                *note_hash = entry->note_hash;
                walk->memo_next = index + 1;
                found = 1;
            }
        }
    }
    pthread_mutex_unlock(&bh_memo.lock);
    return found;
}

/* Remembers an image a walk found without a note; a full memo is emptied first if images were unloaded since. */
static void bh_memo_add(const bh_walk *walk, const struct dl_phdr_info *info, uint64_t name_hash, uint64_t note_hash) {
    if (!walk->knows_subs) return;
    pthread_mutex_lock(&bh_memo.lock);
    if (bh_memo.subs != walk->subs) {
        bh_memo.count = 0;
        bh_memo.subs = walk->subs;
    }
    if (bh_reserve((void **)&bh_memo.items, &bh_memo.capacity, bh_memo.count, sizeof *bh_memo.items))
        bh_memo.items[bh_memo.count++] = (bh_memo_entry){info->dlpi_addr, info->dlpi_phdr, name_hash, note_hash};
    pthread_mutex_unlock(&bh_memo.lock);
}

static uint64_t bh_name_hash(const char *name) {
    return name ? bh_hash_words(BH_HASH_SEED, name, strnlen(name, 4096)) : BH_HASH_SEED;
}

/* The image of a walk before this one at this address, with these headers and this name, not seen by this walk yet;
 * the image after the one this walk found last first, since the loader lists images in the same order each time.
 * Images this walk added (after `walk->known`) are not searched: a new scanner's first walk searches nothing. */
static bh_image *bh_find_image(bh_scanner *s, bh_walk *walk, uintptr_t base, const void *phdr, uint64_t name_hash) {
    for (size_t n = 0; n < walk->known; n++) {
        size_t index = (walk->known_next + n) % walk->known;
        bh_image *image = &s->images[index];
        if (image->base == base && image->phdr_address == phdr && image->name_hash == name_hash &&
            image->generation != s->generation) {
            walk->known_next = index + 1;
            return image;
        }
    }
    return NULL;
}

static int bh_is_vdso(struct dl_phdr_info *info) {
    uintptr_t vdso = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!vdso) return 0;
    const ElfW(Ehdr) *ehdr = (const ElfW(Ehdr) *)vdso;
    return (uintptr_t)info->dlpi_phdr == vdso + ehdr->e_phoff;
}

/* Remembers a new image of this walk (a fresh id, its address and name); NULL when memory is short. */
static bh_image *bh_add_image(bh_scanner *s, const struct dl_phdr_info *info, int is_main, uint64_t name_hash) {
    if (!bh_reserve((void **)&s->images, &s->image_capacity, s->image_count, sizeof *s->images)) return NULL;
    bh_image *image = &s->images[s->image_count++];
    memset(image, 0, sizeof *image);
    image->id = bh_new_image_id();
    image->base = info->dlpi_addr;
    image->phdr_address = info->dlpi_phdr;
    image->name_hash = name_hash;
    image->generation = s->generation;
    image->is_main = (unsigned char)is_main;
    s->stats.images_new++;
    return image;
}

static int bh_visit_image(bh_scanner *s, bh_walk *walk, struct dl_phdr_info *info, bh_image *known,
                          const ElfW(Phdr) *phdrs, size_t phnum, int is_main, uint64_t name_hash, const char *label);

static int bh_visit(struct dl_phdr_info *info, size_t size, void *data) {
    bh_walk *walk = data;
    bh_scanner *s = walk->scanner;
    if (walk->visited++ == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) {
        if (s->walked && info->dlpi_adds == s->adds && info->dlpi_subs == s->subs) {
            walk->short_circuit = 1;
            return 1; /* nothing was loaded or unloaded since the last walk */
        }
        walk->subs_changed = s->walked && info->dlpi_subs != s->subs;
        walk->knows_subs = s->knows_subs = 1;
        walk->subs = info->dlpi_subs;
        s->adds = info->dlpi_adds;
        s->subs = info->dlpi_subs;
    }
    int is_main = walk->visited == 1 && (!info->dlpi_name || !info->dlpi_name[0]);
    uint64_t name_hash = bh_name_hash(info->dlpi_name);
    const char *label = is_main ? "main executable" : (info->dlpi_name ? info->dlpi_name : "");

    bh_image *known = bh_find_image(s, walk, info->dlpi_addr, info->dlpi_phdr, name_hash);
    if (known && !walk->subs_changed) {
        known->generation = s->generation;
        return 0;
    }
    uint64_t memo_hash;
    if (!known && !(s->flags & BH_SCAN_ALL_IMAGES) && bh_memo_find(walk, info, name_hash, &memo_hash)) {
        bh_image *image = bh_add_image(s, info, is_main, name_hash);
        if (image) image->note_hash = memo_hash;
        return 0;
    }
    /* The program headers, copied first: after startup, an image's file may have been truncated since load. */
    ElfW(Phdr) stack_phdrs[64];
    size_t phnum = info->dlpi_phnum;
    ElfW(Phdr) *phdrs = phnum <= 64 ? stack_phdrs : malloc(phnum * sizeof *phdrs);
    uintptr_t headers = (uintptr_t)info->dlpi_phdr;
    size_t headers_size = phnum * sizeof *phdrs;
    if (!phdrs || (phnum && (walk->careful ? bh_copy_loaded(s, phdrs, headers, headers_size, info->dlpi_addr, phdrs,
                                                            phnum)
                                           : bh_copy_memory(0, phdrs, headers, headers_size)) != 0)) {
        if (!known) {
            /* Remembered without its headers, so that the next walks neither read nor report it again. */
            bh_image *image = bh_add_image(s, info, is_main, name_hash);
            uint64_t id = image ? image->id : 0;
            bh_add_problem(s, label, id, 0,
                           "the image's %zu program headers cannot be read (the memory faults: is the file truncated "
                           "since it was loaded?); the image was not scanned",
                           phnum);
        }
        if (phdrs != stack_phdrs) free(phdrs);
        if (known) known->generation = s->generation; /* cannot tell: keep what it registered */
        return 0;
    }
    int result = bh_visit_image(s, walk, info, known, phdrs, phnum, is_main, name_hash, label);
    if (phdrs != stack_phdrs) free(phdrs);
    return result;
}

/* Scans an image whose program headers were copied: a new one, or a known one after images were unloaded. */
static int bh_visit_image(bh_scanner *s, bh_walk *walk, struct dl_phdr_info *info, bh_image *known,
                          const ElfW(Phdr) *phdrs, size_t phnum, int is_main, uint64_t name_hash, const char *label) {
    if (known) {
        /* An address may have been reused: the notes (build-id, BeeHive note) must match too. */
        bh_notes notes;
        bh_read_notes(s, info->dlpi_addr, phdrs, phnum, bh_label(known), known->id, walk->careful, 0, &notes);
        bh_wanted_free(&notes.wanted);
        if (notes.hash == known->note_hash) {
            known->generation = s->generation;
            return 0;
        }
    }

    bh_image *image = bh_add_image(s, info, is_main, name_hash);
    if (!image) return 0;

    bh_notes notes;
    size_t problems = s->problem_count;
    bh_read_notes(s, info->dlpi_addr, phdrs, phnum, label, image->id, walk->careful, 1, &notes);
    image->note_hash = notes.hash;
    if (notes.marked) s->stats.images_marked++;
    if (!notes.marked) {
        bh_wanted_free(&notes.wanted);
        if (s->problem_count == problems) bh_memo_add(walk, info, name_hash, notes.hash); /* each hive reports */
        if (!(s->flags & BH_SCAN_ALL_IMAGES)) return 0;
        bh_want_defaults(&notes.wanted);
    }
    if (notes.wanted.dropped)
        bh_add_problem(s, label, image->id, 0,
                       "the BeeHive notes name more than %d record sections; expected at most %d; %zu were not read",
                       BH_MAX_WANTED, BH_MAX_WANTED, notes.wanted.dropped);
    if (notes.wanted.too_long)
        bh_add_problem(s, label, image->id, 0,
                       "the BeeHive notes name %zu record sections whose names exceed %d bytes; expected shorter "
                       "names; those sections were not read",
                       notes.wanted.too_long, BH_MAX_SECTION_NAME);
    if (notes.wanted.count == 0) {
        bh_wanted_free(&notes.wanted);
        return 0;
    }
    /* After the check above: an image whose sections are all left out still counts as one with records, and reports
     * none. */
    bh_drop_unkept(s, &notes.wanted);
    image->phdrs = malloc(phnum * sizeof *image->phdrs);
    image->name = bh_strdup(label);
    if (!image->phdrs || !image->name) {
        bh_add_problem(s, label, image->id, 1, "out of memory while recording the image; will retry");
        free(image->phdrs);
        free(image->name);
        bh_wanted_free(&notes.wanted);
        s->image_count--; /* forget it: the next walk sees it as new */
        s->walked = 0;
        return 0;
    }
    memcpy(image->phdrs, phdrs, phnum * sizeof *image->phdrs);
    image->phnum = phnum;
    image->wanted = notes.wanted;
    image->marked = 1;
    image->is_vdso = (unsigned char)bh_is_vdso(info);
    image->pending = 1;
    s->pending++;
    return 0;
}

/* One walk over the loaded images, then the unloaded images are forgotten. Call with the lock held. */
int bh_walk_images(bh_scanner *s, int careful, int counts_as_scan) {
    uint64_t start = bh_now_ns();
    s->generation++;
    bh_walk walk = {s, 0, 0, careful, 0, 0, 0, s->image_count, 0, 0};
    dl_iterate_phdr(bh_visit, &walk);
    s->stats.scans += counts_as_scan;
    if (walk.short_circuit) {
        s->stats.scans_short_circuit++;
    } else {
        s->walked = 1;
        s->stats.images_seen = walk.visited;
        size_t kept = 0;
        for (size_t i = 0; i < s->image_count; i++) {
            bh_image *image = &s->images[i];
            if (image->generation == s->generation)
                s->images[kept++] = *image;
            else
                bh_forget_image(s, image);
        }
        s->image_count = kept;
    }
    uint64_t elapsed = bh_now_ns() - start;
    s->stats.last_scan_ns = counts_as_scan ? elapsed : s->stats.last_scan_ns + elapsed;
    if (s->stats.scans == 1 && counts_as_scan) s->stats.first_scan_ns = elapsed;
    s->stats.total_scan_ns += elapsed;
    return walk.subs_changed;
}
