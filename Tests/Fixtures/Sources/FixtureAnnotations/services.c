#include <beehive.h>

BH_SERVICE(AnnotatedApp.Greeter, AnnotatedApp.EnglishGreeter)
BH_NAMED_SERVICE(AnnotatedApp.Greeter, AnnotatedApp.FrenchGreeter, french)
BH_SERVICE(AnnotatedApp.Counter, AnnotatedApp.SharedCounter)
BH_MODULE(AnnotatedApp.LoginModule, normal, 10)
