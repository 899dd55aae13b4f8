/*
 * engine/db_partiql.c - ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
 *
 * Each statement is parsed and planned by storage/partiql/ (pql.h) against a
 * copy of its table's definition, then run through the public entry points
 * every other operation uses: db_query / db_scan for a SELECT (one Query per
 * pinned partition-key value, or a Scan), db_write_item for INSERT, UPDATE and
 * DELETE, db_get_item for a batch's SELECT, and db_transact_write /
 * db_transact_get for a transaction. So indexes, streams, TTL, item
 * collections, capacity and persistence behave exactly as for the equivalent
 * operations, and a failed statement changes nothing.
 *
 * Locking: the definition is copied under a shared hold of the lock, which is
 * released before the plan runs; the db_* calls take it themselves. A table
 * changed between the two is refused by the db_* call as for any request.
 *
 * Ownership: results hold item references and owned copies (partiql_result_clear).
 */
#include "storage/engine/db_partiql.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/partiql/pql.h"

#include <stdlib.h>
#include <string.h>

void partiql_result_clear(struct partiql_result *r)
{
    for (size_t i = 0; i < r->count; i++)
        item_unref(r->items[i]);
    free(r->items);
    value_clear(&r->next.key);
    consumed_capacity_clear(&r->capacity);
    free(r->table_name);
    memset(r, 0, sizeof *r);
    value_init_null(&r->next.key);
}

static void result_init(struct partiql_result *r)
{
    memset(r, 0, sizeof *r);
    value_init_null(&r->next.key);
}

static void result_add(struct partiql_result *r, struct item *item)
{
    r->items = xrealloc(r->items, (r->count + 1) * sizeof *r->items);
    r->items[r->count++] = item;
}

/* Adds one read's or write's consumption to the statement's. */
static void capacity_merge(struct consumed_capacity *dst, const struct consumed_capacity *src,
                           enum return_capacity mode)
{
    if (!src->table_name) return;
    if (!dst->table_name) capacity_begin(dst, mode, src->table_name);
    capacity_add_table(dst, src->table_read_units, src->table_write_units);
    if (mode == RETURN_CAPACITY_INDEXES) {
        for (size_t i = 0; i < src->index_count; i++)
            capacity_add_index(dst, mode, src->indexes[i].index_name, src->indexes[i].is_global,
                               src->indexes[i].read_units, src->indexes[i].write_units);
        for (size_t i = 0; i < src->vector_count; i++)
            capacity_add_vector_write(dst, mode, src->vectors[i].index_name,
                                      src->vectors[i].write_bytes);
    } else {
        dst->read_units += src->read_units - src->table_read_units;
        dst->write_units += src->write_units - src->table_write_units;
    }
}

/* Parses st and plans it against a copy of its table's definition. */
static int prepare(struct db *db, const struct db_scope *scope, const struct partiql_statement *st,
                   enum pql_context context, struct pql_plan *plan, struct ddb_error *err)
{
    struct pql_stmt *stmt = NULL;
    struct table_def def;
    struct table *t;
    int rc;

    pql_plan_init(plan);
    if (pql_parse(st->text, st->len, &stmt, err) != 0) return -1;
    memset(&def, 0, sizeof def);
    db_read_lock(db);
    rc = db_require_table(db, scope, stmt->table, &t, err);
    if (rc == 0) table_def_copy(&def, &t->def);
    db_unlock(db);
    if (rc == 0) {
        pql_plan_clear(plan);
        rc = pql_plan(stmt, &def, st->params, st->param_count, context, plan, err);
    }
    table_def_clear(&def);
    pql_stmt_free(stmt);
    return rc;
}

/* ---- SELECT ---- */

/* Runs a SELECT's Queries (or its Scan) from resume, at most limit items
 * read, stopping at the first page that did not finish (Limit or 1 MB). */
