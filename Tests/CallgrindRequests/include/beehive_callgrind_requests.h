// Callgrind's client requests, for the complexity tests: a dump of the counts so far, one per workload, from one
// child process. The requests are a few no-op instructions outside valgrind.
#ifndef BEEHIVE_CALLGRIND_REQUESTS_H
#define BEEHIVE_CALLGRIND_REQUESTS_H

/// Whether this build can make the requests: valgrind's headers were installed when it was compiled.
int beehive_callgrind_requests_available(void);

/// Writes the counts collected since the last dump to a new dump file, labelled `label`, and sets them to zero.
void beehive_callgrind_dump(const char *label);

#endif
