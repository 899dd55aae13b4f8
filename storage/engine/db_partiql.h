/*
 * db_partiql.h - the db_* entry points of PartiQL statements run against the engine (db_partiql.c;
 * the language itself is in storage/partiql/).
 *
 * The contract of storage/engine/db.h holds: each call takes the lock itself,
 * arguments are borrowed, results are owned by the caller.
 */
#ifndef DDB_DB_PARTIQL_H
#define DDB_DB_PARTIQL_H

#include "storage/engine/db_items.h"

/* One statement with its Parameters, as ExecuteStatement, an entry of
 * BatchExecuteStatement or of ExecuteTransaction carries it. Borrowed. */
struct partiql_statement {
    const char *text;
    size_t len;
    const struct value *params; /* Parameters, or NULL */
    size_t param_count;
    bool consistent_read;
    bool return_old_on_condition_failure; /* ReturnValuesOnConditionCheckFailure ALL_OLD */
};

/* Where a SELECT's reading goes on (NextToken, decoded by api/): the index
 * of the Query it stopped in (0 for a Scan) and that read's
 * LastEvaluatedKey, or VALUE_NULL to start that Query from its beginning. */
struct partiql_cursor {
    size_t query;
    struct value key;
};

struct partiql_result {
    struct item **items; /* owned references: the rows of a SELECT or a RETURNING */
    size_t count;
    bool is_read;               /* a SELECT */
    bool has_next;              /* the SELECT stopped early: next says where to go on */
    struct partiql_cursor next; /* owned key */
    struct consumed_capacity capacity;
    char *table_name; /* owned: the statement's table (BatchExecuteStatement's TableName) */
};

void partiql_result_clear(struct partiql_result *r);

/*
 * ExecuteStatement: parses st, plans it against its table and runs it as the
 * equivalent Query(s)/Scan (from *resume when not NULL, reading at most limit
 * items when limit > 0), PutItem, UpdateItem or DeleteItem. Errors are those
 * operations' errors plus the language's (storage/partiql/pql.h); a failed
 * condition with return_old_on_condition_failure hands the item back in
 * *failure. *out is owned by the caller.
 */
int db_execute_statement(struct db *db, const struct db_scope *scope,
                         const struct partiql_statement *st, int64_t limit,
                         const struct partiql_cursor *resume, enum return_capacity return_capacity,
                         struct partiql_result *out, struct failure_details *failure,
                         struct ddb_error *err);

/*
 * ExecuteTransaction: every statement a SELECT by full key (run as one
 * TransactGetItems, out[i].items holding the item or nothing) or every one a
 * write or EXISTS (run as one TransactWriteItems, with client_token and
 * request_digest as db_transact_write takes them). out is an array of count
 * results (owned by the caller, cleared with partiql_result_clear);
 * *capacities as db_transact_write. TransactionCanceledException carries its
 * reasons in *failure.
 */
int db_execute_transaction(struct db *db, const struct db_scope *scope,
                           const struct partiql_statement *sts, size_t count,
                           const char *client_token, const char *request_digest,
                           enum return_capacity return_capacity, struct partiql_result *out,
                           struct consumed_capacity **capacities, size_t *capacity_count,
                           struct failure_details *failure, struct ddb_error *err);

/* Whether st is a SELECT (BatchExecuteStatement keeps reads and writes
 * apart). -1 with err set when it does not parse. */
int db_partiql_is_read(const struct partiql_statement *st, bool *is_read, struct ddb_error *err);

/*
 * One statement of BatchExecuteStatement: a SELECT must name its full key
 * (it is a BatchGetItem read, out->items holding the item or nothing); a
 * write runs as the equivalent single-item write. Errors are per statement.
 */
int db_batch_statement(struct db *db, const struct db_scope *scope,
                       const struct partiql_statement *st, enum return_capacity return_capacity,
                       struct partiql_result *out, struct failure_details *failure,
                       struct ddb_error *err);

#endif
