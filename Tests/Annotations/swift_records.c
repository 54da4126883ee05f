/*
 * Hostile Swift records (record format 3) in the test binary's swift5_tests section, beside the ones the Swift macros
 * write: the Swift runtime registers the whole section, so the scanner finds these too. Each is wrong in one way that
 * the scanner or the reader must report (SwiftRecordTests); an entry of another library's kind is skipped silently.
 * Written in C because the Swift macros cannot write a wrong record.
 */
#include <bh_format.h>
#include <stdbool.h>
#include <stdint.h>

typedef bool (*bh_test_accessor)(void *out, const void *type, const void *hint);

typedef struct {
    uint32_t kind, version;
    bh_test_accessor accessor;
    uintptr_t record_kind, typed_layout;
} __attribute__((aligned(8))) bh_test_swift_record;

_Static_assert(sizeof(bh_test_swift_record) == BH_FORMAT_SWIFT_RECORD_SIZE, "a Swift record is 32 bytes");

/* Answers "not mine" to every question. */
static bool bh_test_refuses(void *out, const void *type, const void *hint) {
    (void)out, (void)type, (void)hint;
    return false;
}

/* Says it wrote, and writes nothing. */
static bool bh_test_writes_nothing(void *out, const void *type, const void *hint) {
    (void)out, (void)type, (void)hint;
    return true;
}

/* Data, not code: an "accessor" that must never be called. */
static const unsigned char bh_test_not_code[16] = {0xcc, 0xcc, 0xcc, 0xcc};

#define BH_TEST_RECORD(name, ...)                                                                                   \
    __attribute__((used, section(BH_FORMAT_SWIFT_TESTS_SECTION))) static const bh_test_swift_record name = __VA_ARGS__;

#define BH_TEST_LAYOUT BH_FORMAT_SWIFT_TYPED_LAYOUT
BH_TEST_RECORD(bh_test_old_version, {BH_FORMAT_SWIFT_RECORD_KIND, 2, bh_test_refuses, 1, BH_TEST_LAYOUT})
BH_TEST_RECORD(bh_test_unknown_kind, {BH_FORMAT_SWIFT_RECORD_KIND, BH_FORMAT_SWIFT_RECORD_VERSION, bh_test_refuses, 9,
                                      BH_TEST_LAYOUT})
BH_TEST_RECORD(bh_test_data_accessor, {BH_FORMAT_SWIFT_RECORD_KIND, BH_FORMAT_SWIFT_RECORD_VERSION,
                                       (bh_test_accessor)(uintptr_t)bh_test_not_code, 1, BH_TEST_LAYOUT})
BH_TEST_RECORD(bh_test_refusing,
               {BH_FORMAT_SWIFT_RECORD_KIND, BH_FORMAT_SWIFT_RECORD_VERSION, bh_test_refuses, 1, BH_TEST_LAYOUT})
BH_TEST_RECORD(bh_test_silent, {BH_FORMAT_SWIFT_RECORD_KIND, BH_FORMAT_SWIFT_RECORD_VERSION, bh_test_writes_nothing, 2,
                                BH_TEST_LAYOUT})
/* Another library's kind ("zzzz"): not BeeHive's, skipped without a word. */
BH_TEST_RECORD(bh_test_foreign, {0x7a7a7a7a, 1, bh_test_writes_nothing, 0, 0})
