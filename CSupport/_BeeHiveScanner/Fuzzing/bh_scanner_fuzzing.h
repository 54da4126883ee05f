/*
 * bh_scanner_fuzzing.h — internal, for tests and fuzzing only: the scanner's reader of image files (elf_sections.c)
 * run on bytes that stand for an image's file, and its in-memory locator on bytes that stand for a loaded image. Not
 * for production use: nothing in BeeHive calls it.
 *
 * Not API, and not part of the _BeeHiveScanner target (Package.swift excludes this folder): no program that links
 * BeeHive has these functions. The Fuzz package's CScannerSections target, a test-only target, compiles the
 * scanner's files with fuzzing.c and this header, and the ELFSectionsFuzzer harness calls them.
 */
#ifndef BH_SCANNER_FUZZING_H
#define BH_SCANNER_FUZZING_H

#include "../include/bh_scanner.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What one reading of a file found. */
typedef struct {
    size_t sections;   /* record sections queued */
    size_t problems;   /* problems added */
    size_t phnum;      /* program headers the image took from the file's table (0: none, or not inside the file) */
    int typed_wanted;  /* whether beehive_types was wanted: only when process_vm_readv works (see fuzzing.c) */
} bh_fuzz_scan;

/*
 * Reads `bytes` as the file of a loaded image with records, as the scanner reads a file it opened: the bytes are put
 * in a memfd, and an image is made with load address 0, the program headers of the file's own table (when it lies
 * inside the file, so that the check that the file is the loaded image passes; else none), and the four default
 * record sections wanted. Then every queued section and problem is passed to the callbacks (either may be NULL;
 * nothing they are given outlives the call, bytes included), and everything is freed. Returns 0, or -1 with errno
 * set when the memfd or memory could not be had.
 */
int bh_fuzz_scan_file(const void *bytes, size_t size, void *context, bh_section_fn on_section,
                      bh_problem_fn on_problem, bh_fuzz_scan *result);

/*
 * Reads `bytes` as a loaded image of record format 3, as the scanner reads one from memory: an image is made with
 * load address `bytes` and the program headers of the input's own table (each PT_LOAD segment cut to the input), its
 * notes are read from there (notes.c, every PT_NOTE checked to lie in a readable PT_LOAD segment), and the sections
 * whose bounds the notes give are copied (located.c); so is a swift5_tests section that the input's last 16 bytes name
 * (u64 offset from the input's start, u64 length), as the Swift runtime would, keeping only BeeHive's valid Swift
 * records (swift_records.c). Sections and problems are passed to the callbacks as by
 * bh_fuzz_scan_file. Returns 0, or -1 with errno set when memory could not be had.
 */
int bh_fuzz_locate(const void *bytes, size_t size, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                   bh_fuzz_scan *result);

#ifdef __cplusplus
}
#endif

#endif /* BH_SCANNER_FUZZING_H */
