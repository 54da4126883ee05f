#ifndef MIXED_C_ANNOTATIONS_H
#define MIXED_C_ANNOTATIONS_H
/* The records are data only; this header declares nothing the app needs. */
#endif
