/* The scanner's entry for tests and fuzzing (CSupport/_BeeHiveScanner), for the ELFSectionsFuzzer harness: the main
 * package builds the scanner uninstrumented, into the BeeHive library, so this package compiles the same sources
 * (one forwarding file each, beside this folder), instrumented for coverage and AddressSanitizer. */
#include "../../../../CSupport/_BeeHiveScanner/Fuzzing/bh_scanner_fuzzing.h"
