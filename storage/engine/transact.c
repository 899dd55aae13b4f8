/*
 * transact.c - TransactWriteItems and TransactGetItems: all or nothing.
 *
 * The whole transaction runs in one exclusive critical section: every action
 * is prepared and every condition evaluated against the same state before the
 * first write, and all writes commit together, so no reader ever sees part of
 * a transaction. DynamoDB would answer some concurrent transactions with
 * TransactionConflict; the emulator serializes them instead (see
 * docs/differences.md).
 *
 * Where each problem is reported follows what real DynamoDB answers
 * (conformance/test_transact.py pins each case; the observations come from
 * scylladb test/alternator/test_transact.py and paritysuite
 * dynamodb-conformance tests/tier3, both run against AWS):
 *
 *  1. Request-level, as a plain exception, in this order over all actions: a
 *     missing table (ResourceNotFoundException), an empty string or binary
 *     key value, of the table or of a secondary index in a Put's item
 *     (ValidationException), two actions on one item (ValidationException).
 *  2. Per action, as TransactionCanceledException: the first action whose
 *     key or item does not fit the table's schema gets a "ValidationError"
 *     reason and every other action "None" - DynamoDB stops at the first one.
 *  3. Otherwise every condition is evaluated, and every update computed, for
 *     every action; each failure is that action's reason
 *     (ConditionalCheckFailed; ValidationError for an update that cannot
 *     apply; ItemCollectionSizeLimitExceeded for a write that would grow an
 *     LSI table's item collection past 10 GB), and any failure cancels the
 *     transaction.
 *
 * ClientRequestToken: the api layer passes a digest of the request's
 * parameters; a repeat within 10 minutes of the engine clock with the same
 * digest succeeds without writing, and reports the transactional read of the
 * items it names as its capacity, as DynamoDB does.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/engine/capacity.h"
#include "storage/engine/db.h"
#include "storage/engine/db_internal.h"
#include "storage/engine/db_items.h"
#include "storage/model/item.h"
#include "storage/table/throttle.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Transactional reads and writes cost twice their standard units
 * (developerguide/transaction-apis.html, "Capacity management for transactions"). */
#define TRANSACT_MULTIPLIER 2.0

static struct client_token *find_token(struct db *db, const struct db_scope *scope,
                                       const char *token)
{
    for (size_t i = 0; i < db->token_count; i++) {
        if (strcmp(db->tokens[i].token, token) == 0 &&
            strcmp(db->tokens[i].namespace_id, scope->namespace_id) == 0)
            return &db->tokens[i];
    }
    return NULL;
}

static void remember_token(struct db *db, const struct db_scope *scope, const char *token,
                           const char *digest, int64_t now_ms)
{
    struct client_token *ct;
    db->tokens = xrealloc(db->tokens, sizeof *db->tokens * (db->token_count + 1));
    ct = &db->tokens[db->token_count++];
    ct->namespace_id = xstrdup(scope->namespace_id);
    ct->token = xstrdup(token);
    ct->digest = xstrdup(digest);
    ct->expires_ms = now_ms + DDB_CLIENT_TOKEN_TTL_MS;
    persist_token(db, ct);
}

/* The per-table capacity entry for table t in *caps, created on first use;
 * scratch (not recorded) when no capacity was asked for. */
static struct consumed_capacity *capacity_for(struct consumed_capacity **caps, size_t *count,
                                              const struct table *t, enum return_capacity mode,
                                              struct consumed_capacity *scratch)
{
    if (mode == RETURN_CAPACITY_NONE) {
        memset(scratch, 0, sizeof *scratch);
        return scratch;
    }
    for (size_t i = 0; i < *count; i++) {
        if (strcmp((*caps)[i].table_name, t->def.name) == 0) return &(*caps)[i];
    }
    *caps = xrealloc(*caps, sizeof **caps * (*count + 1));
    capacity_begin(&(*caps)[*count], mode, t->def.name);
    return &(*caps)[(*count)++];
}

static void capacities_free(struct consumed_capacity **caps, size_t *count)
{
    for (size_t i = 0; i < *count; i++)
        consumed_capacity_clear(&(*caps)[i]);
    free(*caps);
    *caps = NULL;
    *count = 0;
}

