/*
 * pinning.c — keeps images of Swift code mapped (see bh_pinning.h).
 *
 * The walk reads each new image's dynamic section from memory (DT_NEEDED names through DT_STRTAB) and notes the
 * names of those of Swift code (they import swift_addNewDSOImage); the pinning (dlopen, which takes the loader's lock) happens after the
 * walk has returned. An image is known by its base address and name: a pinned image is never unmapped, so its
 * base is never reused by another image, and the set only grows with the Swift images the process loads.
 */
#define _GNU_SOURCE
#include "bh_pinning.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
/* Bases of the images pinned so far (sorted), guarded by pin_lock. */
static uintptr_t *pinned = NULL;
static size_t pinned_count = 0, pinned_capacity = 0;
/* The loader's counters at the last walk: an unchanged dlpi_adds means no image was loaded since. */
static unsigned long long last_adds = 0;

/* Every image of Swift code calls this from the constructor the Swift driver links into it (swiftrt.o), to hand its
 * metadata sections to the runtime: an image that imports it is one the runtime keeps pointers into. An image that
 * merely needs libswiftCore.so (SwiftPM links C products with it) is not. */
static const char swift_registration[] = "swift_addNewDSOImage";

/* An address of the dynamic section, relocated by glibc on most targets; an offset still to add the base to on a
 * few (MIPS, RISC-V's vDSO). */
static uintptr_t relocated(uintptr_t value, uintptr_t base) { return value < base ? base + value : value; }

/* Whether one table of relocations names the registration function. */
static int names_registration(
    uintptr_t table, size_t size, size_t entry_size, int with_addend, const ElfW(Sym) *symbols, const char *strings,
    size_t strings_size) {
    if (table == 0 || entry_size == 0) return 0;
    for (size_t offset = 0; offset + entry_size <= size; offset += entry_size) {
        ElfW(Xword) info = with_addend ? ((const ElfW(Rela) *)(table + offset))->r_info
                                       : ((const ElfW(Rel) *)(table + offset))->r_info;
#if __ELF_NATIVE_CLASS == 64
        size_t index = ELF64_R_SYM(info);
#else
        size_t index = ELF32_R_SYM(info);
#endif
        if (index == 0) continue;
        size_t name = symbols[index].st_name;
        if (name >= strings_size || strings_size - name < sizeof swift_registration) continue;
        if (memcmp(strings + name, swift_registration, sizeof swift_registration) == 0) return 1;
    }
    return 0;
}

int bh_image_needs_swift(const void *dynamic, uintptr_t base) {
    if (dynamic == NULL) return 0;
    const char *strings = NULL;
    const ElfW(Sym) *symbols = NULL;
    size_t strings_size = 0, rela_size = 0, rel_size = 0, plt_size = 0, rela_entry = sizeof(ElfW(Rela));
    size_t rel_entry = sizeof(ElfW(Rel));
    uintptr_t rela = 0, rel = 0, plt = 0;
    int plt_with_addend = 1;
    for (const ElfW(Dyn) *d = dynamic; d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
        case DT_STRTAB: strings = (const char *)relocated(d->d_un.d_ptr, base); break;
        case DT_STRSZ: strings_size = d->d_un.d_val; break;
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)relocated(d->d_un.d_ptr, base); break;
        case DT_RELA: rela = relocated(d->d_un.d_ptr, base); break;
        case DT_RELASZ: rela_size = d->d_un.d_val; break;
        case DT_RELAENT: rela_entry = d->d_un.d_val; break;
        case DT_REL: rel = relocated(d->d_un.d_ptr, base); break;
        case DT_RELSZ: rel_size = d->d_un.d_val; break;
        case DT_RELENT: rel_entry = d->d_un.d_val; break;
        case DT_JMPREL: plt = relocated(d->d_un.d_ptr, base); break;
        case DT_PLTRELSZ: plt_size = d->d_un.d_val; break;
        case DT_PLTREL: plt_with_addend = d->d_un.d_val == DT_RELA; break;
        default: break;
        }
    }
    if (strings == NULL || symbols == NULL || strings_size == 0) return 0;
    return names_registration(plt, plt_size, plt_with_addend ? sizeof(ElfW(Rela)) : sizeof(ElfW(Rel)),
                              plt_with_addend, symbols, strings, strings_size)
        || names_registration(rela, rela_size, rela_entry, 1, symbols, strings, strings_size)
        || names_registration(rel, rel_size, rel_entry, 0, symbols, strings, strings_size);
}

/* Reads exactly `size` bytes at `offset`; 0 on a short read or an error. */
static int read_at(int fd, void *buffer, size_t size, off_t offset) {
    size_t done = 0;
    while (done < size) {
        ssize_t n = pread(fd, (char *)buffer + done, size - done, offset + (off_t)done);
        if (n <= 0) return 0;
        done += (size_t)n;
    }
    return 1;
}

/*
 * Whether the file of an image that registers with the Swift runtime has Swift metadata the runtime will keep
 * pointers into: a non-empty swift5_* section. SwiftPM links its runtime registration into C products too, with
 * empty sections: those the runtime never reads, and they may be unloaded. A file that cannot be read counts as
 * Swift (pinning is the safe side). Reads the ELF header, the section headers and their names: bounded by the file.
 */
