#include <beehive.h>
#include "c_records_plugin.h"

BH_SERVICE(Payments.PaymentService, Payments.StripePayments)
BH_NAMED_SERVICE(Payments.PaymentService, Payments.FakePayments, fake)
BH_MODULE(Payments.PaymentsModule, feature, 3)

int c_records_plugin_version(void) { return 1; }
