#include <beehive.h>

BH_MODULE(Account.AccountModule, basic, 100)
BH_SERVICE(AppServices.AccountService, Account.AccountServiceImpl)
