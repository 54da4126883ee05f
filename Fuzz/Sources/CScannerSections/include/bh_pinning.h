/* The scanner's header (CSupport/_BeeHiveScanner), forwarded for its sources (see bh_scanner_fuzzing.h). */
#include "../../../../CSupport/_BeeHiveScanner/include/bh_pinning.h"
