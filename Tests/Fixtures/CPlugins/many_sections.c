/*
 * A plugin whose one BeeHive note names LAB_SECTION_COUNT record sections (20 or 70), lab_s0 … lab_s<n-1>, each
 * holding one service record: {"Lab.Many<i>":"Lab.ManyImpl<i>"}. The note is written here with beehive.h's
 * layout (owner "BeeHive", type 1, a u32 version, then NUL-terminated "kind=section" entries).
 */
#define BH_NO_IMAGE_NOTE
#include <beehive.h>

#ifndef LAB_SECTION_COUNT
#define LAB_SECTION_COUNT 20
#endif

/* One section: its record, and its entry in the note. */
#define LAB_RECORD(i) BH_RECORD("lab_s" #i, "{\"Lab.Many" #i "\":\"Lab.ManyImpl" #i "\"}")
#define LAB_ENTRY(i) ".asciz \"services=lab_s" #i "\"\n"

#define LAB_FIRST_20(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) \
    X(16) X(17) X(18) X(19)

#define LAB_NEXT_50(X) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30) X(31) X(32) X(33) X(34) \
    X(35) X(36) X(37) X(38) X(39) X(40) X(41) X(42) X(43) X(44) X(45) X(46) X(47) X(48) X(49) X(50) X(51) X(52) \
    X(53) X(54) X(55) X(56) X(57) X(58) X(59) X(60) X(61) X(62) X(63) X(64) X(65) X(66) X(67) X(68) X(69)


#if LAB_SECTION_COUNT == 20
#define LAB_SECTIONS(X) LAB_FIRST_20(X)
#elif LAB_SECTION_COUNT == 70
#define LAB_SECTIONS(X) LAB_FIRST_20(X) LAB_NEXT_50(X)
#else
#error "LAB_SECTION_COUNT must be 20 or 70"
#endif

LAB_SECTIONS(LAB_RECORD)

__asm__(".pushsection .note.beehive,\"a\",%note\n"
        ".balign 4\n"
        ".long 8\n"
        ".long 8672f - 8671f\n"
        ".long 1\n"
        ".asciz \"BeeHive\"\n"
        ".balign 4\n"
        "8671:\n"
        ".long 1\n" LAB_SECTIONS(LAB_ENTRY) "8672:\n"
        ".balign 4\n"
        ".popsection\n");