static int file_has_swift_metadata(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    int result = 1;
    ElfW(Ehdr) header;
    ElfW(Shdr) *sections = NULL;
    char *names = NULL;
    if (!read_at(fd, &header, sizeof header, 0) || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0
        || header.e_shentsize != sizeof(ElfW(Shdr)) || header.e_shnum == 0 || header.e_shstrndx >= header.e_shnum)
        goto done;
    sections = malloc((size_t)header.e_shnum * sizeof *sections);
    if (sections == NULL || !read_at(fd, sections, (size_t)header.e_shnum * sizeof *sections, (off_t)header.e_shoff))
        goto done;
    const ElfW(Shdr) *strings = &sections[header.e_shstrndx];
    if (strings->sh_size == 0 || strings->sh_size > (1u << 24)) goto done;
    names = malloc(strings->sh_size + 1);
    if (names == NULL || !read_at(fd, names, strings->sh_size, (off_t)strings->sh_offset)) goto done;
    names[strings->sh_size] = '\0';
    result = 0;
    for (unsigned i = 0; i < header.e_shnum; i++) {
        if (sections[i].sh_name >= strings->sh_size || sections[i].sh_size == 0) continue;
        const char *name = names + sections[i].sh_name;
        if (strncmp(name, "swift5_", 7) == 0) {
            result = 1;
            break;
        }
    }
done:
    free(names);
    free(sections);
    close(fd);
    return result;
}

int bh_file_has_swift_metadata(const char *path) { return file_has_swift_metadata(path); }

static int is_pinned(uintptr_t base) {
    size_t low = 0, high = pinned_count;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (pinned[mid] == base) return 1;
        if (pinned[mid] < base) low = mid + 1; else high = mid;
    }
    return 0;
}

static int remember(uintptr_t base) {
    if (pinned_count == pinned_capacity) {
        size_t capacity = pinned_capacity ? pinned_capacity * 2 : 32;
        uintptr_t *grown = realloc(pinned, capacity * sizeof *grown);
        if (grown == NULL) return 0;
        pinned = grown;
        pinned_capacity = capacity;
    }
    size_t at = pinned_count;
    while (at > 0 && pinned[at - 1] > base) {
        pinned[at] = pinned[at - 1];
        at--;
    }
    pinned[at] = base;
    pinned_count++;
    return 1;
}

/* Images to pin, found by one walk. */
typedef struct {
    char **names;
    uintptr_t *bases;
    size_t count, capacity;
    int changed;  /* dlpi_adds moved since the last walk */
    int failed;   /* out of memory: try again next time */
} candidates;

static int visit(struct dl_phdr_info *info, size_t size, void *context) {
    candidates *found = context;
    if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
    if (found->count == 0 && found->changed == 0) {
        if (info->dlpi_adds == last_adds) return 1; /* nothing was loaded since the last walk */
        found->changed = 1;
        last_adds = info->dlpi_adds;
    }
    /* The program itself ("") and images without a name are never unloaded. */
    if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0' || is_pinned(info->dlpi_addr)) return 0;
    const void *dynamic = NULL;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) {
            dynamic = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
            break;
        }
    }
    if (!bh_image_needs_swift(dynamic, info->dlpi_addr)) return 0;
    if (found->count == found->capacity) {
        size_t capacity = found->capacity ? found->capacity * 2 : 16;
        char **names = realloc(found->names, capacity * sizeof *names);
        if (names == NULL) { found->failed = 1; return 1; }
        found->names = names;
        uintptr_t *bases = realloc(found->bases, capacity * sizeof *bases);
        if (bases == NULL) { found->failed = 1; return 1; }
        found->bases = bases;
        found->capacity = capacity;
    }
    char *name = strdup(info->dlpi_name);
    if (name == NULL) { found->failed = 1; return 1; }
    found->names[found->count] = name;
    found->bases[found->count] = info->dlpi_addr;
    found->count++;
    return 0;
}

/* BEEHIVE_PIN=off turns pinning off: for tests that show what it prevents, never for a program. */
static pthread_once_t switch_once = PTHREAD_ONCE_INIT;
static int pinning_disabled = 0;

static void read_switch(void) {
    const char *value = getenv("BEEHIVE_PIN");
    pinning_disabled = value != NULL && strcmp(value, "off") == 0;
}

size_t bh_pin_swift_images(void) {
    pthread_once(&switch_once, read_switch);
    if (pinning_disabled) return 0;
    pthread_mutex_lock(&pin_lock);
    candidates found = {0};
    dl_iterate_phdr(visit, &found);
    if (found.failed) last_adds = 0; /* walk again next time */
    size_t pinned_now = 0;
    for (size_t i = 0; i < found.count; i++) {
        /* Outside the walk: dlopen takes the loader's lock. RTLD_NOLOAD only raises the flags of an image that is
         * loaded (and fails for one unloaded since the walk); the extra reference is given back at once, the
         * NODELETE flag stays. */
        if (!file_has_swift_metadata(found.names[i])) {
            /* C code registered with empty sections: left unpinned (looked at again after the next load). */
            free(found.names[i]);
            continue;
        }
        void *handle = dlopen(found.names[i], RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        if (handle != NULL) {
            dlclose(handle);
            if (remember(found.bases[i])) pinned_now++;
            else last_adds = 0;
        }
        free(found.names[i]);
    }
    free(found.names);
    free(found.bases);
    pthread_mutex_unlock(&pin_lock);
    return pinned_now;
}

size_t bh_pinned_image_count(void) {
    pthread_mutex_lock(&pin_lock);
    size_t count = pinned_count;
    pthread_mutex_unlock(&pin_lock);
    return count;
}
