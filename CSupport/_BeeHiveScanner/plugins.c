/*
 * plugins.c — what BeeHive asks the loader about a plugin it loads (see bh_plugins.h).
 */
#define _GNU_SOURCE
#include "bh_plugins.h"
#include "bh_pinning.h"
#include "scanner_internal.h"

#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

int bh_handle_needs_swift(void *handle) {
    struct link_map *map = NULL;
    if (handle == NULL || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL) return 0;
    return map->l_name != NULL && map->l_name[0] != '\0' &&
           bh_loaded_image_has_swift_metadata(map->l_addr, map->l_name);
}

char *bh_other_definition(void *handle, const char *symbol, const void *expected) {
    void *found = dlsym(handle, symbol);
    if (found == NULL || found == expected) return NULL;
    Dl_info info;
    if (dladdr(found, &info) == 0 || info.dli_fname == NULL) return strdup("an image without a name");
    return strdup(info.dli_fname);
}