static int run_select(struct db *db, const struct db_scope *scope, const struct pql_plan *plan,
                      const struct partiql_statement *st, int64_t limit,
                      const struct partiql_cursor *resume, enum return_capacity mode,
                      struct partiql_result *out, struct ddb_error *err)
{
    size_t q = resume ? resume->query : 0;
    size_t reads = plan->query_count ? plan->query_count : 1;
    const struct value *start = resume && resume->key.type == VALUE_M ? &resume->key : NULL;
    int64_t remaining = limit;
    size_t bytes = 0;
    bool named = plan->projection && expr_projection_is_nested(plan->projection) &&
                 !(plan->index && !plan->index_is_global);

    out->is_read = true;
    /* DynamoDB Local's PartiQL text (CONSISTENT_READ_ON_GSI); Query's own
     * differs. */
    if (st->consistent_read && plan->index_is_global)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Strongly consistent read is not supported on Global Secondary "
                             "Indexes");
    if (q >= reads) return 0; /* a token past the last Query: nothing is left */
    for (; q < reads; q++) {
        struct read_page_op op;
        struct read_page page;
        int rc;

        memset(&op, 0, sizeof op);
        op.table_name = plan->table;
        op.index_name = plan->index;
        op.key_condition = plan->query_count ? plan->queries[q].key_condition : NULL;
        op.filter = plan->filter;
        op.filter_may_use_keys = true;
        /* Nested paths come back under their own names (expr_project_named),
         * projected here from the whole item; a local index's read keeps
         * DynamoDB's ProjectionExpression form (its answer is not recorded). */
        op.projection = named ? NULL : plan->projection;
        op.select = SELECT_DEFAULT;
        op.scan_forward = plan->scan_forward;
        op.limit = remaining;
        op.exclusive_start_key = start;
        op.consistent_read = st->consistent_read;
        rc = plan->query_count ? db_query(db, scope, &op, mode, &page, err)
                               : db_scan(db, scope, &op, mode, &page, err);
        if (rc != 0) return -1;
        for (size_t i = 0; i < page.count; i++) {
            struct item *it = page.items[i];
            bytes += it->size_bytes;
            if (named) {
                struct value attrs;
                expr_project_named(plan->projection, item_attrs(it), &attrs);
                item_unref(it);
                it = item_new(&attrs);
            }
            result_add(out, it);
        }
        page.count = 0;
        capacity_merge(&out->capacity, &page.capacity, mode);
        start = NULL;
        if (page.last_evaluated_key.type == VALUE_M) {
            out->has_next = true;
            out->next.query = q;
            value_move(&out->next.key, &page.last_evaluated_key);
            read_page_clear(&page);
            return 0;
        }
        if (limit > 0) remaining -= (int64_t) page.scanned_count;
        read_page_clear(&page);
        /* The next Query starts a new page once this one is full. */
        if (q + 1 < reads && ((limit > 0 && remaining <= 0) || bytes >= DDB_MAX_PAGE_READ_BYTES)) {
            out->has_next = true;
            out->next.query = q + 1;
            return 0;
        }
    }
    return 0;
}

/* ---- writes ---- */

static void write_op_from_plan(const struct pql_plan *plan, const struct partiql_statement *st,
                               struct write_op *op)
{
    memset(op, 0, sizeof *op);
    op->table_name = plan->table;
    op->condition = plan->condition;
    op->return_old_on_condition_failure = st->return_old_on_condition_failure;
    switch (plan->kind) {
    case PQL_INSERT:
        op->kind = WRITE_PUT;
        op->put_item = plan->put_item;
        op->fails_as_duplicate = true;
        break;
    case PQL_UPDATE:
        op->kind = WRITE_UPDATE;
        op->update = plan->update;
        op->return_values = RETURN_VALUES_ALL_NEW; /* the result needs both images */
        break;
    case PQL_DELETE:
        op->kind = WRITE_DELETE;
        op->return_values = RETURN_VALUES_ALL_OLD;
        break;
    default: op->kind = WRITE_CONDITION_CHECK; break;
    }
    if (plan->kind != PQL_INSERT) op->key = plan->key;
}

