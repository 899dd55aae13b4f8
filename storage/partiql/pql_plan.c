/*
 * pql_plan.c - turns a parsed PartiQL statement into what DynamoDB runs.
 *
 * A SELECT becomes Query(s) when its WHERE pins the partition key of the
 * table or the named index - a top-level conjunct `pk = v` (one Query) or
 * `pk IN [v1, v2, ...]` (one Query per value) - and a Scan otherwise, as
 * DynamoDB plans it (developerguide/ql-reference.select.html: "a full table
 * scan" unless the WHERE has an equality or IN on the partition key). A
 * conjunct on the sort key (=, <, <=, >, >=, BETWEEN, begins_with) narrows
 * the Query's key range. The whole WHERE is also the read's filter, so every
 * item returned satisfies it whatever part served as the key.
 *
 * A write needs the full primary key as top-level `key = value` conjuncts;
 * the other conjuncts become its condition, with what the statement itself
 * implies (ql-reference.insert/update/delete.html): INSERT fails when the
 * item exists (DuplicateItemException), UPDATE when it does not
 * (ConditionalCheckFailedException), DELETE of a missing item succeeds and
 * deletes nothing.
 *
 * Every expression is generated as text with #names and :values by
 * pql_emit.c - the statement's identifiers and literals never meet the
 * expression lexer - and parsed by storage/expr with one expr_ctx over the
 * plan's names and values.
 *
 * Ownership: the plan owns its names and values, the trees that borrow them,
 * the key and the item. Nothing here locks or reads a table.
 */
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/partiql/pql.h"
#include "storage/partiql/pql_emit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void pql_plan_init(struct pql_plan *p)
{
    memset(p, 0, sizeof *p);
    value_init_map(&p->names);
    value_init_map(&p->values);
    value_init_null(&p->key);
    p->scan_forward = true;
}

void pql_plan_clear(struct pql_plan *p)
{
    expr_free(p->projection);
    expr_free(p->filter);
    expr_free(p->condition);
    expr_free(p->update);
    for (size_t i = 0; i < p->query_count; i++) {
        expr_free(p->queries[i].key_condition);
        value_clear(&p->queries[i].hash_value);
    }
    free(p->queries);
    if (p->ctx_ready) expr_ctx_clear(&p->ctx);
    value_clear(&p->names);
    value_clear(&p->values);
    value_clear(&p->key);
    item_unref(p->put_item);
    free(p->table);
    free(p->index);
    memset(p, 0, sizeof *p);
}

/* ---- keys ---- */

/* The top-level conjuncts of a WHERE (the WHERE itself when it is no AND). */
static void conjuncts_of(struct pql_node *const *slot, const struct pql_node ***out, size_t *count)
{
    const struct pql_node *n = *slot;
    *out = NULL;
    *count = 0;
    if (!n) return;
    if (n->kind == PN_OP && n->op == PO_AND) {
        *out = (const struct pql_node **) n->args;
        *count = n->argc;
    } else {
        *out = (const struct pql_node **) slot;
        *count = 1;
    }
}

static void conjuncts(const struct pql_stmt *s, const struct pql_node ***out, size_t *count)
{
    conjuncts_of(&s->where, out, count);
}

/* True when n is a one-step path naming attribute name. */
static bool is_attr(const struct pql_node *n, const char *name)
{
    return n->kind == PN_PATH && n->step_count == 1 && !n->steps[0].is_index &&
           n->steps[0].name_len == strlen(name) &&
           memcmp(n->steps[0].name, name, n->steps[0].name_len) == 0;
}

/* For `attr op value` or `value op attr`: the value side, and the operator
 * as if attr were on the left. */
static const struct pql_node *key_operand(const struct pql_node *c, const char *attr,
                                          enum pql_op *op)
{
    static const enum pql_op flipped[] = {[PO_EQ] = PO_EQ, [PO_NE] = PO_NE, [PO_LT] = PO_GT,
                                          [PO_LE] = PO_GE, [PO_GT] = PO_LT, [PO_GE] = PO_LE};
    if (c->kind != PN_OP || c->op > PO_GE || c->op == PO_NE) return NULL;
    if (is_attr(c->args[0], attr) && pql_is_value_node(c->args[1])) {
        *op = c->op;
        return c->args[1];
    }
    if (is_attr(c->args[1], attr) && pql_is_value_node(c->args[0])) {
        *op = flipped[c->op];
        return c->args[0];
    }
    return NULL;
}

