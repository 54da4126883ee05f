#ifndef DEMO_ANNOTATIONS_H
#define DEMO_ANNOTATIONS_H
/* The demo's records are data only: nothing to declare. */
#endif
