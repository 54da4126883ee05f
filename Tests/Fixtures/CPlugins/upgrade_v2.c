/* Version 2 of an upgradable plugin: upgrade_v1.c's keys, other implementations, priority and route handler. */
#include <beehive.h>

BH_SERVICE(Lab.UpgradeService, Lab.UpgradeServiceV2)
BH_NAMED_SERVICE(Lab.UpgradeService, Lab.UpgradeServiceFastV2, fast)
BH_MODULE(Lab.UpgradeModule, normal, 2)
BH_ROUTE("lab://upgrade/:id", PluginLab.LabRouteV2)
