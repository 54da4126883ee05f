/* A C record in the same image as MacroApp's Swift records: both are found. */
#include <beehive.h>

BH_NAMED_SERVICE(MacroApp.Greeting, MacroApp.CAnnotatedGreeter, c)
