/* A plugin with one good record and one malformed one: loaded with Hive.plugins, it is refused and registers nothing. */
#include <beehive.h>

BH_SERVICE(PluginAPI.GreeterService, HotGreeterV1.Greeter)
BH_RECORD(BH_SERVICES_SECTION, "{\"PluginAPI.GreeterService\" \"missing colon\"}")
