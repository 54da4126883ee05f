#ifndef C_RECORDS_PLUGIN_H
#define C_RECORDS_PLUGIN_H
/* A plugin of records only: no Swift, so dlclose really unloads it. */
int c_records_plugin_version(void);
#endif
