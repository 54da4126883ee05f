/* Records for the in-process tests live in this target's .c files; nothing to declare. */
#ifndef BEEHIVE_TEST_ANNOTATIONS_H
#define BEEHIVE_TEST_ANNOTATIONS_H
int beehive_test_annotations_linked(void);
#endif
