/*
 * expr_search.c - SearchConditionExpression: a condition of the expression
 * language restricted to equalities joined by AND (API reference,
 * SearchVectors: "The HASH and INLINE_FILTER attributes support only the
 * equality operator (=). You can reference only top-level attributes from the
 * search schema."); see expr.h. Texts: spec-24 3.5 (the agent toolkit's
 * verbatim quote; OR, NOT, BETWEEN and functions get the same text, as
 * dynoxide decided).
 */
#include "storage/base/alloc.h"
#include "storage/expr/expr_ast.h"

#include <stdlib.h>
#include <string.h>

#define PARAM "SearchConditionExpression"

static int invalid_comparator(struct ddb_error *err)
{
    return ddb_error_set(err, DDB_VALIDATION,
                         "Invalid " PARAM ": Invalid comparator used in " PARAM);
}

struct collect {
    struct search_term *terms;
    size_t count;
    size_t cap;
};

static void add_term(struct collect *c, const struct expr_node *path, const struct value *v)
{
    const struct expr_path_elem *first = &path->path.elems[0];
    struct search_term *t;

    if (c->count == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 4;
        c->terms = xrealloc(c->terms, sizeof *c->terms * c->cap);
    }
    t = &c->terms[c->count++];
    t->name = xmemdup(first->name, first->name_len);
    t->nested = path->path.count > 1;
    value_copy(&t->value, v);
}

static int walk(const struct expr_node *n, struct collect *c, struct ddb_error *err)
{
    const struct expr_node *a, *b;

    if (n->kind != EN_OP) return invalid_comparator(err);
    if (n->op == OP_AND) {
        for (size_t i = 0; i < n->argc; i++) {
            if (walk(n->args[i], c, err) != 0) return -1;
        }
        return 0;
    }
    if (n->op != OP_EQ || n->argc != 2) return invalid_comparator(err);
    a = n->args[0];
    b = n->args[1];
    if (a->kind == EN_VALUE && b->kind == EN_PATH) {
        const struct expr_node *t = a;
        a = b;
        b = t;
    }
    if (a->kind != EN_PATH || b->kind != EN_VALUE || !b->value) return invalid_comparator(err);
    add_term(c, a, b->value);
    return 0;
}

int expr_search_terms(const struct expr *e, struct search_term **terms, size_t *count,
                      struct ddb_error *err)
{
    struct collect c = {0};

    *terms = NULL;
    *count = 0;
    if (!e->root) return 0;
    if (walk(e->root, &c, err) != 0) {
        search_terms_free(c.terms, c.count);
        return -1;
    }
    *terms = c.terms;
    *count = c.count;
    return 0;
}

void search_terms_free(struct search_term *terms, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free(terms[i].name);
        value_clear(&terms[i].value);
    }
    free(terms);
}
