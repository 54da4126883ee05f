/*
 * elf_library.c — libelf, loaded when first needed (dlopen "libelf.so.1", RTLD_LOCAL), never linked: a program that
 * never reads an ELF file through it keeps libelf and libz out of its loader's global scope (about 450 K
 * instructions and 0.16 ms per process, Docs/Design.md). Only the few functions BeeHive calls are declared here,
 * with the types of elfutils' stable ABI (libelf.h, gelf.h), so that building BeeHive needs no libelf-dev.
 *
 * No lock of BeeHive's is held while dlopen runs, and none is taken here: a thread that holds the loader's lock (a
 * plugin's constructor) and calls in never waits for another thread's dlopen (which would wait for it). Two first
 * calls at once each load the library (dlopen counts references); the first to publish its table wins.
 */
#define _GNU_SOURCE
#include "elf_library.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

/* NULL until loaded; `&unavailable` once libelf was looked for and not found. */
static const bh_elf_library *loaded;
static const bh_elf_library unavailable;

#define BH_ELF_SYMBOL(field, name)                                                                                     \
    if ((*(void **)&library->field = dlsym(handle, name)) == NULL) return 0;

static int bh_elf_resolve(void *handle, bh_elf_library *library) {
    BH_ELF_SYMBOL(version, "elf_version")
    BH_ELF_SYMBOL(begin, "elf_begin")
    BH_ELF_SYMBOL(end, "elf_end")
    BH_ELF_SYMBOL(kind, "elf_kind")
    BH_ELF_SYMBOL(getphdrnum, "elf_getphdrnum")
    BH_ELF_SYMBOL(getehdr, "gelf_getehdr")
    BH_ELF_SYMBOL(getphdr, "gelf_getphdr")
    BH_ELF_SYMBOL(getdata_rawchunk, "elf_getdata_rawchunk")
    BH_ELF_SYMBOL(getshdrnum, "elf_getshdrnum")
    BH_ELF_SYMBOL(getshdrstrndx, "elf_getshdrstrndx")
    BH_ELF_SYMBOL(getscn, "elf_getscn")
    BH_ELF_SYMBOL(nextscn, "elf_nextscn")
    BH_ELF_SYMBOL(ndxscn, "elf_ndxscn")
    BH_ELF_SYMBOL(getshdr, "gelf_getshdr")
    BH_ELF_SYMBOL(rawdata, "elf_rawdata")
    BH_ELF_SYMBOL(strptr, "elf_strptr")
    BH_ELF_SYMBOL(errmsg, "elf_errmsg")
    return library->version(EV_CURRENT) != EV_NONE;
}

/* Whether a failed dlopen may succeed later: the process cannot open a file now (no descriptor, no memory). dlopen
 * does not say why it failed (errno is not reliably set), so one open of "/" tells. */
static int bh_elf_transient_failure(void) {
    int probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int error = probe < 0 ? errno : 0;
    if (probe >= 0) close(probe);
    return error == EMFILE || error == ENFILE || error == ENOMEM || error == EAGAIN || error == EINTR ? error : 0;
}

const bh_elf_library *bh_libelf_load(int *error) {
    *error = 0;
    const bh_elf_library *known = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
    if (known == NULL) {
        const bh_elf_library *found = &unavailable;
        bh_elf_library *library = calloc(1, sizeof *library);
        void *handle = library ? dlopen("libelf.so.1", RTLD_NOW | RTLD_LOCAL) : NULL;
        if (handle != NULL && bh_elf_resolve(handle, library)) found = library;
        if (handle == NULL && (*error = library ? bh_elf_transient_failure() : ENOMEM) != 0) {
            free(library); /* not published: a later call tries again */
            return NULL;
        }
        const bh_elf_library *expected = NULL;
        if (__atomic_compare_exchange_n(&loaded, &expected, found, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            known = found;
            if (found == &unavailable) free(library); /* the handle, if any, stays: dlclose would take the lock */
        } else {
            known = expected; /* another thread published first: its table is the one used */
            free(library);
        }
    }
    return known == &unavailable ? NULL : known;
}

const bh_elf_library *bh_libelf(void) {
    int error;
    return bh_libelf_load(&error);
}

const bh_elf_library *bh_libelf_if_loaded(void) {
    const bh_elf_library *known = __atomic_load_n(&loaded, __ATOMIC_ACQUIRE);
    return known == &unavailable ? NULL : known;
}

int bh_libelf_missing(void) { return __atomic_load_n(&loaded, __ATOMIC_ACQUIRE) == &unavailable; }
