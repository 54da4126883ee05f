/* Services and modules of the in-process tests, spread over two files with services_more.c. */
#include <beehive.h>
#include "beehive_test_annotations.h"

BH_SERVICE(BeeHiveTests.GreetingService, BeeHiveTests.EnglishGreeting)
BH_NAMED_SERVICE(BeeHiveTests.GreetingService, BeeHiveTests.FrenchGreeting, french)
BeeHiveService(BeeHiveTests.CounterService, BeeHiveTests.SharedCounter)

BH_MODULE(BeeHiveTests.LoginModule)
BH_MODULE(BeeHiveTests.NetworkModule, basic, 100, true)
BeeHiveMod(BeeHiveTests.ShellModule, application)

BH_ROUTE("annotated://user/:id", BeeHiveTests.UserRoute)

int beehive_test_annotations_linked(void) { return 1; }