/* A key value usable as such: the attribute's type, and not empty. */
static bool key_value_fits(const struct table_def *def, const char *attr, const struct value *v)
{
    enum value_type t;
    if (!table_def_attr_type(def, attr, &t) || v->type != t) return false;
    return v->type == VALUE_N || v->u.str.len > 0;
}

/*
 * The full primary key of a write (or a transaction's SELECT/EXISTS) from the
 * WHERE's top-level `key = value` conjuncts; the rest are appended to cond
 * (" AND "-joined). used[i] marks the key conjuncts.
 */
static int extract_key(struct planner *pl, const struct table_def *def, struct text_buf *cond,
                       const char *missing_message)
{
    const struct pql_node **cs;
    size_t count, rest = 0;
    bool *used;
    const struct key_schema *k = &def->key;
    int rc = -1;

    conjuncts(pl->s, &cs, &count);
    used = xcalloc(count ? count : 1, sizeof *used);
    value_init_map(&pl->plan->key);
    for (size_t a = 0; a < k->hash_count + k->range_count; a++) {
        const char *attr = a < k->hash_count ? k->hash_names[a] : k->range_names[a - k->hash_count];
        bool found = false;
        for (size_t i = 0; i < count; i++) {
            enum pql_op op;
            const struct pql_node *v = key_operand(cs[i], attr, &op);
            struct value kv;
            if (!v || op != PO_EQ) continue;
            if (found) {
                ddb_error_set(pl->err, DDB_VALIDATION,
                              "Multiple conditions on same key %s. Only single item "
                              "Update/Insert/Delete are supported",
                              attr);
                goto out;
            }
            if (pql_eval_value(pl, v, &kv, 0) != 0) goto out;
            value_map_set(&pl->plan->key, attr, strlen(attr), &kv);
            used[i] = found = true;
        }
        if (!found) {
            ddb_error_set(pl->err, DDB_VALIDATION, "%s", missing_message);
            goto out;
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (used[i]) continue;
        text_buf_puts(cond, rest++ ? " AND " : "(");
        if (pql_emit_cond(pl, cond, cs[i], 1) != 0) goto out;
    }
    if (rest) text_buf_puts(cond, ")");
    rc = 0;
out:
    free(used);
    return rc;
}

/* ---- SELECT ---- */

/* The key schema a SELECT reads: the table's or its named index's. */
static int source_keys(struct planner *pl, const struct table_def *def, const struct key_schema **k)
{
    const struct index_def *ix;
    *k = &def->key;
    if (!pl->s->index) return 0;
    ix = table_def_find_index(def, pl->s->index);
    /* Vector indexes are not accessible through PartiQL (spec-24 2.7, dynoxide's capture). */
    if (!ix && table_def_find_vector(def, pl->s->index))
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "Scan operation not supported on this index type");
    if (!ix)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "The table does not have the specified index: %s", pl->s->index);
    *k = &ix->key;
    pl->plan->index_is_global = ix->is_global;
    return 0;
}

struct hash_pin {
    const struct pql_node *conjunct;
    struct value *values; /* owned; one Query each */
    size_t count;
    bool from_or; /* found by find_or_pin: no sort-key range applies */
};

static void hash_pin_clear(struct hash_pin *h)
{
    for (size_t i = 0; i < h->count; i++)
        value_clear(&h->values[i]);
    free(h->values);
    memset(h, 0, sizeof *h);
}

