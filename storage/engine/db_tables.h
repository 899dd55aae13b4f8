/*
 * db_tables.h - the db_* entry points of tables: CreateTable, DescribeTable, DeleteTable,
 * ListTables, UpdateTable (catalog.c).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_TABLES_H
#define DDB_DB_TABLES_H

#include "storage/engine/db.h"
#include "storage/model/schema.h"
#include "storage/stream/stream.h"

/* Creates a table from def (taken, whether this succeeds or fails) and
 * describes it in *out (status CREATING, as AWS's response says; the table is
 * ACTIVE for every later call). ResourceInUseException if the name exists,
 * LimitExceededException past the table quota. */
int db_create_table(struct db *db, const struct db_scope *scope, struct table_def *def,
                    struct table_desc *out, struct ddb_error *err);
int db_describe_table(struct db *db, const struct db_scope *scope, const char *name,
                      struct table_desc *out, struct ddb_error *err);
/* Deletes a table and describes it as AWS does (status DELETING).
 * Refused with ValidationException while deletion protection is on. */
int db_delete_table(struct db *db, const struct db_scope *scope, const char *name,
                    struct table_desc *out, struct ddb_error *err);

/* ListTables page: names in ascending order after exclusive_start (NULL: from
 * the start), at most limit. *names is an owned array of owned strings;
 * *last_evaluated is set (owned) when more names follow. */
int db_list_tables(struct db *db, const struct db_scope *scope, const char *exclusive_start,
                   size_t limit, char ***names, size_t *count, char **last_evaluated,
                   struct ddb_error *err);

enum gsi_update_kind { GSI_UPDATE_CREATE, GSI_UPDATE_UPDATE, GSI_UPDATE_DELETE };

struct gsi_update {
    enum gsi_update_kind kind;
    struct index_def
        def; /* CREATE: the whole definition; UPDATE: name + throughput; DELETE: name */
};

/* UpdateTable's request, decoded. has_* say which parts were given. */
struct table_update {
    char *name;
    bool has_billing;
    enum billing_mode billing;
    bool has_throughput;
    struct throughput throughput;
    bool has_stream;
    struct stream_spec stream;
    bool has_deletion_protection;
    bool deletion_protection;
    bool has_table_class;
    char *table_class;
    bool has_sse;
    struct sse_spec sse;
    struct attr_def *attr_defs; /* new definitions for GSI creation */
    size_t attr_def_count;
    struct gsi_update *gsi_updates;
    size_t gsi_update_count;
    /* OnDemandThroughput / WarmThroughput members sent (0: not sent; a maximum of
     * -1 clears it). Checked against the table by api/ before. */
    struct on_demand_throughput on_demand;
    struct warm_throughput warm;
};

void table_update_clear(struct table_update *u);
int db_update_table(struct db *db, const struct db_scope *scope, const struct table_update *u,
                    struct table_desc *out, struct ddb_error *err);

#endif
