/* The beehive tool's ELF reader, compiled as it is: the same file, not a copy. Its `#include "bh_inspect.h"`
 * finds the forwarding header in include/. */
#include "../../../CSupport/_BeeHiveInspect/inspect.c"
