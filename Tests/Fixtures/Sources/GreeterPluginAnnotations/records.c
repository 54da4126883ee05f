#include <beehive.h>

BH_SERVICE(PluginAPI.GreeterService, GreeterPlugin.PluginGreeter)
BH_MODULE(GreeterPlugin.GreeterModule)