/* The first conjunct `hash = v` or `hash IN [...]` whose values fit the key. */
static int find_hash_pin(struct planner *pl, const struct table_def *def, const char *hash,
                         const struct pql_node **cs, size_t count, struct hash_pin *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < count && !out->count; i++) {
        const struct pql_node *c = cs[i];
        enum pql_op op;
        const struct pql_node *v = key_operand(c, hash, &op);
        if (v && op == PO_EQ) {
            struct value kv;
            if (pql_eval_value(pl, v, &kv, 0) != 0) return -1;
            if (!key_value_fits(def, hash, &kv)) {
                value_clear(&kv);
                continue;
            }
            out->values = xmalloc(sizeof *out->values);
            value_move(&out->values[0], &kv);
            out->count = 1;
            out->conjunct = c;
        } else if (c->kind == PN_OP && c->op == PO_IN && !c->negated && is_attr(c->args[0], hash)) {
            for (size_t a = 1; a < c->argc; a++)
                if (!pql_is_value_node(c->args[a])) goto next;
            out->values = xcalloc(c->argc, sizeof *out->values);
            for (size_t a = 1; a < c->argc; a++) {
                struct value kv;
                bool dup = false;
                if (pql_eval_value(pl, c->args[a], &kv, 0) != 0) {
                    hash_pin_clear(out);
                    return -1;
                }
                for (size_t d = 0; d < out->count; d++)
                    dup = dup || value_equal(&out->values[d], &kv);
                if (dup || !key_value_fits(def, hash, &kv)) {
                    value_clear(&kv);
                    continue;
                }
                value_move(&out->values[out->count++], &kv);
            }
            out->conjunct = c;
            if (out->count == 0) {
                /* No candidate can match a key: the IN is false for every item. */
                free(out->values);
                out->values = NULL;
            }
        }
    next:;
    }
    return 0;
}

/*
 * `A OR B OR ...` where every disjunct pins the partition key (ql-reference.
 * select.html: "WHERE OrderID = 100 or OrderID = 200" is no full table scan):
 * the union of their values, one Query each. out is left empty otherwise.
 */
static int find_or_pin(struct planner *pl, const struct table_def *def, const char *hash,
                       struct hash_pin *out)
{
    const struct pql_node *w = pl->s->where;

    memset(out, 0, sizeof *out);
    if (!w || w->kind != PN_OP || w->op != PO_OR) return 0;
    for (size_t i = 0; i < w->argc; i++) {
        const struct pql_node **cs;
        size_t count;
        struct hash_pin one;
        conjuncts_of(&w->args[i], &cs, &count);
        if (find_hash_pin(pl, def, hash, cs, count, &one) != 0) {
            hash_pin_clear(out);
            return -1;
        }
        if (!one.conjunct) {
            /* One disjunct reads beyond the key: the whole WHERE is a Scan. */
            hash_pin_clear(out);
            return 0;
        }
        out->values = xrealloc(out->values, (out->count + one.count + 1) * sizeof *out->values);
        for (size_t v = 0; v < one.count; v++) {
            bool dup = false;
            for (size_t d = 0; d < out->count; d++)
                dup = dup || value_equal(&out->values[d], &one.values[v]);
            if (!dup) value_copy(&out->values[out->count++], &one.values[v]);
        }
        hash_pin_clear(&one);
    }
    out->conjunct = w;
    out->from_or = true;
    return 0;
}

