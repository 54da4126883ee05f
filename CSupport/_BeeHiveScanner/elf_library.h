/*
 * elf_library.h — internal: libelf's functions, loaded on demand (elf_library.c). Not installed.
 */
#ifndef BH_ELF_LIBRARY_H
#define BH_ELF_LIBRARY_H

#include <elf.h>
#include <stddef.h>
#include <stdint.h>

/* elfutils' values (libelf.h): Elf_Cmd ELF_C_READ and ELF_C_READ_MMAP, Elf_Kind ELF_K_ELF, Elf_Type ELF_T_BYTE. */
enum { BH_ELF_C_READ = 1, BH_ELF_C_READ_MMAP = 8, BH_ELF_K_ELF = 3, BH_ELF_T_BYTE = 0 };

typedef struct bh_elf bh_elf;         /* libelf's Elf */
typedef struct bh_elf_scn bh_elf_scn; /* libelf's Elf_Scn */

/* libelf's Elf_Data. */
typedef struct {
    void *buffer;
    int type;
    unsigned version;
    size_t size;
    int64_t offset;
    size_t align;
} bh_elf_data;

typedef struct {
    unsigned (*version)(unsigned);
    bh_elf *(*begin)(int fd, int command, bh_elf *reference);
    int (*end)(bh_elf *);
    int (*kind)(bh_elf *);
    int (*getphdrnum)(bh_elf *, size_t *);
    Elf64_Ehdr *(*getehdr)(bh_elf *, Elf64_Ehdr *);
    Elf64_Phdr *(*getphdr)(bh_elf *, int, Elf64_Phdr *);
    bh_elf_data *(*getdata_rawchunk)(bh_elf *, int64_t offset, size_t size, int type);
    int (*getshdrnum)(bh_elf *, size_t *);
    int (*getshdrstrndx)(bh_elf *, size_t *);
    bh_elf_scn *(*getscn)(bh_elf *, size_t index);
    bh_elf_scn *(*nextscn)(bh_elf *, bh_elf_scn *);
    size_t (*ndxscn)(bh_elf_scn *);
    Elf64_Shdr *(*getshdr)(bh_elf_scn *, Elf64_Shdr *);
    bh_elf_data *(*rawdata)(bh_elf_scn *, bh_elf_data *);
    const char *(*strptr)(bh_elf *, size_t section, size_t offset);
    const char *(*errmsg)(int);
} bh_elf_library;

/*
 * libelf's functions, loaded the first time this is called; NULL when libelf.so.1 is not installed. The first call
 * takes the dynamic loader's lock (dlopen): never make it inside dl_iterate_phdr, nor while holding a lock that code
 * run under the loader's lock (a constructor) may wait for. No other lock is taken: two first calls at once both
 * dlopen, and one result is kept.
 */
__attribute__((visibility("hidden"))) const bh_elf_library *bh_libelf(void);

/* The same; when it returns NULL, `*error` is 0 if libelf is missing for good (not installed, or a function
 * missing), or an errno value whose cause can pass (EMFILE, ENFILE, ENOMEM, …): then nothing is remembered, and a
 * later call tries again. */
__attribute__((visibility("hidden"))) const bh_elf_library *bh_libelf_load(int *error);

/* libelf's functions if an earlier bh_libelf() loaded them, else NULL; never loads anything, takes no lock. */
__attribute__((visibility("hidden"))) const bh_elf_library *bh_libelf_if_loaded(void);

/* Whether bh_libelf() was called and found no libelf (libelf.so.1 not installed, or a symbol missing). */
__attribute__((visibility("hidden"))) int bh_libelf_missing(void);

#endif
