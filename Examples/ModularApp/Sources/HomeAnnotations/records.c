#include <beehive.h>

BH_MODULE(Home.HomeModule, normal, 10)
