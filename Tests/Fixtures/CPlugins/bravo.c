/* Plugin B of the lifecycle tests: alpha.c's layout, other records. */
#include <beehive.h>

BH_SERVICE(Lab.BravoService, Lab.BravoServiceImpl)
BH_NAMED_SERVICE(Lab.BravoService, Lab.BravoServiceFast, fast)
BH_MODULE(Lab.BravoModule)
BH_ROUTE("lab://bravo/:id", PluginLab.LabRoute)
