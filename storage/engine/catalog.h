/*
 * catalog.h - what catalog.c shares with UpdateTable's files
 * (catalog_update.c applies, catalog_update_check.c validates).
 *
 * Not for api/: the public surface is db.h and db_tables.h. The caller
 * holds db->lock, shared or exclusive - exclusively where a function says
 * so - and each function that reads the tables asserts it.
 */
#ifndef DDB_CATALOG_H
#define DDB_CATALOG_H

#include "storage/engine/db_internal.h"

#include <stdbool.h>
#include <stdint.h>

/* ResourceInUseException while t is CREATING, UPDATING or DELETING at now_ms. */
int catalog_check_settled(const struct table *t, int64_t now_ms, struct ddb_error *err);
/* A DELETING table whose time has come: gone for every call. */
bool catalog_deleted_by(const struct table *t, int64_t now_ms);
/* Frees the scope's DELETING tables whose time has come; caller holds the lock exclusively. */
void catalog_purge_deleted(struct db *db, const struct db_scope *scope, int64_t now_ms);
/* Whether a GSI deleted under --delay-transient-statuses is still DELETING. */
bool catalog_gsi_deleting(const struct table *t, int64_t now_ms);
/* t's GSI named name (not an LSI), or NULL. */
struct table_index *catalog_find_gsi(const struct table *t, const char *name);
/* The type defs give attribute name; false (and *out untouched) when none
 * does. Reads only its arguments: needs no lock. */
bool catalog_attr_def_type(const struct attr_def *defs, size_t count, const char *name,
                           enum value_type *out);

/*
 * One UpdateTable under the exclusive lock, in three steps like a write
 * (write.c): prepare finds the table and reads the clock; validate checks
 * every rule against the table and changes nothing; apply changes the table
 * and describes it, and cannot fail.
 */
struct update_plan {
    const struct table_update *u;
    const struct db_scope *scope;
    struct table *t;       /* the table, found by prepare */
    int64_t now_ms;        /* the engine's clock when prepared */
    bool on_demand;        /* the billing mode, once applied, is PAY_PER_REQUEST */
    bool switched_billing; /* the request changes the billing mode */
};

/* Every rule of UpdateTable that needs the table, in AWS's order; nothing
 * changes (catalog_update_check.c). Caller holds the lock exclusively. */
int catalog_update_validate(const struct update_plan *p, struct ddb_error *err);

/* Vector indexes' UpdateTable rules (catalog_update_vector.c), called by
 * catalog_update_validate: those of the billing mode, then the index change
 * itself (running: another index change is under way). Caller holds the lock
 * exclusively. */
int catalog_vector_billing(const struct update_plan *p, struct ddb_error *err);
int catalog_vector_change(const struct update_plan *p, bool running, struct ddb_error *err);
/* Applies a VectorIndexUpdates Create (before the answer is described), then
 * sets the answer's statuses and applies a Delete (after). */
void catalog_vector_apply(struct db *db, const struct update_plan *p);
void catalog_vector_answer(const struct update_plan *p, struct table_desc *out);
/* The vector indexes' statuses DescribeTable reports at now_ms (table_creating: all CREATING). */
void catalog_vector_statuses(const struct table *t, int64_t now_ms, bool table_creating,
                             struct table_desc *out);

#endif
