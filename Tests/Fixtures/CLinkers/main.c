/* Links the scanner with two files of records and prints every record it finds: one per line. */
#include <stdio.h>
#include <string.h>
#include "bh_scanner.h"

static void on_section(void *context, const bh_section *section) {
    (void)context;
    for (size_t i = 0; i < section->size;) {
        if (section->bytes[i] == 0) { i++; continue; }
        const char *record = (const char *)section->bytes + i;
        size_t n = strnlen(record, section->size - i);
        printf("%s %.*s\n", section->section_name, (int)n, record);
        i += n + 1;
    }
}

static void on_problem(void *context, const bh_problem *problem) {
    (void)context;
    printf("problem %s: %s\n", problem->image_path, problem->message);
}

int main(void) {
    bh_scanner *scanner = bh_startup_scanner();
    if (!scanner) return 2;
    bh_scanner_drain(scanner, NULL, on_section, on_problem, NULL);
    return 0;
}
