/* Routes whose handlers are wrong: one names no loaded type, one a type that is no RouteHandler (PluginLab's
 * NotARoute). Router.validateDeclaredRoutes(in:) must name both, with their records. */
#include <beehive.h>

BH_ROUTE("lab://ghost/:id", PluginLab.GhostRoute)
BH_ROUTE("lab://module/:id", PluginLab.NotARoute)
BH_ROUTE("lab://fine/:id", PluginLab.LabRoute)
