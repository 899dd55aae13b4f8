/*
 * insight_check.h - the design gate: the access-pattern report (GET
 * /ddbemu/insight's JSON, from a running server or the file a --db-path
 * server leaves) judged against the gate's rules (insight_rules.h), written
 * as Markdown a reviewer reads in a pull request.
 *
 * Each finding names its table (and index), the rule and its limit, what was
 * observed, and the request shape that caused it: the operation, the table or
 * index it ran on, its filter's attributes, the partition key, the write
 * operations that fed an index.
 */
#ifndef DDB_EMULATOR_INSIGHT_CHECK_H
#define DDB_EMULATOR_INSIGHT_CHECK_H

#include "emulator/insight_rules.h"

#include <jansson.h>
#include <stdio.h>

/* Judges report, writes the Markdown to out; returns the number of findings
 * (0: the gate passes). */
size_t insight_check(const json_t *report, const struct gate_config *config, FILE *out);

/* Keeps only the tables of report that table (NULL: any) and namespace_id
 * ("key/region", NULL: any) name, as the server narrows GET /ddbemu/insight
 * (under --shared-db every credential sees the one shared namespace). */
void insight_check_narrow(json_t *report, const char *table, const char *namespace_id);

#endif
