/*
 * fuzzing.c — for tests and fuzzing only (bh_scanner_fuzzing.h): the reader of image files (elf_sections.c, with
 * libelf) run on bytes that stand for the file of a loaded image with records, and the in-memory locator (notes.c,
 * swift_records.c, located.c) run on bytes that stand for a loaded image. Not for production use: nothing in BeeHive
 * calls it, and only the Fuzz package compiles it (Package.swift leaves this folder out of _BeeHiveScanner).
 */
#define _GNU_SOURCE
#include "bh_scanner_fuzzing.h"
#include "../elf_library.h"
#include "../scanner_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * The file's own program header table, when it lies inside the file with entries of this process's size: what the
 * loader would have mapped, so that bh_scan_file finds the file to be the loaded image and goes on to the section
 * headers. With PN_XNUM the count is section 0's sh_info, as libelf reads it. Returns the count (0: none).
 */
static size_t bh_file_phdrs(const unsigned char *bytes, size_t size, ElfW(Phdr) **phdrs) {
    ElfW(Ehdr) ehdr;
    if (size < sizeof ehdr) return 0;
    memcpy(&ehdr, bytes, sizeof ehdr);
    uint64_t count = ehdr.e_phnum;
    if (count == PN_XNUM) {
        ElfW(Shdr) first;
        if (ehdr.e_shoff == 0 || ehdr.e_shoff > size || size - ehdr.e_shoff < sizeof first) return 0;
        memcpy(&first, bytes + ehdr.e_shoff, sizeof first);
        count = first.sh_info;
    }
    if (count == 0 || ehdr.e_phentsize != sizeof(ElfW(Phdr)) || ehdr.e_phoff > size ||
        (size - ehdr.e_phoff) / sizeof(ElfW(Phdr)) < count)
        return 0;
    *phdrs = malloc((size_t)count * sizeof(ElfW(Phdr)));
    if (!*phdrs) return 0;
    memcpy(*phdrs, bytes + ehdr.e_phoff, (size_t)count * sizeof(ElfW(Phdr)));
    return (size_t)count;
}

/*
 * Whether process_vm_readv reads this process's memory. Typed records are read from memory at base + sh_addr through
 * it (bh_copy_memory), so that an address the input makes up gives EFAULT; where the call is refused (seccomp),
 * bh_copy_memory falls back to a plain copy, which trusts the address because in a real scan it lies in a loaded
 * segment of a mapped image. Here nothing is mapped where the input says, so without the call the typed section is
 * not wanted: a plain copy would fault in the harness, not in any scan the library does.
 */
static int bh_careful_reads_work(void) {
    unsigned char source = 1, copy = 0;
    struct iovec local = {&copy, 1}, remote = {&source, 1};
    return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == 1 && copy == 1;
}

/* Writes the whole input to a new memfd: the reader takes a file descriptor, and pread bounds every read by it. */
static int bh_memfd_of(const void *bytes, size_t size) {
    int fd = memfd_create("beehive-fuzz-image", MFD_CLOEXEC);
    for (size_t done = 0; fd >= 0 && done < size;) {
        ssize_t n = write(fd, (const unsigned char *)bytes + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int error = n < 0 ? errno : EIO;
            close(fd);
            errno = error;
            return -1;
        }
        done += (size_t)n;
    }
    return fd;
}

/* A scanner with one image, "fuzz input", of the program headers of the input's own table. The image is the
 * scanner's, so that bh_scanner_destroy frees it with what was queued. NULL, with errno set, when memory is short. */
static bh_scanner *bh_fuzz_scanner(const void *bytes, size_t size) {
    bh_scanner *s = bh_scanner_create(0);
    if (!s || !bh_reserve((void **)&s->images, &s->image_capacity, s->image_count, sizeof *s->images)) {
        bh_scanner_destroy(s);
        errno = ENOMEM;
        return NULL;
    }
    bh_image *image = &s->images[s->image_count++];
    memset(image, 0, sizeof *image);
    image->id = bh_new_image_id();
    image->name = bh_strdup("fuzz input");
    image->phnum = bh_file_phdrs(bytes, size, &image->phdrs);
    return s;
}

/* Counts what a reading queued, passes it to the callbacks, and frees the scanner (the sections' bytes and strings,
 * the problems, the image). */
