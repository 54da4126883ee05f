/*
 * image_file.c — after the walk, each marked image whose sections no note places in memory (record format 1 or 2) is
 * opened through the kernel's mapping of it (/proc/self/map_files, or the path /proc/self/maps gives, checked by device
 * and inode), never blocking and only if it is a regular file; then elf_sections.c reads it with libelf. After
 * unloads, an image whose mapping now belongs to another file, or to its file rewritten in place, is told apart here.
 */
#define _GNU_SOURCE
#include "elf_library.h"
#include "scanner_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* ---- After the walk: /proc/self/maps --------------------------------------- */

void bh_maps_free(bh_maps *maps) {
    free(maps->items);
    free(maps->text);
    memset(maps, 0, sizeof *maps);
}

/* Reads /proc/self/maps. Returns 0 on success. */
static int bh_maps_read(bh_maps *maps) {
    memset(maps, 0, sizeof *maps);
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t size = 0, capacity = 1 << 16;
    char *text = malloc(capacity);
    for (;;) {
        if (!text) break;
        if (capacity - size < 4096) {
            char *grown = realloc(text, capacity * 2);
            if (!grown) {
                free(text);
                text = NULL;
                break;
            }
            text = grown;
            capacity *= 2;
        }
        ssize_t n = read(fd, text + size, capacity - size - 1);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        size += (size_t)n;
    }
    close(fd);
    if (!text) return -1;
    text[size] = 0;
    maps->text = text;
    for (char *line = text; line && *line;) {
        char *next = strchr(line, '\n');
        if (next) *next++ = 0;
        unsigned long start, end, offset, ino;
        unsigned major, minor;
        int consumed = 0;
        if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu %n", &start, &end, &offset, &major, &minor, &ino, &consumed) >=
                6 &&
            bh_reserve((void **)&maps->items, &maps->capacity, maps->count, sizeof *maps->items)) {
            bh_mapping *m = &maps->items[maps->count++];
            m->start = start;
            m->end = end;
            m->dev = makedev(major, minor);
            m->ino = (ino_t)ino;
            m->path = consumed > 0 ? line + consumed : line + strlen(line);
        }
        line = next;
    }
    return 0;
}

static const bh_mapping *bh_maps_find(const bh_maps *maps, uintptr_t address) {
    for (size_t i = 0; i < maps->count; i++)
        if (address >= maps->items[i].start && address < maps->items[i].end) return &maps->items[i];
    return NULL;
}

/* The address of an image's first file-backed loadable byte: where the kernel mapped its file. */
uintptr_t bh_first_load(const bh_image *image) {
    for (size_t i = 0; i < image->phnum; i++)
        if (image->phdrs[i].p_type == PT_LOAD && image->phdrs[i].p_filesz > 0)
            return image->base + image->phdrs[i].p_vaddr;
    return image->base;
}

const bh_mapping *bh_lazy_find(bh_lazy_maps *lazy, uintptr_t address) {
    if (lazy->state == 0) lazy->state = bh_maps_read(&lazy->maps) == 0 ? 1 : -1;
    return lazy->state == 1 ? bh_maps_find(&lazy->maps, address) : NULL;
}

/*
 * Where the kernel mapped an image's file: the /proc/self/map_files entry of its first file-backed segment
 * and the file's absolute path. The entry's range is computed from the program headers (one readlink); if the
 * kernel's range differs (merged or split mappings), /proc/self/maps gives it. Returns 0 when found.
 */
int bh_locate(const bh_image *image, bh_lazy_maps *lazy, char *link, size_t link_size, char *path,
                     size_t path_size, int *deleted) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t mask = (uintptr_t)(page > 0 ? page : 4096) - 1;
    uintptr_t start = 0, end = 0;
    for (size_t i = 0; i < image->phnum; i++) {
        const ElfW(Phdr) *ph = &image->phdrs[i];
        if (ph->p_type != PT_LOAD || ph->p_filesz == 0) continue;
        start = (image->base + ph->p_vaddr) & ~mask;
        end = (image->base + ph->p_vaddr + ph->p_filesz + mask) & ~mask;
        break;
    }
    ssize_t n = -1;
    if (start) {
        snprintf(link, link_size, "/proc/self/map_files/%lx-%lx", (unsigned long)start, (unsigned long)end);
        n = readlink(link, path, path_size - 1);
    }
    if (n <= 0) {
        const bh_mapping *mapping = start ? bh_lazy_find(lazy, start) : NULL;
        if (!mapping) return -1;
        snprintf(link, link_size, "/proc/self/map_files/%lx-%lx", (unsigned long)mapping->start,
                 (unsigned long)mapping->end);
        n = readlink(link, path, path_size - 1);
        if (n <= 0) n = (ssize_t)strlen(strncpy(path, mapping->path, path_size - 1));
        if (n <= 0) return -1;
    }
    path[n] = 0;
    const char *suffix = " (deleted)";
    size_t length = strlen(suffix);
    *deleted = (size_t)n > length && strcmp(path + n - length, suffix) == 0;
    if (*deleted) path[n - length] = 0;
    return path[0] == '/' ? 0 : -1;
}

