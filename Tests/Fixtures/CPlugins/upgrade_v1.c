/* Version 1 of an upgradable plugin: upgrade_v2.c declares the same services, module and route. */
#include <beehive.h>

BH_SERVICE(Lab.UpgradeService, Lab.UpgradeServiceV1)
BH_NAMED_SERVICE(Lab.UpgradeService, Lab.UpgradeServiceFastV1, fast)
BH_MODULE(Lab.UpgradeModule, normal, 1)
BH_ROUTE("lab://upgrade/:id", PluginLab.LabRoute)
