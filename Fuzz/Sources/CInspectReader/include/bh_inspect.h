/* The beehive tool's ELF reader (CSupport/_BeeHiveInspect), for the ELFInspectFuzzer harness: the main package
 * gives that target to its executable only, so this package compiles the same source (see inspect_reader.c). */
#include "../../../../CSupport/_BeeHiveInspect/include/bh_inspect.h"