/* ---- request-level checks, before any action runs ---- */

/* The declared type of a key attribute of t. */
static enum value_type key_attr_type(const struct table *t, const char *name)
{
    for (size_t i = 0; i < t->def.attr_def_count; i++) {
        if (strcmp(t->def.attr_defs[i].name, name) == 0) return t->def.attr_defs[i].type;
    }
    return VALUE_NULL;
}

static bool is_empty_key_value(const struct table *t, const char *name, const struct value *v)
{
    return v && (v->type == VALUE_S || v->type == VALUE_B) && v->u.str.len == 0 &&
           v->type == key_attr_type(t, name);
}

static const char *empty_kind(const struct value *v)
{
    return v->type == VALUE_S ? "string" : "binary";
}

/* What the request-level checks need to know of one action or Get. */
struct target {
    const char *table_name;
    const struct value *key; /* the Key map (borrowed), or NULL for a Put */
    const struct item *item; /* a Put's item (borrowed), or NULL */
};

/* The target's attribute `name`, or NULL: a Put's is read in its encoding
 * alone (item_get), so a transaction's checks decode no whole item. */
static const struct value *target_attr(const struct target *tg, const char *name)
{
    return tg->item ? item_get_cstr(tg->item, name) : value_map_get(tg->key, name, strlen(name));
}

/*
 * DynamoDB refuses an empty string or binary key value before a transaction
 * starts, as a ValidationException of the whole request, while a key of the
 * wrong type is a ValidationError reason of its action (paritysuite
 * tests/tier3/error-messages/transactWriteItems.test.ts, transactIndexKeys).
 * The texts are the single-item operations' (table.c raises the same ones).
 * A Put's item has its index keys checked too.
 */
static int check_empty_keys(const struct table *t, const struct target *tg, struct ddb_error *err)
{
    const struct key_schema *k = &t->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};

    for (size_t i = 0; i < 1 + k->range_count; i++) {
        const struct value *v = target_attr(tg, names[i]);
        if (is_empty_key_value(t, names[i], v))
            return ddb_error_set(err, DDB_VALIDATION,
                                 "One or more parameter values are not valid. The AttributeValue "
                                 "for a key attribute cannot contain an empty %s value. Key: %s",
                                 empty_kind(v), names[i]);
    }
    if (!tg->item) return 0;
    for (size_t i = 0; i < t->def.gsi_count + t->def.lsi_count; i++) {
        const struct index_def *idx =
            i < t->def.gsi_count ? &t->def.gsis[i] : &t->def.lsis[i - t->def.gsi_count];
        for (size_t r = 0; r < 2; r++) {
            size_t count = r == 0 ? idx->key.hash_count : idx->key.range_count;
            for (size_t j = 0; j < count; j++) {
                const char *name = r == 0 ? idx->key.hash_names[j] : idx->key.range_names[j];
                const struct value *v = target_attr(tg, name);
                if (is_empty_key_value(t, name, v))
                    return ddb_error_set(
                        err, DDB_VALIDATION,
                        "One or more parameter values are not valid. A value specified for a "
                        "secondary index key is not supported. The AttributeValue for a key "
                        "attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
                        empty_kind(v), idx->name, name);
            }
        }
    }
    return 0;
}

/* The attributes that name an action's item: a Put's item, else its Key. */
static const struct value *op_key_attrs(const struct write_op *op)
{
    return op->kind == WRITE_PUT ? item_attrs(op->put_item) : &op->key;
}

/* Whether two requests name the same item of the same table, by the raw values
 * of the table's key attributes (the schema checks come later, per action). */
static bool same_target(const struct table *ta, const struct target *a, const struct table *tb,
                        const struct target *b)
{
    const struct key_schema *k = &ta->def.key;
    const char *names[2] = {k->hash_names[0], k->range_count ? k->range_names[0] : NULL};

    if (ta != tb) return false;
    for (size_t i = 0; i < 1 + k->range_count; i++) {
        const struct value *va = target_attr(a, names[i]), *vb = target_attr(b, names[i]);
        if (!va || !vb || !value_equal(va, vb)) return false;
    }
    return true;
}