/* The first conjunct usable as the Query's sort-key range: " AND <range>". */
static int find_range(struct planner *pl, const struct table_def *def, const char *range,
                      const struct pql_node **cs, size_t count, struct text_buf *out)
{
    for (size_t i = 0; i < count; i++) {
        const struct pql_node *c = cs[i];
        enum pql_op op;
        const struct pql_node *v = key_operand(c, range, &op);
        struct value a, b;
        if (v) {
            if (pql_eval_value(pl, v, &a, 0) != 0) return -1;
            if (!key_value_fits(def, range, &a)) {
                value_clear(&a);
                continue;
            }
            text_buf_puts(out, " AND ");
            pql_emit_name(pl, out, range, strlen(range));
            text_buf_puts(out, pql_cmp_text(op));
            pql_emit_value(pl, out, &a);
            return 0;
        }
        if (c->kind == PN_OP && c->op == PO_BETWEEN && !c->negated && is_attr(c->args[0], range) &&
            pql_is_value_node(c->args[1]) && pql_is_value_node(c->args[2])) {
            if (pql_eval_value(pl, c->args[1], &a, 0) != 0) return -1;
            if (pql_eval_value(pl, c->args[2], &b, 0) != 0) {
                value_clear(&a);
                return -1;
            }
            if (!key_value_fits(def, range, &a) || !key_value_fits(def, range, &b) ||
                value_compare_scalar(&a, &b) > 0) {
                /* An empty or reversed range stays in the filter only. */
                value_clear(&a);
                value_clear(&b);
                continue;
            }
            text_buf_puts(out, " AND ");
            pql_emit_name(pl, out, range, strlen(range));
            text_buf_puts(out, " BETWEEN ");
            pql_emit_value(pl, out, &a);
            text_buf_puts(out, " AND ");
            pql_emit_value(pl, out, &b);
            return 0;
        }
        if (pql_is_call(c, "begins_with") && c->argc == 2 && is_attr(c->args[0], range) &&
            pql_is_value_node(c->args[1])) {
            if (pql_eval_value(pl, c->args[1], &a, 0) != 0) return -1;
            if (a.type == VALUE_N || !key_value_fits(def, range, &a)) {
                value_clear(&a);
                continue;
            }
            text_buf_puts(out, " AND begins_with(");
            pql_emit_name(pl, out, range, strlen(range));
            text_buf_puts(out, ", ");
            pql_emit_value(pl, out, &a);
            text_buf_puts(out, ")");
            return 0;
        }
    }
    return 0;
}

/* ORDER BY: key attributes of the source only; the sort key's direction
 * decides ScanIndexForward, the partition key's the order of the Queries. */
static int plan_order(struct planner *pl, const struct key_schema *k, bool pinned,
                      size_t hash_values, bool *hash_desc, bool *hash_ordered)
{
    const struct pql_stmt *s = pl->s;
    *hash_desc = false;
    *hash_ordered = false;
    if (s->order_count == 0) return 0;
    if (!s->where)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "Must have WHERE clause in the statement when using ORDER BY clause.");
    if (!pinned)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "Must have at least one non-optional hash key condition in WHERE "
                             "clause when using ORDER BY clause.");
    for (size_t i = 0; i < s->order_count; i++) {
        const struct pql_node *p = s->order[i].path;
        bool ok = false;
        if (k->hash_count == 1 && is_attr(p, k->hash_names[0])) {
            ok = *hash_ordered = true;
            *hash_desc = s->order[i].desc;
        }
        if (k->range_count == 1 && is_attr(p, k->range_names[0])) {
            ok = true;
            pl->plan->scan_forward = !s->order[i].desc;
        }
        if (!ok) {
            struct text_buf t;
            text_buf_init(&t);
            for (size_t j = 0; j < p->step_count; j++) {
                if (p->steps[j].is_index)
                    text_buf_printf(&t, "[%u]", (unsigned) p->steps[j].index);
                else
                    text_buf_printf(&t, "%s%.*s", j ? "." : "", (int) p->steps[j].name_len,
                                    p->steps[j].name);
            }
            ddb_error_set(pl->err, DDB_VALIDATION,
                          "Variable reference %s in ORDER BY clause must be part of the primary "
                          "key",
                          t.data ? t.data : "");
            text_buf_clear(&t);
            return -1;
        }
    }
    if (hash_values > 1 && !*hash_ordered)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "Must have hash key in ORDER BY clause when more than one hash key "
                             "condition specified in WHERE clause.");
    return 0;
}

static int cmp_values(const void *a, const void *b)
{
    return value_compare_scalar(a, b);
}

/* The texts of a SELECT: projection, filter and the Queries' key conditions. */
struct select_texts {
    struct text_buf projection;
    struct text_buf filter;
    struct text_buf *keys; /* one per Query */
    size_t key_count;
};

