#include <beehive.h>

BH_MODULE(Analytics.AnalyticsModule, application)