/* What RETURNING asks for, from the write's old and new items. */
static void returning_rows(const struct pql_plan *plan, const struct write_result *res,
                           struct partiql_result *out)
{
    struct value attrs;
    switch (plan->returning) {
    case PQL_RETURN_ALL_OLD:
        if (res->old_item) result_add(out, item_ref(res->old_item));
        return;
    case PQL_RETURN_ALL_NEW:
        if (res->new_item) result_add(out, item_ref(res->new_item));
        return;
    case PQL_RETURN_MODIFIED_OLD:
    case PQL_RETURN_MODIFIED_NEW: {
        const struct item *from =
            plan->returning == PQL_RETURN_MODIFIED_OLD ? res->old_item : res->new_item;
        if (!from) return;
        expr_project_updated(plan->update, item_attrs(from), &attrs);
        /* Nothing modified (e.g. only new attributes, asked OLD): no row. */
        if (attrs.u.map.count == 0)
            value_clear(&attrs);
        else
            result_add(out, item_new(&attrs));
        return;
    }
    default: return;
    }
}

static int run_write(struct db *db, const struct db_scope *scope, const struct pql_plan *plan,
                     const struct partiql_statement *st, enum return_capacity mode,
                     struct partiql_result *out, struct failure_details *failure,
                     struct ddb_error *err)
{
    struct write_op op;
    struct write_result res;
    int rc;

    write_op_from_plan(plan, st, &op);
    rc = db_write_item(db, scope, &op, mode, &res, err);
    if (rc != 0) {
        failure_details_move(failure, &res.failure);
        write_result_clear(&res);
        return -1;
    }
    returning_rows(plan, &res, out);
    capacity_merge(&out->capacity, &res.capacity, mode);
    write_result_clear(&res);
    return 0;
}

int db_execute_statement(struct db *db, const struct db_scope *scope,
                         const struct partiql_statement *st, int64_t limit,
                         const struct partiql_cursor *resume, enum return_capacity return_capacity,
                         struct partiql_result *out, struct failure_details *failure,
                         struct ddb_error *err)
{
    struct pql_plan plan;
    int rc;

    result_init(out);
    if (prepare(db, scope, st, PQL_IN_STATEMENT, &plan, err) != 0) {
        pql_plan_clear(&plan);
        return -1;
    }
    out->table_name = xstrdup(plan.table);
    if (plan.kind == PQL_SELECT)
        rc = run_select(db, scope, &plan, st, limit, resume, return_capacity, out, err);
    else
        rc = run_write(db, scope, &plan, st, return_capacity, out, failure, err);
    pql_plan_clear(&plan);
    if (rc != 0) partiql_result_clear(out);
    return rc;
}

/* ---- BatchExecuteStatement ---- */

int db_partiql_is_read(const struct partiql_statement *st, bool *is_read, struct ddb_error *err)
{
    struct pql_stmt *stmt;
    if (pql_parse(st->text, st->len, &stmt, err) != 0) return -1;
    *is_read = stmt->kind == PQL_SELECT;
    pql_stmt_free(stmt);
    return 0;
}

int db_batch_statement(struct db *db, const struct db_scope *scope,
                       const struct partiql_statement *st, enum return_capacity return_capacity,
                       struct partiql_result *out, struct failure_details *failure,
                       struct ddb_error *err)
{
    struct pql_plan plan;
    int rc;

    result_init(out);
    /* A batch's SELECT reads one item by its key, as BatchGetItem does: the
     * same rules as a transaction's. */
    if (prepare(db, scope, st, PQL_IN_BATCH, &plan, err) != 0) {
        pql_plan_clear(&plan);
        return -1;
    }
    out->table_name = xstrdup(plan.table);
    if (plan.kind == PQL_EXISTS) {
        rc = ddb_error_set(err, DDB_VALIDATION,
                           "EXISTS can only be used in ExecuteTransaction write requests.");
    } else if (plan.kind == PQL_SELECT) {
        struct get_op get = {.table_name = plan.table,
                             .key = plan.key,
                             .consistent_read = st->consistent_read,
                             .projection = plan.projection};
        struct item *item = NULL;
        struct consumed_capacity cap;
        memset(&cap, 0, sizeof cap);
        rc = db_get_item(db, scope, &get, return_capacity, &item, &cap, err);
        if (rc == 0 && item) {
            if (plan.projection) {
                result_add(out, expr_project_item(plan.projection, item));
                item_unref(item);
            } else {
                result_add(out, item);
            }
        }
        out->is_read = true;
        capacity_merge(&out->capacity, &cap, return_capacity);
        consumed_capacity_clear(&cap);
    } else {
        rc = run_write(db, scope, &plan, st, return_capacity, out, failure, err);
    }
    pql_plan_clear(&plan);
    if (rc != 0) {
        char *table = out->table_name;
        out->table_name = NULL;
        partiql_result_clear(out);
        out->table_name = table;
    }
    return rc;
}

