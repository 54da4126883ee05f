/* The CBeeHive target is header-only; SwiftPM needs one source file. No note: this file writes no records. */
#define BH_NO_IMAGE_NOTE
#include "beehive.h"

/* Hidden: a program that links this target exports nothing of BeeHive's. */
__attribute__((visibility("hidden"))) const int bh_format_version = BH_FORMAT_VERSION;
