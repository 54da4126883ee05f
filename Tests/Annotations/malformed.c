/*
 * Good and bad records side by side in their own section, so that the unterminated record is
 * the last bytes of the section.
 */
#define BH_SERVICES_SECTION "bh_test_malformed"
#include <beehive.h>

BH_SERVICE(BeeHiveTests.MalformedGood1, BeeHiveTests.EnglishGreeting)
BH_RECORD(BH_SERVICES_SECTION, "{\"BeeHiveTests.BadJSON\" \"missing colon\"}")
BH_RECORD(BH_SERVICES_SECTION, "{\"BeeHiveTests.BadUTF8\":\"BeeHiveTests.\xff\xfeImpl\"}")
BH_SERVICE(BeeHiveTests.MalformedGood2, BeeHiveTests.FrenchGreeting)
BH_SERVICE(BeeHiveTests.UnknownTypeService, BeeHiveTests.NoSuchType)
BH_SERVICE(BeeHiveTests.NotAnImplementationService, BeeHiveTests.PlainType)
BH_SERVICE(BeeHiveTests.GreetingService2, BeeHiveTests.SharedCounter)
BH_RECORD(BH_SERVICES_SECTION, "[\"an array\"]")
BH_SERVICE(BeeHiveTests.MalformedGood3, BeeHiveTests.EnglishGreeting)
BH__KEEP __attribute__((section(BH_SERVICES_SECTION))) static const char bh_unterminated[] = {
    '{', '"', 'B', 'e', 'e', 'H', 'i', 'v', 'e', '"', ':'};
