/* Compiled into the program: refers to the anchor of records.c, so that the linker keeps it. */
#include <beehive.h>

BH_USE_ANCHOR(payments)
