#ifndef Home_ANNOTATIONS_H
#define Home_ANNOTATIONS_H
/* Records only. */
#endif
