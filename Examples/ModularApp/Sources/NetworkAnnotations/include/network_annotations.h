#ifndef Network_ANNOTATIONS_H
#define Network_ANNOTATIONS_H
/* Records only. */
#endif
