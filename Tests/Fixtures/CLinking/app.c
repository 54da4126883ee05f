/* The program's own records: found in every build, whatever happens to the library's. */
#include <beehive.h>

BH_SERVICE(App.Clock, App.SystemClock)
