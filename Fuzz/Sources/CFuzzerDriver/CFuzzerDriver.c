// Only a header: LLVMFuzzerRunDriver lives in libFuzzer, which -sanitize=fuzzer links.
#include "CFuzzerDriver.h"
