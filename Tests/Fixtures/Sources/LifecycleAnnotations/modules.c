#include <beehive.h>

BH_MODULE(LifecycleApp.StorageModule, basic, 10)
BH_MODULE(LifecycleApp.FeedModule, normal, 5, true)
BH_MODULE(LifecycleApp.ShellModule, application)
