#ifndef SVC_PROBE_ANNOTATIONS_H
#define SVC_PROBE_ANNOTATIONS_H
/* Records are data only; nothing to declare. */
#endif
