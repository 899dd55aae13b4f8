/*
 * db_tables.h - the db_* entry points of tables: CreateTable, DescribeTable, DeleteTable,
 * ListTables (catalog.c), UpdateTable (catalog_update.c, catalog_update_check.c).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_TABLES_H
#define DDB_DB_TABLES_H

#include "storage/engine/db.h"
#include "storage/model/schema.h"
#include "storage/model/throughput.h"
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

/*
 * UpdateTable. api/ checks what needs nothing but the request (shapes, which members may
 * travel together, the rules of each member on its own) and decodes the
 * request into a struct table_update: typed values and, where a rule depends
 * on it, which members were sent. Everything that needs the table is checked
 * by db_update_table, in AWS's order, under the exclusive lock, before
 * anything changes (catalog_update_check.c), then applied in the same
 * critical section (catalog_update.c). Two UpdateTable calls on one table
 * therefore behave as if one ran after the other. Every pointer inside these
 * structs is owned by the struct; table_update_clear() frees them.
 */

enum gsi_update_kind { GSI_UPDATE_CREATE, GSI_UPDATE_UPDATE, GSI_UPDATE_DELETE };

/* One GlobalSecondaryIndexUpdates entry. */
struct gsi_update {
    enum gsi_update_kind kind;
    /* CREATE: the whole definition; UPDATE: name, throughput, OnDemandThroughput
     * and WarmThroughput (0: not sent; a maximum of -1 clears it); DELETE: name. */
    struct index_def def;
    bool has_throughput;         /* CREATE, UPDATE: ProvisionedThroughput was sent */
    struct units_sent on_demand; /* UPDATE: the members of OnDemandThroughput sent */
    struct units_sent warm;      /* UPDATE: the members of WarmThroughput sent */
};

/* A ReplicaUpdates entry: its actions (a request may name several, which is
 * refused) and the RegionName of its Create, else its Update, else its Delete. */
enum replica_action {
    REPLICA_CREATE = 1,
    REPLICA_UPDATE = 2,
    REPLICA_DELETE = 4,
    REPLICA_DISASSOCIATE = 8
};

struct replica_update {
    unsigned actions; /* enum replica_action bits */
    char *region;
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
    char *replication_mode; /* GlobalTableSettingsReplicationMode; NULL: not sent */
    bool has_disassociation_protection;
    bool disassociation_protection;
    bool has_sse;
    struct sse_spec sse;
    struct attr_def *attr_defs; /* new definitions for GSI creation */
    size_t attr_def_count;
    struct gsi_update *gsi_updates;
    size_t gsi_update_count;
    /* OnDemandThroughput / WarmThroughput members (0: not sent; a maximum of -1
     * clears it), and which members were sent. */
    struct on_demand_throughput on_demand;
    struct units_sent on_demand_sent;
    struct warm_throughput warm;
    struct units_sent warm_sent;
    struct replica_update *replica_updates;
    size_t replica_update_count;
    /* VectorIndexUpdates' one entry (api/ refuses more): a Create's whole
     * definition, or a Delete's name (vector.name). */
    bool has_vector_update;
    bool vector_delete;
    struct vector_index_def vector;
};

void table_update_clear(struct table_update *u);

/*
 * Checks u against the table and applies it, in one critical section:
 * ResourceNotFoundException when the table does not exist, then every rule
 * that depends on the table in AWS's order (ValidationException,
 * LimitExceededException, ResourceInUseException while the table or an index
 * is changing); on failure nothing has changed. *out gets the table as
 * UpdateTable answers. A GSI Create returns once its backfill is done (the
 * backfill runs in steps after the critical section, catalog.c).
 */
int db_update_table(struct db *db, const struct db_scope *scope, const struct table_update *u,
                    struct table_desc *out, struct ddb_error *err);

#endif
