/* A file of records only, built into a static archive or a shared library: nothing refers to it but its anchor. */
#include <beehive.h>

BH_ANCHOR(payments)

BH_SERVICE(Payments.Service, Payments.ServiceImpl)
BH_MODULE(Payments.PaymentsModule, normal, 3)
BH_ROUTE("app://pay/:order", Payments.PayRoute)