/* Step 1 of the file comment over n targets, in that order; tables[i]
 * receives each target's table. Caller holds the lock. */
static int check_targets(struct db *db, const struct db_scope *scope, const struct target *targets,
                         size_t n, struct table **tables, struct ddb_error *err)
{
    assert_lock_held();
    for (size_t i = 0; i < n; i++) {
        if (db_require_table(db, scope, targets[i].table_name, &tables[i], err) != 0) return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (check_empty_keys(tables[i], &targets[i], err) != 0) return -1;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            if (same_target(tables[i], &targets[i], tables[j], &targets[j]))
                return ddb_error_set(err, DDB_VALIDATION,
                                     "Transaction request cannot include multiple operations on "
                                     "one item");
        }
    }
    return 0;
}

/* ---- cancellation ---- */

/* What one action of a transaction came to: its error (DDB_OK for "None") and,
 * for a failed condition with ALL_OLD, the item as it was. */
struct outcome {
    struct ddb_error err;
    struct item *item; /* owned reference, or NULL */
};

static void outcomes_free(struct outcome *outcomes, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ddb_error_clear(&outcomes[i].err);
        item_unref(outcomes[i].item);
    }
    free(outcomes);
}

/* Builds TransactionCanceledException from the per-action outcomes, taking
 * their messages and items into failure's reasons.
 * The codes are those of CancellationReason in the API reference
 * (API_TransactWriteItems.html, TransactionCanceledException). */
static int cancel(struct outcome *outcomes, size_t n, struct failure_details *failure,
                  struct ddb_error *err)
{
    size_t len = 0, pos;
    char *list;
    struct cancel_reason *reasons = xcalloc(n ? n : 1, sizeof *reasons);

    for (size_t i = 0; i < n; i++) {
        struct ddb_error *e = &outcomes[i].err;
        const char *code = "None";
        if (e->code == DDB_CONDITIONAL_CHECK_FAILED)
            code = "ConditionalCheckFailed";
        else if (e->code == DDB_DUPLICATE_ITEM)
            code = "DuplicateItem";
        else if (e->code == DDB_ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED)
            code = "ItemCollectionSizeLimitExceeded";
        else if (e->code == DDB_PROVISIONED_THROUGHPUT_EXCEEDED)
            code = "ProvisionedThroughputExceeded";
        else if (e->code == DDB_THROTTLING)
            code = "ThrottlingError";
        else if (e->code == DDB_TRANSACTION_CONFLICT)
            code = "TransactionConflict";
        else if (e->code != DDB_OK)
            code = "ValidationError";
        reasons[i].code = xstrdup(code);
        if (e->code != DDB_OK) {
            reasons[i].message = e->message;
            reasons[i].item = outcomes[i].item;
            e->message = NULL;
            outcomes[i].item = NULL;
        }
        len += strlen(code) + 2;
    }
    list = xmalloc(len + 1);
    pos = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(reasons[i].code);
        if (i) {
            memcpy(list + pos, ", ", 2);
            pos += 2;
        }
        memcpy(list + pos, reasons[i].code, l);
        pos += l;
    }
    list[pos] = '\0';
    ddb_error_set(err, DDB_TRANSACTION_CANCELED,
                  "Transaction cancelled, please refer cancellation reasons for specific reasons "
                  "[%s]",
                  list);
    free(list);
    failure->reasons = reasons;
    failure->reason_count = n;
    return -1;
}

/* A cancellation whose only reason is action `failed`'s schema error. */
static int cancel_at(size_t failed, struct ddb_error *schema_error, size_t n,
                     struct failure_details *failure, struct ddb_error *err)
{
    struct outcome *outcomes = xcalloc(n, sizeof *outcomes);

    ddb_error_move(&outcomes[failed].err, schema_error);
    cancel(outcomes, n, failure, err);
    outcomes_free(outcomes, n);
    return -1;
}

/*
 * --consistency aws: an action naming an item that another transaction still
 * holds (consistency.c) cancels the transaction with the TransactionConflict
 * reason at its position, every other position "None" (the Developer Guide's
 * "Transaction conflict handling"); each conflict is counted in its table's
 * report. keys[i] is action i's row key in tables[i]. Caller holds the lock.
 */
