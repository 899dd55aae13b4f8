/*
 * db_fixtures.h - what the engine's unit tests build again and again, in one
 * place: attributes set in an item's map, a table definition assembled member
 * by member, and the calls that must succeed (create a table, put an item,
 * delete one). Like check.h it is header-only; a call that must succeed and
 * fails is a CHECK failure of the running test.
 *
 * Ownership follows the engine's: every string of a table_def is owned (the
 * builders copy what they are given), db_create_table takes the definition,
 * and the write helpers take the map or key they are given.
 */
#ifndef DDB_DB_FIXTURES_H
#define DDB_DB_FIXTURES_H

#include "storage/base/alloc.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/engine/db_tables.h"
#include "storage/expr/expr.h"
#include "storage/tests/check.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* ---- attributes of an item's map (or of a key, or of :values) ---- */

static inline void set_s(struct value *m, const char *name, const char *text)
{
    struct value v;
    value_init_string(&v, text, strlen(text));
    value_map_set(m, name, strlen(name), &v);
}

/* A number given as its text ("1e3", "-0.5"). */
static inline void set_n_text(struct value *m, const char *name, const char *text)
{
    struct value v;
    value_init_number_text(&v, text, strlen(text));
    value_map_set(m, name, strlen(name), &v);
}

static inline void set_n(struct value *m, const char *name, long n)
{
    char text[32];
    snprintf(text, sizeof text, "%ld", n);
    set_n_text(m, name, text);
}

/* ---- a table definition, member by member ---- */

/* An empty definition of table name, on demand; the rest is added below. */
static inline void def_init(struct table_def *def, const char *name)
{
    memset(def, 0, sizeof *def);
    def->name = xstrdup(name);
    def->billing = BILLING_PAY_PER_REQUEST;
}

static inline void def_add_attr(struct table_def *def, const char *name, enum value_type type)
{
    def->attr_defs = xrealloc(def->attr_defs, sizeof *def->attr_defs * (def->attr_def_count + 1));
    def->attr_defs[def->attr_def_count++] = (struct attr_def){xstrdup(name), type};
}

/* Appends name to k's partition key (hash) or sort key (range). */
static inline void key_add(struct key_schema *k, const char *name, bool hash)
{
    if (hash)
        k->hash_names[k->hash_count++] = xstrdup(name);
    else
        k->range_names[k->range_count++] = xstrdup(name);
}

/* A key attribute of the table: its AttributeDefinition and its place in the key. */
static inline void def_add_key(struct table_def *def, const char *name, enum value_type type,
                               bool hash)
{
    def_add_attr(def, name, type);
    key_add(&def->key, name, hash);
}

/* Adds a GSI (global) or an LSI named name, projecting projection; its key
 * is added with key_add on the index returned (valid until the next add). */
static inline struct index_def *def_add_index(struct table_def *def, const char *name, bool global,
                                              enum projection_type projection)
{
    struct index_def **list = global ? &def->gsis : &def->lsis;
    size_t *count = global ? &def->gsi_count : &def->lsi_count;
    struct index_def *x;

    *list = xrealloc(*list, sizeof **list * (*count + 1));
    x = &(*list)[(*count)++];
    memset(x, 0, sizeof *x);
    x->name = xstrdup(name);
    x->is_global = global;
    x->projection.type = projection;
    return x;
}

/* A non-key attribute of an INCLUDE projection (len bytes: names may hold NUL). */
static inline void index_include_n(struct index_def *x, const char *name, size_t len)
{
    struct projection *p = &x->projection;

    p->non_key_attrs =
        xrealloc(p->non_key_attrs, sizeof *p->non_key_attrs * (p->non_key_count + 1));
    p->non_key_lens = xrealloc(p->non_key_lens, sizeof *p->non_key_lens * (p->non_key_count + 1));
    p->non_key_attrs[p->non_key_count] = xmemdup(name, len);
    p->non_key_lens[p->non_key_count++] = len;
}

static inline void index_include(struct index_def *x, const char *name)
{
    index_include_n(x, name, strlen(name));
}

/* ---- calls that must succeed ---- */

/* Creates the table of def (taken) in scope. */
static inline void create_table_ok(struct db *db, const struct db_scope *scope,
                                   struct table_def *def)
{
    struct table_desc desc;
    struct ddb_error err = {0};

    if (db_create_table(db, scope, def, &desc, &err) != 0) {
        fprintf(stderr, "CreateTable: %s\n", err.message);
        CHECK(0);
        ddb_error_clear(&err);
        return;
    }
    table_desc_clear(&desc);
}

/* Runs op, which must succeed; returns nothing of its result. */
static inline void write_ok(struct db *db, const struct db_scope *scope, const struct write_op *op)
{
    struct write_result res;
    struct ddb_error err = {0};

    if (db_write_item(db, scope, op, RETURN_CAPACITY_NONE, &res, &err) != 0) {
        fprintf(stderr, "write: %s\n", err.message);
        CHECK(0);
        ddb_error_clear(&err);
        return;
    }
    write_result_clear(&res);
}

/* Puts the item of map m (taken) into table. */
static inline void put_ok(struct db *db, const struct db_scope *scope, const char *table,
                          struct value *m)
{
    struct write_op op = {.kind = WRITE_PUT, .table_name = table, .put_item = item_new(m)};

    write_ok(db, scope, &op);
    item_unref(op.put_item);
}

/* Deletes the item at key (taken) from table. */
static inline void delete_ok(struct db *db, const struct db_scope *scope, const char *table,
                             struct value *key)
{
    struct write_op op = {.kind = WRITE_DELETE, .table_name = table, .key = *key};

    write_ok(db, scope, &op);
    value_clear(&op.key);
}

/* The item at key (taken) in table, read consistently: an owned reference,
 * or NULL when there is none. */
static inline struct item *get_ok(struct db *db, const struct db_scope *scope, const char *table,
                                  struct value *key)
{
    struct get_op op = {.table_name = table, .key = *key, .consistent_read = true};
    struct item *item = NULL;
    struct consumed_capacity cap = {0};
    struct ddb_error err = {0};

    if (db_get_item(db, scope, &op, RETURN_CAPACITY_NONE, &item, &cap, &err) != 0) {
        fprintf(stderr, "GetItem: %s\n", err.message);
        CHECK(0);
        ddb_error_clear(&err);
    }
    consumed_capacity_clear(&cap);
    value_clear(&op.key);
    return item;
}

/* Parses one expression of kind with :values (borrowed, may be NULL) and no
 * #names into a tree (NULL, reported, when it does not parse); ctx is the
 * caller's, cleared after the tree is freed. */
static inline struct expr *parse_ok(enum expr_kind kind, const char *param, const char *text,
                                    struct value *values, struct expr_ctx *ctx)
{
    struct expr *e = NULL;
    struct ddb_error err = {0};

    expr_ctx_init(ctx, NULL, values);
    if (expr_parse(kind, param, text, strlen(text), ctx, &e, &err) != 0) {
        fprintf(stderr, "parse %s: %s\n", text, err.message);
        CHECK(0);
        ddb_error_clear(&err);
    }
    return e;
}

#endif