static int plan_select(struct planner *pl, const struct table_def *def, struct select_texts *t)
{
    const struct pql_stmt *s = pl->s;
    const struct key_schema *k;
    const struct pql_node **cs;
    size_t count;
    struct hash_pin pin;
    struct text_buf range;
    bool hash_desc, hash_ordered;
    int rc = -1;

    if (source_keys(pl, def, &k) != 0) return -1;
    for (size_t i = 0; i < s->projection_count; i++) {
        if (i) text_buf_puts(&t->projection, ", ");
        pql_emit_path(pl, &t->projection, s->projection[i]);
    }
    if (s->where && pql_emit_cond(pl, &t->filter, s->where, 0) != 0) return -1;
    conjuncts(s, &cs, &count);
    memset(&pin, 0, sizeof pin);
    text_buf_init(&range);
    /* Multi-attribute GSI keys are left to the Scan: their Query needs every
     * partition attribute pinned, which PartiQL users rarely write. */
    if (k->hash_count == 1 && find_hash_pin(pl, def, k->hash_names[0], cs, count, &pin) != 0)
        goto out;
    if (k->hash_count == 1 && !pin.conjunct && find_or_pin(pl, def, k->hash_names[0], &pin) != 0)
        goto out;
    if (plan_order(pl, k, pin.conjunct != NULL, pin.count, &hash_desc, &hash_ordered) != 0)
        goto out;
    if (!pin.conjunct) {
        rc = 0;
        goto out;
    }
    /* A range from one conjunct narrows every Query; an OR's disjuncts each
     * have their own, so the OR's Queries read whole partitions. */
    if (k->range_count == 1 && !pin.from_or &&
        find_range(pl, def, k->range_names[0], cs, count, &range) != 0)
        goto out;
    if (hash_ordered) {
        qsort(pin.values, pin.count, sizeof *pin.values, cmp_values);
        for (size_t i = 0; hash_desc && i < pin.count / 2; i++) {
            struct value tmp = pin.values[i];
            pin.values[i] = pin.values[pin.count - 1 - i];
            pin.values[pin.count - 1 - i] = tmp;
        }
    }
    /* An IN none of whose candidates has the key's type pins nothing: that
     * stays a Scan (query_count 0), whose filter matches no item. */
    pl->plan->queries = xcalloc(pin.count ? pin.count : 1, sizeof *pl->plan->queries);
    t->keys = xcalloc(pin.count ? pin.count : 1, sizeof *t->keys);
    for (size_t i = 0; i < pin.count; i++) {
        struct value v;
        text_buf_init(&t->keys[i]);
        pql_emit_name(pl, &t->keys[i], k->hash_names[0], strlen(k->hash_names[0]));
        text_buf_puts(&t->keys[i], " = ");
        value_copy(&v, &pin.values[i]);
        pql_emit_value(pl, &t->keys[i], &v);
        if (range.data) text_buf_add(&t->keys[i], range.data, range.len);
        value_copy(&pl->plan->queries[i].hash_value, &pin.values[i]);
    }
    t->key_count = pin.count;
    pl->plan->query_count = pin.count;
    rc = 0;
out:
    text_buf_clear(&range);
    hash_pin_clear(&pin);
    return rc;
}

/* ---- writes ---- */

#define INCOMPLETE_KEY "Where clause does not contain a mandatory equality on all key attributes"
#define EXISTS_SHAPE   "EXISTS() must contain a single item read with additional condition"

/* The sections of an update: SET, ADD (set_add), DELETE (set_delete), REMOVE. */
struct update_texts {
    struct text_buf set, add, del, remove;
};

static bool same_path(const struct pql_node *a, const struct pql_node *b)
{
    if (a->kind != PN_PATH || b->kind != PN_PATH || a->step_count != b->step_count) return false;
    for (size_t i = 0; i < a->step_count; i++) {
        const struct pql_step *x = &a->steps[i], *y = &b->steps[i];
        if (x->is_index != y->is_index) return false;
        if (x->is_index ? x->index != y->index
                        : x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len) != 0)
            return false;
    }
    return true;
}