static int cancel_conflicts(struct db *db, const struct db_scope *scope,
                            struct table *const *tables, const struct row_key *const *keys,
                            size_t n, int64_t now_ms, struct failure_details *failure,
                            struct ddb_error *err)
{
    assert_lock_held();
    struct outcome *outcomes;
    bool any = false;

    if (!db->consistency_any || !consistency_in(db, scope)) return 0;
    outcomes = xcalloc(n ? n : 1, sizeof *outcomes);
    for (size_t i = 0; i < n; i++) {
        if (!consistency_is_held(db, scope, tables[i], keys[i], now_ms)) continue;
        ddb_error_set(&outcomes[i].err, DDB_TRANSACTION_CONFLICT,
                      "Transaction is ongoing for the item");
        atomic_fetch_add(&tables[i]->insight->conflicts, 1);
        any = true;
    }
    if (any) cancel(outcomes, n, failure, err);
    outcomes_free(outcomes, n);
    return any ? -1 : 0;
}

/* ---- TransactWriteItems ---- */

/*
 * A same-token retry reads what the transaction wrote: DynamoDB reports it as
 * a transactional read of each item at its current size (paritysuite
 * tests/tier2/transactions/transactWrite.test.ts, "reports write capacity on
 * the first call and read capacity on a same-token replay"). Caller holds the lock.
 */
static void charge_replay(struct db *db, const struct db_scope *scope, const struct write_op *ops,
                          size_t op_count, enum return_capacity mode,
                          struct consumed_capacity **caps, size_t *count)
{
    assert_lock_held();
    if (mode == RETURN_CAPACITY_NONE) return;
    for (size_t i = 0; i < op_count; i++) {
        struct table *t = db_find_table(db, scope, ops[i].table_name);
        const struct value *attrs = op_key_attrs(&ops[i]);
        struct ddb_error scratch = {0};
        struct consumed_capacity *c, unused;
        struct key_numbers nums;
        struct row_key key;
        struct item *found;
        int rc;

        if (!t) continue;
        rc = ops[i].kind == WRITE_PUT ? table_check_item(t, attrs, &scratch)
                                      : table_check_key(t, attrs, &scratch);
        ddb_error_clear(&scratch);
        if (rc != 0) continue; /* the table was recreated with another schema */
        table_row_key(t, attrs, &nums, &key);
        found = table_find(t, &key);
        c = capacity_for(caps, count, t, mode, &unused);
        capacity_add_table(
            c, TRANSACT_MULTIPLIER * capacity_read_units(found ? found->size_bytes : 0, true), 0);
    }
}

/*
 * A ConditionCheck costs what a transactional write of the checked item
 * would, billed as write units (paritysuite transactWrite.test.ts, "a
 * standalone ConditionCheck action costs 2 write capacity units"), and
 * changes nothing.
 */
static void charge_condition_check(struct prepared_write *pw, struct consumed_capacity *c)
{
    double wcu = TRANSACT_MULTIPLIER * capacity_write_units(pw->old ? pw->old->size_bytes : 0);
    capacity_add_table(c, 0, wcu);
    insight_write_item(pw->t->insight, pw->key.hash, pw->key.parts, pw->key.part_count, 0, false, 0,
                       wcu, pw->now_ms);
    if (pw->throttle) throttle_charge(pw->t, NULL, 0, wcu, pw->now_ms);
    prepared_write_clear(pw);
}

/* Counts one transaction of n actions (tables[i]: the table of action i) on
 * each table it touches, and whether it was canceled. Caller holds the
 * engine lock: with the tables' exclusively (or the catalog lock so), or
 * with them shared and each table's insight lock taken here (reads). */
static void count_transaction(struct table *const *tables, size_t n, enum insight_op op,
                              bool canceled, bool shared)
{
    assert_lock_held();
    assert(shared || lock_check_writing());
    for (size_t i = 0; i < n; i++) {
        struct insight_table *ins = tables[i]->insight;
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = tables[j] == tables[i];
        if (seen) continue;
        if (shared) insight_lock(ins);
        insight_count_request(ins, op);
        insight_count_sizes(
            op == INSIGHT_TRANSACT_GET_ITEMS ? &ins->transact_get : &ins->transact_write, n);
        if (canceled) ins->transactions_canceled++;
        if (shared) insight_unlock(ins);
    }
}

