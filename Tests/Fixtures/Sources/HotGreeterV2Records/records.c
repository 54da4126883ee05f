/* Version 2 of a Swift plugin that a host loads, upgrades and retires: its records name Swift types of the plugin. */
#include <beehive.h>
#include "hot_greeter_v2_records.h"

BH_SERVICE(PluginAPI.GreeterService, HotGreeterV2.Greeter)
BH_NAMED_SERVICE(PluginAPI.GreeterService, HotGreeterV2.Greeter, hot)
BH_MODULE(HotGreeterV2.HotModule, normal, 1)
BH_ROUTE("hot://greet/:name", HotGreeterV2.GreetRoute)
