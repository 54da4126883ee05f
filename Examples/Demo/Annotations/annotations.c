#include <beehive.h>
