/*
 * shape_names.h - DynamoDB's naming rule for tables and indexes, which the
 * request-shape checks (shape.c) and the ARN parser (arn.c) share: one
 * length rule, counted as DynamoDB counts, and the table-name pattern.
 * Below both, so that neither depends on the other for it.
 */
#ifndef DDB_API_SHAPE_NAMES_H
#define DDB_API_SHAPE_NAMES_H

#include "storage/base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* Where a name's length stands against the naming rule: <0 too short, >0
 * too long, 0 within. */
int shape_name_length_cmp(const char *s, size_t len);

/*
 * The naming rule's length, the one place it is counted: a table or index
 * name is DDB_MIN_TABLE_NAME_LEN..DDB_MAX_TABLE_NAME_LEN (3..255) characters
 * as DynamoDB counts them, UTF-16 units (Java's String.length(); dynalite's
 * validateTableName counts JavaScript's length, the same units). Returns 0
 * when s[0..len) fits; otherwise -1 with the ValidationException DynamoDB
 * raises on its own, before the model constraints: "<member> must be at least
 * 3 characters long and at most 255 characters long".
 */
int shape_check_name_length(const char *member, const char *s, size_t len, struct ddb_error *err);
/* Whether s[0..len) is a table name by the whole naming rule: the pattern
 * [a-zA-Z0-9_.-]+ and the length above (for the name inside an ARN, which
 * has no message of its own). */
bool shape_is_table_name(const char *s, size_t len);

#endif