/* SET path = set_add(path, <<...>>) / set_delete(...): ADD / DELETE actions. */
static int emit_set_op(struct planner *pl, struct update_texts *u, const struct pql_assign *a,
                       const char *what)
{
    const struct pql_node *call = a->value;
    struct text_buf *b = strcmp(what, "ADD") == 0 ? &u->add : &u->del;
    struct value v;

    char at[64];

    /* Positioned as AWS positions them: the call, or its first argument for
     * the second argument's type (paritysuite tier3 partiqlFunctions). */
    pql_position(pl->s, call->pos, call->len, at, sizeof at);
    if (call->argc != 2)
        return ddb_error_set(pl->err, DDB_VALIDATION, "SET_%s must have exactly two arguments%s",
                             what, at);
    if (!same_path(call->args[0], a->path))
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "The first argument to SET_%s must equal the assignment value%s", what,
                             at);
    pql_position(pl->s, call->args[0]->pos, call->args[0]->len, at, sizeof at);
    if (!pql_is_value_node(call->args[1]))
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "The second argument to SET_%s must be a value with type SET%s", what,
                             at);
    if (pql_eval_value(pl, call->args[1], &v, 0) != 0) return -1;
    if (!value_is_set(&v)) {
        value_clear(&v);
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "The second argument to SET_%s must be a value with type SET%s", what,
                             at);
    }
    if (b->len) text_buf_puts(b, ", ");
    pql_emit_path(pl, b, a->path);
    text_buf_puts(b, " ");
    pql_emit_value(pl, b, &v);
    return 0;
}

static int emit_update(struct planner *pl, struct update_texts *u)
{
    for (size_t i = 0; i < pl->s->assign_count; i++) {
        const struct pql_assign *a = &pl->s->assigns[i];
        if (a->kind == PA_REMOVE) {
            if (u->remove.len) text_buf_puts(&u->remove, ", ");
            pql_emit_path(pl, &u->remove, a->path);
            continue;
        }
        if (pql_is_call(a->value, "set_add")) {
            if (emit_set_op(pl, u, a, "ADD") != 0) return -1;
            continue;
        }
        if (pql_is_call(a->value, "set_delete")) {
            if (emit_set_op(pl, u, a, "DELETE") != 0) return -1;
            continue;
        }
        if (u->set.len) text_buf_puts(&u->set, ", ");
        pql_emit_path(pl, &u->set, a->path);
        text_buf_puts(&u->set, " = ");
        if (pql_emit_operand(pl, &u->set, a->value, true, 0) != 0) return -1;
    }
    return 0;
}

static void join_update(struct update_texts *u, struct text_buf *out)
{
    const struct {
        const char *kw;
        struct text_buf *b;
    } parts[] = {
        {"SET ", &u->set}, {"ADD ", &u->add}, {"DELETE ", &u->del}, {"REMOVE ", &u->remove}};
    for (size_t i = 0; i < 4; i++) {
        if (!parts[i].b->len) continue;
        if (out->len) text_buf_puts(out, " ");
        text_buf_puts(out, parts[i].kw);
        text_buf_add(out, parts[i].b->data, parts[i].b->len);
    }
}

/* The existence test a write's condition starts with, on the partition key. */
static void emit_exists(struct planner *pl, struct text_buf *b, const struct table_def *def,
                        bool exists)
{
    text_buf_puts(b, exists ? "attribute_exists(" : "attribute_not_exists(");
    pql_emit_name(pl, b, def->key.hash_names[0], strlen(def->key.hash_names[0]));
    text_buf_puts(b, ")");
}

/* Parses a generated expression. What the expression checker refuses is
 * answered without its "Invalid <param>: " prefix, as AWS answers PartiQL
 * ("Operator or function requires a document path; ...", paritysuite tier3
 * partiqlFunctions): the statement has no such parameter. */
static int parse_text(struct pql_plan *p, enum expr_kind kind, const char *param,
                      const struct text_buf *b, struct expr **out, struct ddb_error *err)
{
    char prefix[64];
    size_t n;
    if (!b->len) return 0;
    if (expr_parse(kind, param, b->data, b->len, &p->ctx, out, err) == 0) return 0;
    n = (size_t) snprintf(prefix, sizeof prefix, "Invalid %s: ", param);
    if (err->message && strncmp(err->message, prefix, n) == 0)
        memmove(err->message, err->message + n, strlen(err->message + n) + 1);
    return -1;
}

