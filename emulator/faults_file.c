/*
 * faults_file.c - --faults FILE (faults_file.h): the file is JSON, one rule,
 * a list of rules, or {"faults": [...]}, the same document POST
 * /ddbemu/faults takes.
 */
#include "emulator/faults_file.h"

#include "api/faults/faults.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

int faults_file_load(const char *path, struct fault_set *set)
{
    json_error_t jerr;
    json_t *doc = json_load_file(path, 0, &jerr);
    char *why = NULL;
    int rc = 0;

    if (!doc) {
        fprintf(stderr, "ddbemu: --faults %s: line %d: %s\n", path, jerr.line, jerr.text);
        return -1;
    }
    if (fault_set_add(set, doc, NULL, &why) != 0) {
        fprintf(stderr, "ddbemu: --faults %s: %s\n", path, why);
        free(why);
        rc = -1;
    }
    json_decref(doc);
    return rc;
}
