/* The scanner's elf_sections.c, compiled as it is: the same file, not a copy (see include/bh_scanner_fuzzing.h). */
#include "../../../CSupport/_BeeHiveScanner/elf_sections.c"
