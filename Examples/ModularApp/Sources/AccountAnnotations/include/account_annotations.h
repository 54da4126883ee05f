#ifndef Account_ANNOTATIONS_H
#define Account_ANNOTATIONS_H
/* Records only. */
#endif
