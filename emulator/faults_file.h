/*
 * faults_file.h - reads --faults FILE into the fault set the server asks
 * (api/faults/faults.h parses and judges the rules; only the reading is here).
 */
#ifndef DDB_EMULATOR_FAULTS_FILE_H
#define DDB_EMULATOR_FAULTS_FILE_H

struct fault_set;

/* Adds the rules of the JSON file at path to set. Returns 0, or -1 after
 * printing why (the file, and the rule and member at fault) on stderr. */
int faults_file_load(const char *path, struct fault_set *set);

#endif
