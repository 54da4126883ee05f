/*
 * bh_plugins.h — internal: what BeeHive asks the loader about a plugin it loads (glibc extensions).
 *
 * Not API. Swift code reaches it through the BeeHive target's plugin support.
 */
#ifndef BH_PLUGINS_H
#define BH_PLUGINS_H

#include <stddef.h>

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

#ifdef __cplusplus
}
#endif

#endif
