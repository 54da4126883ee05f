/* A plugin of C code only (built with cc, no Swift runtime registration): retired through Hive.plugins, it is
 * unloaded for real. Its records name the Swift greeter of a plugin that stays loaded. */
#include <beehive.h>

BH_NAMED_SERVICE(PluginAPI.GreeterService, HotGreeterV1.Greeter, fromC)
