#include <beehive.h>

BH_MODULE(Network.NetworkModule, basic, 50, true) /* async: connects off the main thread */
BH_SERVICE(AppServices.NetworkService, Network.NetworkServiceImpl)
