/* Version 1 of a Swift plugin that a host loads, upgrades and retires: its records name Swift types of the plugin. */
#include <beehive.h>
#include "hot_greeter_v1_records.h"

BH_SERVICE(PluginAPI.GreeterService, HotGreeterV1.Greeter)
BH_NAMED_SERVICE(PluginAPI.GreeterService, HotGreeterV1.Greeter, hot)
BH_MODULE(HotGreeterV1.HotModule, normal, 1)
BH_ROUTE("hot://greet/:name", HotGreeterV1.GreetRoute)
