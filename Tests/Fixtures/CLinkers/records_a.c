#include <beehive.h>
BH_SERVICE(App.A, App.AImpl)
BH_NAMED_SERVICE(App.A, App.AFast, fast)
BH_MODULE(App.ModuleA, basic, 5, true)
