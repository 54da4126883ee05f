/*
 * format.c — checks, at compile time, that the format's constants agree with one another. The target is
 * otherwise header-only (bh_format.h, bh_note.h); this file exports nothing.
 */
#include "bh_format.h"
#include "bh_note.h"

_Static_assert(sizeof BH_FORMAT_NOTE_OWNER == BH_FORMAT_NOTE_OWNER_SIZE, "namesz counts the owner's NUL");
_Static_assert(BH_FORMAT_TYPED_RECORD_ACCESSOR_OFFSET + sizeof(void *) <= BH_FORMAT_TYPED_RECORD_SIZE,
               "the accessor fits in a typed record");
_Static_assert(BH_FORMAT_OLDEST_VERSION <= BH_FORMAT_NEWEST_VERSION, "a range of versions");
_Static_assert(BH_FORMAT_KIND_TYPES + 1 == BH_FORMAT_KIND_COUNT, "every kind counted");
