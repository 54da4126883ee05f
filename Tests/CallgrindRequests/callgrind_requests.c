#include "beehive_callgrind_requests.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define BEEHIVE_HAS_CALLGRIND_H 1
#else
#define BEEHIVE_HAS_CALLGRIND_H 0
#endif

int beehive_callgrind_requests_available(void) { return BEEHIVE_HAS_CALLGRIND_H; }

void beehive_callgrind_dump(const char *label) {
#if BEEHIVE_HAS_CALLGRIND_H
    CALLGRIND_DUMP_STATS_AT(label);
#else
    (void)label;
#endif
}