int db_transact_write(struct db *db, const struct db_scope *scope, const struct write_op *ops,
                      size_t op_count, const char *client_token, const char *request_digest,
                      enum return_capacity return_capacity, struct consumed_capacity **capacities,
                      size_t *capacity_count, struct failure_details *failure,
                      struct ddb_error *err)
{
    size_t n = op_count ? op_count : 1;
    struct prepared_write *pws = xcalloc(n, sizeof *pws);
    struct key_numbers *nums = xmalloc(sizeof *nums * n); /* pws[i].key's numbers */
    struct outcome *outcomes = xcalloc(n, sizeof *outcomes);
    struct table **tables = xcalloc(n, sizeof *tables);
    struct target *targets = xcalloc(n, sizeof *targets);
    bool any_failed = false;
    int64_t now_ms, hold_until_ms = 0;
    int rc = -1;

    assert(!client_token || request_digest);
    *capacities = NULL;
    *capacity_count = 0;
    for (size_t i = 0; i < op_count; i++) {
        if (ops[i].kind == WRITE_PUT &&
            item_check_size(ops[i].put_item->size_bytes, ITEM_SIZE_GIVEN, err) != 0)
            goto out_unlocked;
    }
    if (client_token) {
        /* Client tokens are shared by every table of the account: a
         * transaction that has one takes the catalog lock exclusively. */
        db_write_lock(db);
        now_ms = db_now_ms(db);
        db_forget_tokens(db, NULL, now_ms);
    } else {
        const char **names = xcalloc(n, sizeof *names);
        for (size_t i = 0; i < op_count; i++)
            names[i] = ops[i].table_name;
        db_lock_tables(db, scope, names, op_count, LOCK_HOLD_EXCLUSIVE);
        free(names);
        now_ms = db_now_ms(db);
    }
    if (client_token) {
        struct client_token *ct = find_token(db, scope, client_token);
        if (ct && strcmp(ct->digest, request_digest) != 0) {
            /* No recorded AWS answer gives this exception's text, so it is
             * not pinned (conformance checks the type only): review when one
             * is found. */
            ddb_error_set(err, DDB_IDEMPOTENT_PARAMETER_MISMATCH,
                          "Request parameters do not match the parameters of the previous request "
                          "with the same client token");
            goto out;
        }
        if (ct && db->consistency_any && consistency_token_held(db, scope, client_token, now_ms)) {
            /* --consistency aws: the first is still holding its items (consistency.c);
             * the text is the API reference's for this exception. */
            ddb_error_set(err, DDB_TRANSACTION_IN_PROGRESS,
                          "The transaction with the given request token is already in "
                          "progress.");
            goto out;
        }
        if (ct) {
            /* A retry of a transaction that succeeded: succeed again without writing. */
            charge_replay(db, scope, ops, op_count, return_capacity, capacities, capacity_count);
            rc = 0;
            goto out;
        }
    }
    for (size_t i = 0; i < op_count; i++)
        targets[i] = ops[i].kind == WRITE_PUT
                         ? (struct target){ops[i].table_name, NULL, ops[i].put_item}
                         : (struct target){ops[i].table_name, &ops[i].key, NULL};
    if (check_targets(db, scope, targets, op_count, tables, err) != 0) goto out;
    for (size_t i = 0; i < op_count; i++) {
        struct ddb_error schema_error = {0};
        if (write_prepare(db, scope, &ops[i], &nums[i], &pws[i], &schema_error) != 0) {
            if (schema_error.code != DDB_VALIDATION) {
                ddb_error_move(err, &schema_error);
                goto out;
            }
            cancel_at(i, &schema_error, op_count, failure, err);
            count_transaction(tables, op_count, INSIGHT_TRANSACT_WRITE_ITEMS, true, false);
            goto out;
        }
    }
    if (db->consistency_any) {
        const struct row_key **keys = xcalloc(n, sizeof *keys);
        for (size_t i = 0; i < op_count; i++)
            keys[i] = &pws[i].key;
        rc = cancel_conflicts(db, scope, tables, keys, op_count, now_ms, failure, err);
        free(keys);
        if (rc != 0) {
            count_transaction(tables, op_count, INSIGHT_TRANSACT_WRITE_ITEMS, true, false);
            goto out;
        }
        rc = -1;
    }
    for (size_t i = 0; i < op_count; i++) {
        if (write_evaluate(&pws[i], &outcomes[i].err) != 0) {
            any_failed = true;
        } else if (!pws[i].matched && ops[i].fails_as_duplicate) {
            ddb_error_set(&outcomes[i].err, DDB_DUPLICATE_ITEM,
                          "Duplicate primary key exists in table");
            any_failed = true;
        } else if (!pws[i].matched) {
            ddb_error_set(&outcomes[i].err, DDB_CONDITIONAL_CHECK_FAILED,
                          "The conditional request failed");
            if (ops[i].return_old_on_condition_failure) outcomes[i].item = item_ref(pws[i].old);
            any_failed = true;
        }
    }
    /* --throughput-model aws: "insufficient provisioned capacity for the
     * transaction to be completed" cancels it, each refused action with its
     * reason (API_TransactWriteItems.html, TransactionCanceledException). */
    if (!any_failed) {
        for (size_t i = 0; i < op_count; i++) {
            if (write_admit(&pws[i], &outcomes[i].err) != 0) any_failed = true;
        }
    }
    count_transaction(tables, op_count, INSIGHT_TRANSACT_WRITE_ITEMS, any_failed, false);
    if (any_failed) {
        cancel(outcomes, op_count, failure, err);
        goto out;
    }
    for (size_t i = 0; i < op_count; i++) {
        struct consumed_capacity scratch;
        struct consumed_capacity *c =
            capacity_for(capacities, capacity_count, pws[i].t, return_capacity, &scratch);
        if (ops[i].kind == WRITE_CONDITION_CHECK)
            charge_condition_check(&pws[i], c);
        else
            write_apply(&pws[i], return_capacity, TRANSACT_MULTIPLIER, c);
    }
    if (client_token) remember_token(db, scope, client_token, request_digest, now_ms);
    if (db->consistency_any) {
        const struct consistency_settings *cs = consistency_in(db, scope);
        if (cs)
            hold_until_ms =
                consistency_hold(db, scope, cs, tables, ops, op_count, client_token, now_ms);
    }
    rc = 0;
out:
    db_unlock(db);
    if (hold_until_ms) consistency_wait_hold(db, hold_until_ms);
out_unlocked:
    for (size_t i = 0; i < op_count; i++)
        prepared_write_clear(&pws[i]);
    free(pws);
    free(nums);
    outcomes_free(outcomes, op_count);
    free(tables);
    free(targets);
    if (rc != 0) capacities_free(capacities, capacity_count);
    return rc;
}