static void ready_ctx(struct pql_plan *p)
{
    expr_ctx_init(&p->ctx, &p->names, &p->values);
    p->ctx_ready = true;
}

static int plan_write(struct planner *pl, const struct table_def *def)
{
    const struct pql_stmt *s = pl->s;
    struct pql_plan *p = pl->plan;
    struct text_buf cond, rest, update;
    struct update_texts u;
    int rc = -1;

    text_buf_init(&cond);
    text_buf_init(&rest);
    text_buf_init(&update);
    memset(&u, 0, sizeof u);
    if (s->index && s->kind != PQL_EXISTS) {
        ddb_error_set(pl->err, DDB_VALIDATION, "This operation is not supported on an index");
        goto out;
    }
    if (s->kind == PQL_EXISTS && s->index) {
        ddb_error_set(pl->err, DDB_VALIDATION,
                      "Operations on indices are not supported in transactions");
        goto out;
    }
    if (s->kind == PQL_INSERT) {
        struct value attrs;
        if (s->value->kind != PN_TUPLE && s->value->kind != PN_PARAM) {
            ddb_error_set(pl->err, DDB_VALIDATION,
                          "Unsupported format in item expression. Please use struct format {...} "
                          "to express item values for insert statement.");
            goto out;
        }
        if (pql_eval_value(pl, s->value, &attrs, 0) != 0) goto out;
        if (attrs.type != VALUE_M) {
            value_clear(&attrs);
            ddb_error_set(pl->err, DDB_VALIDATION,
                          "Unsupported format in item expression. Please use struct format {...} "
                          "to express item values for insert statement.");
            goto out;
        }
        p->put_item = item_new(&attrs);
        emit_exists(pl, &cond, def, false);
        ready_ctx(p);
        rc = parse_text(p, EXPR_CONDITION, "ConditionExpression", &cond, &p->condition, pl->err);
        goto out;
    }
    if (s->kind == PQL_DELETE && s->returning != PQL_RETURN_NONE &&
        s->returning != PQL_RETURN_ALL_OLD) {
        ddb_error_set(pl->err, DDB_VALIDATION,
                      "Invalid returning clause: RETURNING %s. Only RETURNING ALL OLD * is allowed "
                      "in DELETE statements.",
                      s->returning == PQL_RETURN_MODIFIED_OLD ? "MODIFIED OLD"
                      : s->returning == PQL_RETURN_ALL_NEW    ? "ALL NEW"
                                                              : "MODIFIED NEW");
        goto out;
    }
    if (extract_key(pl, def, &rest, s->kind == PQL_EXISTS ? EXISTS_SHAPE : INCOMPLETE_KEY) != 0)
        goto out;
    if (s->kind == PQL_EXISTS && !rest.len) {
        /* EXISTS checks a condition on the item besides its key (AWS:
         * paritysuite tier3 partiqlFunctions). */
        ddb_error_set(pl->err, DDB_VALIDATION, EXISTS_SHAPE);
        goto out;
    }
    switch (s->kind) {
    case PQL_UPDATE:
        /* UPDATE changes an existing item only (ConditionalCheckFailed otherwise). */
        emit_exists(pl, &cond, def, true);
        if (rest.len) {
            text_buf_puts(&cond, " AND ");
            text_buf_add(&cond, rest.data, rest.len);
        }
        if (emit_update(pl, &u) != 0) goto out;
        join_update(&u, &update);
        p->returning = s->returning;
        break;
    case PQL_DELETE:
        /* Deleting a missing item succeeds; an existing one must meet the rest. */
        if (rest.len) {
            emit_exists(pl, &cond, def, false);
            text_buf_puts(&cond, " OR ");
            text_buf_add(&cond, rest.data, rest.len);
        }
        p->returning = s->returning;
        break;
    default: /* EXISTS: the item must exist and meet the rest */
        emit_exists(pl, &cond, def, true);
        if (rest.len) {
            text_buf_puts(&cond, " AND ");
            text_buf_add(&cond, rest.data, rest.len);
        }
        break;
    }
    ready_ctx(p);
    if (parse_text(p, EXPR_UPDATE, "UpdateExpression", &update, &p->update, pl->err) != 0) goto out;
    rc = parse_text(p, EXPR_CONDITION, "ConditionExpression", &cond, &p->condition, pl->err);
out:
    text_buf_clear(&cond);
    text_buf_clear(&rest);
    text_buf_clear(&update);
    text_buf_clear(&u.set);
    text_buf_clear(&u.add);
    text_buf_clear(&u.del);
    text_buf_clear(&u.remove);
    return rc;
}

