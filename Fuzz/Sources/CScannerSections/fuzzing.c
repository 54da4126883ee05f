/* The scanner's fuzzing.c, compiled as it is: the same file, not a copy (see include/bh_scanner_fuzzing.h). */
#include "../../../CSupport/_BeeHiveScanner/Fuzzing/fuzzing.c"