/* ---- TransactGetItems ---- */

/*
 * --throughput-model aws: every read must be admitted by its table's read
 * capacity and its partition key's, as a GetItem is (throttle.h); one that is
 * not cancels the transaction with a ProvisionedThroughputExceeded (or
 * ThrottlingError) reason at its place, as TransactWriteItems does. Nothing
 * is charged for a cancelled transaction. Caller holds the lock.
 */
static int admit_gets(struct table **tables, const struct get_op *gets, size_t n, int64_t now_ms,
                      struct failure_details *failure, struct ddb_error *err)
{
    assert_lock_held();
    struct outcome *outcomes = xcalloc(n ? n : 1, sizeof *outcomes);
    bool refused = false;

    for (size_t i = 0; i < n; i++) {
        struct key_numbers nums;
        struct row_key key;
        table_row_key(tables[i], &gets[i].key, &nums, &key);
        if (throttle_admit_read(tables[i], NULL, key.hash, &key.parts[0], 1, now_ms,
                                &outcomes[i].err) != 0)
            refused = true;
    }
    if (refused) cancel(outcomes, n, failure, err);
    outcomes_free(outcomes, n);
    return refused ? -1 : 0;
}

int db_transact_get(struct db *db, const struct db_scope *scope, const struct get_op *gets,
                    size_t get_count, enum return_capacity return_capacity, struct item **items,
                    struct consumed_capacity **capacities, size_t *capacity_count,
                    struct failure_details *failure, struct ddb_error *err)
{
    size_t n = get_count ? get_count : 1;
    struct table **tables = xcalloc(n, sizeof *tables);
    struct target *targets = xcalloc(n, sizeof *targets);
    int64_t now_ms;
    int rc = -1;

