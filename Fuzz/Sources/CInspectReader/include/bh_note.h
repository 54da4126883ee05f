/* The record format's header (CSupport/_BeeHiveFormat), forwarded for inspect.c (see inspect_reader.c). */
#include "../../../../CSupport/_BeeHiveFormat/include/bh_note.h"
