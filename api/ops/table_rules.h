/*
 * table_rules.h - the cross-field rules of table definitions, in AWS's order.
 *
 * CreateTable runs them all (table_rules_check_create); UpdateTable reuses the
 * ones that apply to what it changes (throughput bounds, index key schemas and
 * projections, streams, SSE, table class). Each takes the shape-checked JSON
 * body (or a member of it) and raises AWS's ValidationException text.
 */
#ifndef DDB_API_TABLE_RULES_H
#define DDB_API_TABLE_RULES_H

#include "api/wire/shape.h"
#include "storage/base/error.h"

#include <jansson.h>
#include <stdbool.h>

/* The prefix AWS puts on most of these messages. */
#define TABLE_RULES_INVALID "One or more parameter values were invalid: "

/* KeySchemaElement, the element of every key schema (tables, GSIs, LSIs):
 * CreateTable's and UpdateTable's shapes use it, and the rules render it. */
extern const struct field table_rules_key_schema_element;

/* ProvisionedThroughput pt (NULL: absent) within bounds (model/throughput.h). */
int table_rules_throughput_bounds(const json_t *pt, const char *index, struct ddb_error *err);
int table_rules_keys_defined(const json_t *ks, const json_t *defs, const json_t *more_defs,
                             struct ddb_error *err);
int table_rules_projection(const json_t *projection, struct ddb_error *err);
int table_rules_gsi_key_schema(const json_t *ks, struct ddb_error *err);
int table_rules_stream(const json_t *spec, bool creating, struct ddb_error *err);
int table_rules_sse(const json_t *spec, struct ddb_error *err);
int table_rules_table_class(const json_t *body, struct ddb_error *err);
/* GlobalTableSettingsReplicationMode and GlobalTableSourceArn of CreateTable,
 * the mode of UpdateTable (table_rules.c says which values a table takes). */
int table_rules_global_settings(const json_t *body, struct ddb_error *err);
int table_rules_check_create(const json_t *body, struct ddb_error *err);
/* Refuses key attribute names that contain U+0000 (a ddbemu limitation). */
int table_rules_key_names_without_nul(const json_t *body, struct ddb_error *err);

/* ---- vector indexes: the request-only rules of their definitions ---- */

/* CreateTable's VectorIndexes (absent: nothing to check). */
int vector_rules_check_create(const json_t *body, struct ddb_error *err);
/* UpdateTable's VectorIndexUpdates entries on their own (absent: nothing). */
int vector_rules_check_updates(const json_t *body, struct ddb_error *err);
/* LimitExceededException: one online index change (GSI or vector) per call; returns -1. */
int vector_rules_online_limit(struct ddb_error *err);

#endif
