/* Announces the lengths section in this image's note. */
#define BH_SERVICES_SECTION "bh_test_lengths"
#include <beehive.h>
