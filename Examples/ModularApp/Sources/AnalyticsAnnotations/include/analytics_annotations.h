#ifndef Analytics_ANNOTATIONS_H
#define Analytics_ANNOTATIONS_H
/* Records only. */
#endif