/* A SELECT inside ExecuteTransaction or BatchExecuteStatement: a Get by full
 * key (TransactGetItems, BatchGetItem), each with its own text (AWS:
 * paritysuite tier3 partiqlFunctions). */
static int plan_transaction_get(struct planner *pl, const struct table_def *def,
                                enum pql_context context)
{
    const char *message =
        context == PQL_IN_BATCH
            ? "Select statements within BatchExecuteStatement must specify the primary key in "
              "the where clause."
            : "Select statements within ExecuteTransaction must specify the primary key in the "
              "where clause.";
    struct text_buf rest, projection;
    int rc = -1;

    text_buf_init(&rest);
    text_buf_init(&projection);
    if (pl->s->index) {
        ddb_error_set(pl->err, DDB_VALIDATION,
                      "Reads on indices are not supported within transactions.");
        goto out;
    }
    if (extract_key(pl, def, &rest, message) != 0) goto out;
    if (rest.len) {
        ddb_error_set(pl->err, DDB_VALIDATION, "%s", message);
        goto out;
    }
    for (size_t i = 0; i < pl->s->projection_count; i++) {
        if (i) text_buf_puts(&projection, ", ");
        pql_emit_path(pl, &projection, pl->s->projection[i]);
    }
    ready_ctx(pl->plan);
    rc = parse_text(pl->plan, EXPR_PROJECTION, "ProjectionExpression", &projection,
                    &pl->plan->projection, pl->err);
out:
    text_buf_clear(&rest);
    text_buf_clear(&projection);
    return rc;
}

int pql_plan(const struct pql_stmt *s, const struct table_def *def, const struct value *params,
             size_t param_count, enum pql_context context, struct pql_plan *out,
             struct ddb_error *err)
{
    struct planner pl = {.s = s, .params = params, .plan = out, .err = err};
    struct select_texts t;
    int rc = -1;

    pql_plan_init(out);
    out->kind = s->kind;
    out->table = xstrdup(s->table);
    out->index = xstrdup_or_null(s->index);
    if (s->param_count != param_count)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Number of parameters in request and statement don't match.");
    if (s->kind == PQL_EXISTS && context != PQL_IN_TRANSACTION)
        return ddb_error_set(err, DDB_VALIDATION,
                             "EXISTS can only be used in ExecuteTransaction write requests.");
    if (s->kind != PQL_SELECT) return plan_write(&pl, def);
    if (context != PQL_IN_STATEMENT) return plan_transaction_get(&pl, def, context);

    memset(&t, 0, sizeof t);
    text_buf_init(&t.projection);
    text_buf_init(&t.filter);
    if (plan_select(&pl, def, &t) != 0) goto out;
    ready_ctx(out);
    for (size_t i = 0; i < t.key_count; i++)
        if (parse_text(out, EXPR_KEY_CONDITION, "KeyConditionExpression", &t.keys[i],
                       &out->queries[i].key_condition, err) != 0)
            goto out;
    if (parse_text(out, EXPR_CONDITION, "FilterExpression", &t.filter, &out->filter, err) != 0)
        goto out;
    rc = parse_text(out, EXPR_PROJECTION, "ProjectionExpression", &t.projection, &out->projection,
                    err);
out:
    for (size_t i = 0; i < t.key_count; i++)
        text_buf_clear(&t.keys[i]);
    free(t.keys);
    text_buf_clear(&t.projection);
    text_buf_clear(&t.filter);
    return rc;
}
