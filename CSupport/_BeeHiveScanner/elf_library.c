/*
 * elf_library.c — libelf, loaded when first needed (dlopen "libelf.so.1", RTLD_LOCAL), never linked: a program that
 * never reads an ELF file through it keeps libelf and libz out of its loader's global scope (about 450 K
 * instructions and 0.16 ms per process, Docs/Design.md). Only the few functions BeeHive calls are declared here,
 * with the types of elfutils' stable ABI (libelf.h, gelf.h), so that building BeeHive needs no libelf-dev.
 */
#define _GNU_SOURCE
#include "elf_library.h"

#include <dlfcn.h>
#include <pthread.h>

static bh_elf_library library;
static int available;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define BH_ELF_SYMBOL(field, name)                                                                                     \
    if ((*(void **)&library.field = dlsym(handle, name)) == NULL) return;

static void bh_elf_load(void) {
    void *handle = dlopen("libelf.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return;
    BH_ELF_SYMBOL(version, "elf_version")
    BH_ELF_SYMBOL(begin, "elf_begin")
    BH_ELF_SYMBOL(end, "elf_end")
    BH_ELF_SYMBOL(kind, "elf_kind")
    BH_ELF_SYMBOL(getphdrnum, "elf_getphdrnum")
    BH_ELF_SYMBOL(getehdr, "gelf_getehdr")
    BH_ELF_SYMBOL(getphdr, "gelf_getphdr")
    BH_ELF_SYMBOL(getdata_rawchunk, "elf_getdata_rawchunk")
    BH_ELF_SYMBOL(getshdrstrndx, "elf_getshdrstrndx")
    BH_ELF_SYMBOL(nextscn, "elf_nextscn")
    BH_ELF_SYMBOL(getshdr, "gelf_getshdr")
    BH_ELF_SYMBOL(strptr, "elf_strptr")
    BH_ELF_SYMBOL(errmsg, "elf_errmsg")
    if (library.version(EV_CURRENT) == EV_NONE) return;
    available = 1;
}

const bh_elf_library *bh_libelf(void) {
    pthread_once(&once, bh_elf_load);
    return available ? &library : NULL;
}
