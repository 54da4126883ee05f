/* The demo's services and modules, announced where they are built: no registration code runs. */
#include <beehive.h>

BH_SERVICE(BeeHiveDemo.UserTrackService, BeeHiveDemo.ConsoleUserTracker)
BH_SERVICE(BeeHiveDemo.AccountService, BeeHiveDemo.InMemoryAccounts)
BH_NAMED_SERVICE(BeeHiveDemo.Greeter, BeeHiveDemo.FormalGreeter, formal)

BH_MODULE(BeeHiveDemo.AccountModule, basic, 100)
BH_MODULE(BeeHiveDemo.HomeModule)
