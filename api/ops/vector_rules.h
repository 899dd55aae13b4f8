/*
 * vector_rules.h - the cross-field rules of vector index definitions
 * (CreateTable VectorIndexes, UpdateTable VectorIndexUpdates) that need
 * nothing but the request, in the order docs/differences.md records. Rules
 * that need the table (names in use, billing mode, the per-table count on
 * UpdateTable) are storage's (catalog_update_check.c).
 *
 * Texts: spec-24 2.3 (dynoxide's captures from the live service).
 */
#ifndef DDB_API_VECTOR_RULES_H
#define DDB_API_VECTOR_RULES_H

#include "storage/base/error.h"

#include <jansson.h>

/* CreateTable's VectorIndexes (absent: nothing to check). */
int vector_rules_check_create(const json_t *body, struct ddb_error *err);
/* UpdateTable's VectorIndexUpdates entries on their own (absent: nothing). */
int vector_rules_check_updates(const json_t *body, struct ddb_error *err);
/* LimitExceededException: one online index change (GSI or vector) per call; returns -1. */
int vector_rules_online_limit(struct ddb_error *err);

#endif
