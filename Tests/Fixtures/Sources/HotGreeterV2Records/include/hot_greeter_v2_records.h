/* Empty: the target exists for its records (records.c). */