static int bh_is_transient(int error) {
    return error == EMFILE || error == ENFILE || error == ENOMEM || error == EINTR || error == EAGAIN ||
           error == ENOBUFS;
}

static const char *bh_file_kind(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISLNK(mode)) return "a symbolic link";
    return "not a regular file";
}

/*
 * Opens a marked image and reads its sections. As root the exact file mapped is opened through
 * /proc/self/map_files; otherwise (the kernel allows only readlink there) the file at the mapped absolute
 * path is opened and must carry the same notes (GNU build-id, BeeHive note) as the loaded image.
 */
void bh_open_image(bh_scanner *s, bh_image *image, bh_lazy_maps *lazy) {
    if (!image->located_read) {
        image->located_read = 1;
        if (!bh_read_located(s, image)) { /* every section was in memory: no file */
            image->pending = 0;
            s->pending--;
            return;
        }
    }
    char link[64], path[4096 + 32];
    int deleted = 0;
    if (bh_locate(image, lazy, link, sizeof link, path, sizeof path, &deleted) == 0) {
        free(image->path);
        image->path = bh_strdup(path);
    } else {
        link[0] = 0;
        snprintf(path, sizeof path, "%s", image->is_main ? "/proc/self/exe" : (image->name ? image->name : ""));
    }
    const char *label = bh_label(image);
    if (image->is_vdso || !path[0]) { /* no file behind it */
        image->pending = 0;
        s->pending--;
        return;
    }
    if (!bh_libelf_if_loaded() && !bh_libelf_missing()) {
        /* Stays pending: dlopen takes the loader's lock, so the scan loads libelf once this scanner's lock is
         * released (scanner.c), then reads this image again; or, when that load failed for a cause that can pass, at
         * the next scan. */
        if (!s->libelf_error) {
            s->wants_libelf = 1;
        } else if (!image->transient_reported) {
            bh_add_problem(s, label, image->id, 1,
                           "cannot load libelf (libelf.so.1) to read the image file's sections: %s; will retry at the "
                           "next rescan",
                           strerror(s->libelf_error));
            image->transient_reported = 1;
        }
        return;
    }

    int fd = link[0] ? open(link, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
    int exact = fd >= 0;
    if (fd < 0 && !deleted) fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        int error = errno;
        int transient = bh_is_transient(error);
        if (!transient || !image->transient_reported)
            bh_add_problem(s, label, image->id, transient, "cannot open the image file to read its sections: %s%s%s",
                           strerror(error), deleted ? " (the file was deleted since it was loaded)" : "",
                           transient ? "; will retry at the next rescan" : "");
        if (transient) {
            image->transient_reported = 1;
            return; /* stays pending */
        }
        image->pending = 0;
        s->pending--;
        return;
    }
    image->pending = 0;
    s->pending--;
    s->stats.images_opened++;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        bh_add_problem(s, label, image->id, 0, "cannot stat the image file: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        bh_add_problem(s, label, image->id, 0,
                       "expected the image file to be a regular file; found %s; its records were not read",
                       bh_file_kind(st.st_mode));
    } else if (!exact && bh_file_note_hash(s, image, fd) != image->note_hash) {
        bh_add_problem(s, label, image->id, 0,
                       "the file at this path is not the one that was loaded (its notes, build-id included, differ: "
                       "replaced since load); its records were not read");
    } else {
        image->dev = st.st_dev;
        image->ino = st.st_ino;
        image->size = st.st_size;
        image->mtime = st.st_mtim;
        image->opened = 1;
        bh_scan_file(s, image, fd, st.st_size);
    }
    close(fd);
}

/* Whether `st` is the file an image was read from, unchanged: same device and inode, and not rewritten in place
 * since (same size and modification time). */
static int bh_unchanged(const bh_image *image, const struct stat *st) {
    return st->st_dev == image->dev && st->st_ino == image->ino && st->st_size == image->size &&
           st->st_mtim.tv_sec == image->mtime.tv_sec && st->st_mtim.tv_nsec == image->mtime.tv_nsec;
}

/*
 * After a walk in which images were unloaded: an image with records whose mapping now belongs to another
 * file (same address, name and notes, another device and inode), or to its file rewritten in place since it was
 * read (a plugin closed, copied over with `cp`, opened again: same inode), is a new image; the old one is reported
 * unloaded. Where /proc/self/map_files cannot be followed (not root), the mapped path must be the same.
 */
int bh_same_file(bh_image *image, bh_lazy_maps *lazy) {
    char link[64], path[4096 + 32];
    int deleted = 0;
    if (bh_locate(image, lazy, link, sizeof link, path, sizeof path, &deleted) != 0) return 1; /* cannot tell */
    struct stat st;
    if (stat(link, &st) == 0) return bh_unchanged(image, &st);
    const bh_mapping *mapping = bh_lazy_find(lazy, bh_first_load(image));
    if (mapping) {
        if (mapping->dev != image->dev || mapping->ino != image->ino) return 0;
        /* The same inode: by its path (stat opens nothing), was it rewritten in place? */
        if (!deleted && stat(path, &st) == 0 && st.st_dev == image->dev && st.st_ino == image->ino)
            return bh_unchanged(image, &st);
        return 1;
    }
    return !image->path || strcmp(path, image->path) == 0;
}