    *capacities = NULL;
    *capacity_count = 0;
    for (size_t i = 0; i < get_count; i++)
        items[i] = NULL;
    {
        const char **names = xcalloc(n, sizeof *names);
        for (size_t i = 0; i < get_count; i++)
            names[i] = gets[i].table_name;
        db_lock_tables(db, scope, names, get_count, LOCK_HOLD_SHARED);
        free(names);
    }
    for (size_t i = 0; i < get_count; i++)
        targets[i] = (struct target){gets[i].table_name, &gets[i].key, NULL};
    if (check_targets(db, scope, targets, get_count, tables, err) != 0) goto out;
    /* A Key that does not fit the schema cancels the transaction with a
     * ValidationError reason (paritysuite transactGetItems.test.ts). */
    for (size_t i = 0; i < get_count; i++) {
        struct ddb_error schema_error = {0};
        if (table_check_key(tables[i], &gets[i].key, &schema_error) != 0) {
            cancel_at(i, &schema_error, get_count, failure, err);
            count_transaction(tables, get_count, INSIGHT_TRANSACT_GET_ITEMS, true, true);
            goto out;
        }
    }
    now_ms = db_now_ms(db);
    if (db->consistency_any) {
        struct row_key *rks = xcalloc(n, sizeof *rks);
        struct key_numbers *nums = xmalloc(sizeof *nums * n);
        const struct row_key **keys = xcalloc(n, sizeof *keys);
        for (size_t i = 0; i < get_count; i++) {
            table_row_key(tables[i], &gets[i].key, &nums[i], &rks[i]);
            keys[i] = &rks[i];
        }
        rc = cancel_conflicts(db, scope, tables, keys, get_count, now_ms, failure, err);
        free(keys);
        free(rks);
        free(nums);
        if (rc != 0) {
            count_transaction(tables, get_count, INSIGHT_TRANSACT_GET_ITEMS, true, true);
            goto out;
        }
        rc = -1;
    }
    if (db->aws_throughput && admit_gets(tables, gets, get_count, now_ms, failure, err) != 0) {
        count_transaction(tables, get_count, INSIGHT_TRANSACT_GET_ITEMS, true, true);
        goto out;
    }
    count_transaction(tables, get_count, INSIGHT_TRANSACT_GET_ITEMS, false, true);
    for (size_t i = 0; i < get_count; i++) {
        struct key_numbers nums;
        struct row_key key;
        struct item *found;
        struct consumed_capacity *c, scratch;
        double units;
        table_row_key(tables[i], &gets[i].key, &nums, &key);
        found = table_find(tables[i], &key);
        items[i] = item_ref(found);
        c = capacity_for(capacities, capacity_count, tables[i], return_capacity, &scratch);
        /* Transactional reads cost twice a strongly consistent read, a missing item too. */
        units = TRANSACT_MULTIPLIER * capacity_read_units(found ? found->size_bytes : 0, true);
        capacity_add_table(c, units, 0);
        if (db->aws_throughput) throttle_charge(tables[i], NULL, units, 0, now_ms);
        insight_lock(tables[i]->insight);
        insight_read_item(tables[i]->insight, key.hash, &key.parts[0], units, found != NULL,
                          now_ms);
        insight_unlock(tables[i]->insight);
    }
    rc = 0;
out:
    db_unlock(db);
    free(tables);
    free(targets);
    if (rc != 0) {
        for (size_t i = 0; i < get_count; i++) {
            item_unref(items[i]);
            items[i] = NULL;
        }
        capacities_free(capacities, capacity_count);
    }
    return rc;
}
