/*
 * db_search.h - the db_* entry point of SearchVectors (db_search.c): the
 * exact k-nearest search of a table's vector index.
 *
 * The contract of storage/engine/db.h holds: the call takes the lock itself
 * (shared, like Query), arguments are borrowed, results are owned by the
 * caller.
 */
#ifndef DDB_DB_SEARCH_H
#define DDB_DB_SEARCH_H

#include "storage/engine/db.h"
#include "storage/expr/expr.h"
#include "storage/model/item.h"

#include <stdbool.h>
#include <stddef.h>

/* One SearchVectors request, decoded (api/ops/op_search.c). Borrowed. */
struct search_op {
    const char *table_name;
    const char *index_name;
    const struct value *vector; /* SearchVector's elements, as sent */
    size_t vector_count;
    size_t top_k;                  /* 1..DDB_MAX_SEARCH_TOP_K */
    const struct expr *condition;  /* SearchConditionExpression; NULL when none */
    const struct expr *projection; /* ProjectionExpression; NULL when none */
    enum return_capacity return_capacity;
};

/* The answer: items (projected as the index and the request say) with their
 * scores, best first; the vector search bytes consumed. */
struct search_result {
    struct item **items; /* owned references */
    double *scores;      /* parallel to items */
    size_t count;
    bool has_capacity; /* ReturnConsumedCapacity TOTAL or INDEXES */
    double request_bytes;
};

int db_search_vectors(struct db *db, const struct db_scope *scope, const struct search_op *op,
                      struct search_result *out, struct ddb_error *err);
void search_result_clear(struct search_result *r);

#endif
