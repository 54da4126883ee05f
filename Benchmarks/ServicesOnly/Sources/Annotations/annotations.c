#include <beehive.h>

BH_SERVICE(Services.Service0, Services.Service0Impl)
BH_SERVICE(Services.Service1, Services.Service1Impl)
BH_SERVICE(Services.Service2, Services.Service2Impl)
BH_SERVICE(Services.Service3, Services.Service3Impl)
BH_SERVICE(Services.Service4, Services.Service4Impl)
BH_SERVICE(Services.Service5, Services.Service5Impl)
BH_SERVICE(Services.Service6, Services.Service6Impl)
BH_SERVICE(Services.Service7, Services.Service7Impl)
BH_SERVICE(Services.Service8, Services.Service8Impl)
BH_SERVICE(Services.Service9, Services.Service9Impl)
