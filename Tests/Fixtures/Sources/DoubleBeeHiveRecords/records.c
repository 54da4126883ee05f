/* The records of a plugin that carries its own BeeHive: refused at load, they must never be registered. */
#include <beehive.h>
#include "double_beehive_records.h"

BH_SERVICE(PluginAPI.GreeterService, DoubleBeeHivePlugin.DoubleGreeter)
