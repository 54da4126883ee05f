/* An internal struct named only here: stripped from release builds by the Swift optimizer. */
#define BH_SERVICES_SECTION "fixture_internal"
#include <beehive.h>

BH_SERVICE(AnnotatedApp.Clock, AnnotatedApp.InternalClock)
