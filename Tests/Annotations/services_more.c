#include <stdbool.h> /* `true` is a macro here: BH_MODULE must still take it */
#include <beehive.h>

BH_SERVICE(BeeHiveTests.ClockService, BeeHiveTests.ValueClock)
BH_SERVICE(BeeHiveTests.NestedService, BeeHiveTests.Outer.NestedImpl)
BH_MODULE(BeeHiveTests.AnalyticsModule, normal, -5, true)

/* Records of very different lengths (10, 60 and 250 bytes with their NUL), no alignment control. */
#define BH_SERVICES_SECTION_LENGTHS "bh_test_lengths"
BH_RECORD(BH_SERVICES_SECTION_LENGTHS, "{\"L\":\"Q\"}")
BH_RECORD(BH_SERVICES_SECTION_LENGTHS, "{\"service\":\"BeeHiveTests.Len60\",\"impl\":\"Impl\",\"name\":\"xxx\"}")
BH_RECORD(BH_SERVICES_SECTION_LENGTHS,
          "{\"service\":\"BeeHiveTests.Len250\",\"impl\":\"BeeHiveTests.Len250Impl\",\"name\":\""
          "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn"
          "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn\"}")
