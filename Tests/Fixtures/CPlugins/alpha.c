/* Plugin A of the lifecycle tests. bravo.c has the same layout (names of equal length), so that B, opened after A
 * is closed, is loaded at A's old address. */
#include <beehive.h>

BH_SERVICE(Lab.AlphaService, Lab.AlphaServiceImpl)
BH_NAMED_SERVICE(Lab.AlphaService, Lab.AlphaServiceFast, fast)
BH_MODULE(Lab.AlphaModule)
BH_ROUTE("lab://alpha/:id", PluginLab.LabRoute)
