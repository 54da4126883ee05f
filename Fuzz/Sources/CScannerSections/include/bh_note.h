/* The record format's header (CSupport/_BeeHiveFormat), forwarded for the scanner's sources (bh_scanner_fuzzing.h). */
#include "../../../../CSupport/_BeeHiveFormat/include/bh_note.h"
