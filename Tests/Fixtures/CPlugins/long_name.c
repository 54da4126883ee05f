/* A plugin whose service records live in a section with a name of 150 bytes (beehive.h allows any length; the
 * scanner reads names of up to 1,024 bytes). */
#define BH_SERVICES_SECTION                                                                                        \
    "lab_long_section_name_000_section_name_001_section_name_002_section_name_00"                                  \
    "3_section_name_004_section_name_005_section_name_006_section_name_007_secti"
#include <beehive.h>

BH_SERVICE(Lab.LongNameService, Lab.LongNameServiceImpl)
BH_MODULE(Lab.LongNameModule)