/* ---- ExecuteTransaction ---- */

int db_execute_transaction(struct db *db, const struct db_scope *scope,
                           const struct partiql_statement *sts, size_t count,
                           const char *client_token, const char *request_digest,
                           enum return_capacity return_capacity, struct partiql_result *out,
                           struct consumed_capacity **capacities, size_t *capacity_count,
                           struct failure_details *failure, struct ddb_error *err)
{
    struct pql_plan *plans = xcalloc(count ? count : 1, sizeof *plans);
    size_t planned = 0, reads = 0;
    int rc = -1;

    *capacities = NULL;
    *capacity_count = 0;
    for (size_t i = 0; i < count; i++)
        result_init(&out[i]);
    for (; planned < count; planned++) {
        if (prepare(db, scope, &sts[planned], PQL_IN_TRANSACTION, &plans[planned], err) != 0) {
            /* AWS names the statement a validation error is about. */
            if (err->code == DDB_VALIDATION) {
                struct ddb_error inner = {0};
                ddb_error_move(&inner, err);
                ddb_error_set(err, DDB_VALIDATION,
                              "Validation failed in TransactStatements[%zu]: %s", planned,
                              inner.message ? inner.message : "");
                ddb_error_clear(&inner);
            }
            planned++;
            goto out;
        }
        if (plans[planned].kind == PQL_SELECT) reads++;
    }
    if (reads != 0 && reads != count) {
        /* DynamoDB runs a transaction as TransactGetItems or TransactWriteItems. */
        ddb_error_set(err, DDB_VALIDATION,
                      "Transaction statements must be all reads or all writes");
        goto out;
    }
    if (reads) {
        struct get_op *gets = xcalloc(count, sizeof *gets);
        struct item **items = xcalloc(count, sizeof *items);
        for (size_t i = 0; i < count; i++) {
            gets[i].table_name = plans[i].table;
            gets[i].key = plans[i].key;
            gets[i].projection = plans[i].projection;
        }
        rc = db_transact_get(db, scope, gets, count, return_capacity, items, capacities,
                             capacity_count, failure, err);
        for (size_t i = 0; rc == 0 && i < count; i++) {
            out[i].is_read = true;
            out[i].table_name = xstrdup(plans[i].table);
            if (!items[i]) continue;
            if (plans[i].projection) {
                result_add(&out[i], expr_project_item(plans[i].projection, items[i]));
            } else {
                result_add(&out[i], item_ref(items[i]));
            }
        }
        for (size_t i = 0; i < count; i++)
            item_unref(items[i]);
        free(items);
        free(gets);
    } else {
        struct write_op *ops = xcalloc(count ? count : 1, sizeof *ops);
        for (size_t i = 0; i < count; i++) {
            write_op_from_plan(&plans[i], &sts[i], &ops[i]);
            ops[i].return_values = RETURN_VALUES_NONE;
        }
        rc = db_transact_write(db, scope, ops, count, client_token, request_digest, return_capacity,
                               capacities, capacity_count, failure, err);
        free(ops);
    }
out:
    for (size_t i = 0; i < planned; i++)
        pql_plan_clear(&plans[i]);
    free(plans);
    if (rc != 0) {
        for (size_t i = 0; i < count; i++)
            partiql_result_clear(&out[i]);
    }
    return rc;
}
