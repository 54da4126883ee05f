#ifndef BEEHIVE_CLIBELF_SHIM_H
#define BEEHIVE_CLIBELF_SHIM_H
#include <gelf.h>
#include <libelf.h>
#endif
