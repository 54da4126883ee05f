#include <beehive.h>

BeeHiveService(AnnotatedApp.Clock, AnnotatedApp.ValueClock)
BH_SERVICE(AnnotatedApp.Storage, AnnotatedApp.Stores.DiskStorage)
BeeHiveMod(AnnotatedApp.NetworkModule, basic, 100, true)
BH_ROUTE("app://user/:id", AnnotatedApp.UserRoute)
