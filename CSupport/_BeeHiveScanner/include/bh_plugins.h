/*
 * bh_plugins.h — internal: what BeeHive asks the loader about a plugin it loads (glibc extensions).
 *
 * Not API. Swift code reaches it through the BeeHive target's plugin support.
 */
#ifndef BH_PLUGINS_H
#define BH_PLUGINS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the image of a dlopen handle holds Swift code (see bh_file_has_swift_metadata). */
int bh_handle_needs_swift(void *handle);

/*
 * The path of the image that answers dlsym(handle, symbol), when it is not the image of `expected` (the caller's own
 * definition); NULL when the symbol is not found or is the caller's. The result is malloc'd: free() it.
 */
char *bh_other_definition(void *handle, const char *symbol, const void *expected);

/* Bytes of a GNU build-id kept, at most (SHA-1 ids are 20). */
#define BH_MAX_BUILD_ID 64

/* How far bh_plugin_file_read got. */
typedef enum {
    BH_PLUGIN_FILE_READ = 0,   /* an ELF file: every field is set */
    BH_PLUGIN_FILE_UNREADABLE, /* it cannot be opened: `found` has the system's reason */
    BH_PLUGIN_FILE_NO_READER,  /* libelf.so.1 is not installed: only `device` and `inode` are set */
    BH_PLUGIN_FILE_NOT_ELF,    /* not a regular ELF file: `found` says what it is */
} bh_plugin_file_status;

/* A plugin's file, as BeeHive reads it before it copies or loads it. */
typedef struct {
    int status; /* bh_plugin_file_status */
    uint64_t device, inode;
    unsigned elf_type;     /* e_type: ET_DYN for a shared library (and a position-independent program) */
    unsigned machine;      /* e_machine */
    int machine_matches;   /* 64-bit, for this process's machine */
    int has_interpreter;   /* a PT_INTERP segment: a program, not a library */
    int has_beehive_note;  /* a BeeHive note: the file declares records */
    int has_swift_records; /* a section of the Swift macros' records (format 3, beehive_swift_*): it declares records */
    unsigned char build_id[BH_MAX_BUILD_ID];
    size_t build_id_size;  /* 0 without a GNU build-id */
    char found[160];       /* what was found, when status is not BH_PLUGIN_FILE_READ */
} bh_plugin_file;

/*
 * Reads the ELF header, program headers and notes of the file at `path` with libelf (dlopen'd the first time, never
 * linked: see elf_library.c), bounded by the file's size. Returns file->status.
 */
int bh_plugin_file_read(const char *path, bh_plugin_file *file);

/* An image the process has loaded, as its memory says. */
typedef struct {
    char *path;  /* the loader's name (absolute), or the main program's path; NULL when unknown */
    int is_main; /* the main program */
    unsigned char build_id[BH_MAX_BUILD_ID];
    size_t build_id_size;
} bh_loaded_image;

/*
 * Every loaded image but the vDSO, in the loader's order (the main program first): names and build-ids are read
 * from memory under the loader's lock, the main program's path after it. Free with bh_loaded_images_free.
 */
size_t bh_loaded_images(bh_loaded_image **images);
void bh_loaded_images_free(bh_loaded_image *images, size_t count);

#ifdef __cplusplus
}
#endif

#endif
