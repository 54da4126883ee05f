#include <stdbool.h>
#include <beehive.h>
BH_SERVICE(App.B, App.BImpl)
BH_MODULE(App.ModuleB)
BH_ROUTE("app://b/:id", App.BRoute)