static void bh_fuzz_hand_out(bh_scanner *s, const bh_image *image, void *context, bh_section_fn on_section,
                             bh_problem_fn on_problem, bh_fuzz_scan *result) {
    result->sections = s->section_count;
    result->problems = s->problem_count;
    result->phnum = image->phnum;
    for (size_t i = 0; i < s->problem_count && on_problem; i++) {
        bh_problem problem = {s->problems[i].image_path, s->problems[i].image_id, s->problems[i].message,
                              s->problems[i].transient};
        on_problem(context, &problem);
    }
    for (size_t i = 0; i < s->section_count && on_section; i++) on_section(context, &s->sections[i].section);
    bh_scanner_destroy(s);
}

int bh_fuzz_scan_file(const void *bytes, size_t size, void *context, bh_section_fn on_section,
                      bh_problem_fn on_problem, bh_fuzz_scan *result) {
    memset(result, 0, sizeof *result);
    bh_libelf(); /* loaded here, as the scan loads it, with no lock held; missing, every reading says so */
    int fd = bh_memfd_of(bytes, size);
    if (fd < 0) return -1;
    bh_scanner *s = bh_fuzz_scanner(bytes, size);
    if (!s) {
        close(fd);
        return -1;
    }
    /* The image as the walk records one whose note names the default sections (walk.c) and bh_open_image finds it
     * opened (image_file.c). */
    bh_image *image = &s->images[0];
    bh_want_defaults(&image->wanted);
    result->typed_wanted = bh_careful_reads_work();
    for (size_t w = 0; w < image->wanted.count && !result->typed_wanted; w++) {
        if (image->wanted.items[w].kind != BH_FORMAT_KIND_TYPES) continue;
        free(image->wanted.items[w].name);
        image->wanted.items[w] = image->wanted.items[--image->wanted.count];
        break;
    }
    image->marked = image->opened = 1;
    image->size = (off_t)size;
    /* bh_scan_file names the first wanted section in messages: an image with none never reaches it. */
    if (!image->name || image->wanted.count == 0) {
        bh_scanner_destroy(s);
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    bh_scan_file(s, image, fd, (off_t)size);
    close(fd);

    bh_fuzz_hand_out(s, image, context, on_section, on_problem, result);
    return 0;
}

int bh_fuzz_locate(const void *bytes, size_t size, void *context, bh_section_fn on_section, bh_problem_fn on_problem,
                   bh_fuzz_scan *result) {
    memset(result, 0, sizeof *result);
    bh_scanner *s = bh_fuzz_scanner(bytes, size);
    if (!s) return -1;
    bh_image *image = &s->images[0];
    image->path = bh_strdup("fuzz input");
    image->base = (uintptr_t)bytes;
    if (!image->name || !image->path) {
        bh_scanner_destroy(s);
        errno = ENOMEM;
        return -1;
    }
    /* What the loader maps of a file is the file's bytes: a PT_LOAD segment that claims bytes past the input's end
     * is cut to the input (a real image's segments lie in its mapping; here only the input is). */
    for (size_t i = 0; i < image->phnum; i++) {
        ElfW(Phdr) *ph = &image->phdrs[i];
        if (ph->p_type != PT_LOAD) continue;
        if (ph->p_vaddr > size) ph->p_vaddr = size;
        if (ph->p_filesz > size - ph->p_vaddr) ph->p_filesz = size - ph->p_vaddr;
    }
    bh_notes notes;
    bh_read_notes(s, image->base, image->phdrs, image->phnum, "fuzz input", image->id, 1, 1, &notes);
    image->wanted = notes.wanted;
    /* The input's last 16 bytes name a swift5_tests section, as the Swift runtime would: its offset from the image's
     * address and its length (swift_records.c checks them against the segments, then located.c copies and filters). */
    if (size >= 16) {
        uint64_t offset, length;
        memcpy(&offset, (const unsigned char *)bytes + size - 16, 8);
        memcpy(&length, (const unsigned char *)bytes + size - 8, 8);
        bh_want_swift_tests(s, image, image->base + (uintptr_t)offset, (size_t)length);
    }
    bh_read_located(s, image);

    bh_fuzz_hand_out(s, image, context, on_section, on_problem, result);
    return 0;
}
