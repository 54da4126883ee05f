#ifndef FIXTURE_ANNOTATIONS_H
#define FIXTURE_ANNOTATIONS_H
/* The records are data only; this header declares nothing the app needs. */
#endif
