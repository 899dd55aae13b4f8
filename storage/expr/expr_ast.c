/*
 * expr_ast.c - the expression tree's memory and builders: the arena every node
 * lives in, the constructors the parser, the legacy translation and the tests
 * share, operator names, and the rendering of paths in messages; see
 * expr_ast.h.
 *
 * Everything here is below the parser and the checks, which both build on it.
 */
#include "storage/expr/expr_ast.h"

#include "storage/base/alloc.h"
#include "storage/base/thread_cache.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- arena ---- */

struct expr_arena_block {
    struct expr_arena_block *next;
    size_t used, cap;
    max_align_t data[];
};

/* An expression's first block stays under glibc's large-chunk size (1,024
 * bytes with its header): a request for a large chunk first consolidates
 * every free small chunk of the heap, and at a million items those lie in
 * cold memory - a dozen cache misses an UpdateItem (bench/README.md, "Writes
 * at 1,000,000 items"). A short expression (most of them: "ADD #c :one",
 * "attribute_exists(PK)") fits in it; longer ones go on in larger blocks,
 * which come from the thread's cache (thread_cache.h) for the same reason. */
#define ARENA_FIRST_BLOCK_BYTES 960
#define ARENA_BLOCK_BYTES       4096

/* A new empty expression of the given kind; free with expr_free(). */
struct expr *expr_new(enum expr_kind kind)
{
    struct expr *e = thread_cache_alloc(sizeof *e);
    memset(e, 0, sizeof *e);
    e->kind = kind;
    return e;
}

/* Zeroed, suitably aligned memory that lives as long as e. */
void *expr_alloc(struct expr *e, size_t size)
{
    struct expr_arena_block *b = e->arena;
    size_t align = sizeof(max_align_t);

    size = (size + align - 1) / align * align;
    if (!b || b->cap - b->used < size) {
        size_t want = b ? ARENA_BLOCK_BYTES : ARENA_FIRST_BLOCK_BYTES;
        size_t cap = size > want ? size : want;
        b = thread_cache_alloc(sizeof *b + cap);
        b->cap = cap;
        b->used = 0;
        b->next = e->arena;
        e->arena = b;
    }
    void *p = (char *) b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

/* A NUL-terminated copy of s[0..len) in e's arena. */
char *expr_strdup(struct expr *e, const char *s, size_t len)
{
    char *d = expr_alloc(e, len + 1);
    if (len) memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

/* Frees e and everything it owns; expr_free(NULL) is a no-op. */
void expr_free(struct expr *e)
{
    if (!e) return;
    for (struct expr_node *n = e->owned_values; n; n = n->next_owned)
        value_clear(&n->owned);
    for (struct expr_arena_block *b = e->arena, *next; b; b = next) {
        next = b->next;
        thread_cache_free(b);
    }
    thread_cache_free(e);
}

/* ---- builders (for legacy translation and tests) ---- */

/* A path node with one map-key element, copied into e's arena. */
struct expr_node *expr_node_new_path(struct expr *e, const char *name, size_t name_len)
{
    struct expr_node *n = expr_alloc(e, sizeof *n);
    n->kind = EN_PATH;
    expr_node_path_append(e, n, false, name, name_len, 0);
    return n;
}

/* Appends .name or [index] to a path node (names are copied). */
void expr_node_path_append(struct expr *e, struct expr_node *path_node, bool is_index,
                           const char *name, size_t name_len, uint32_t index)
{
    struct expr_path *p = &path_node->path;
    struct expr_path_elem *elems = expr_alloc(e, (p->count + 1) * sizeof *elems);

    assert(path_node->kind == EN_PATH);
    assert(p->count > 0 || !is_index);
    if (p->count) memcpy(elems, p->elems, p->count * sizeof *elems);
    elems[p->count].is_index = is_index;
    elems[p->count].index = index;
    if (!is_index) {
        elems[p->count].name = expr_strdup(e, name, name_len);
        elems[p->count].name_len = name_len;
    }
    p->elems = elems;
    p->count++;
}

/* A constant node owning *v (taken, left NULL-typed); expr_free clears it. */
struct expr_node *expr_node_new_value_owned(struct expr *e, struct value *v)
{
    struct expr_node *n = expr_alloc(e, sizeof *n);
    n->kind = EN_VALUE;
    value_move(&n->owned, v);
    n->has_owned = true;
    n->value = &n->owned;
    n->next_owned = e->owned_values;
    e->owned_values = n;
    return n;
}

/* An operator or function node over args (the pointer array is copied). */
struct expr_node *expr_node_new_op(struct expr *e, enum expr_op op, struct expr_node **args,
                                   size_t argc)
{
    struct expr_node *n = expr_alloc(e, sizeof *n);
    n->kind = EN_OP;
    n->op = op;
    n->argc = argc;
    n->args = expr_alloc(e, (argc ? argc : 1) * sizeof *n->args);
    if (argc) memcpy(n->args, args, argc * sizeof *args);
    if (op >= OP_FUNC_UNKNOWN) {
        const char *name = expr_op_name(op);
        n->ref = name;
        n->ref_len = strlen(name);
    }
    return n;
}

/* ---- names and rendering ---- */

/* The name DynamoDB prints for an operator (Operator.operatorName). */
const char *expr_op_name(enum expr_op op)
{
    switch (op) {
    case OP_EQ: return "=";
    case OP_NE: return "<>";
    case OP_LT: return "<";
    case OP_LE: return "<=";
    case OP_GT: return ">";
    case OP_GE: return ">=";
    case OP_BETWEEN: return "BETWEEN";
    case OP_IN: return "IN";
    case OP_AND: return "AND";
    case OP_OR: return "OR";
    case OP_NOT: return "NOT";
    case OP_PLUS: return "+";
    case OP_MINUS: return "-";
    case OP_FUNC_UNKNOWN: return "";
    case OP_ATTRIBUTE_EXISTS: return "attribute_exists";
    case OP_ATTRIBUTE_NOT_EXISTS: return "attribute_not_exists";
    case OP_ATTRIBUTE_TYPE: return "attribute_type";
    case OP_BEGINS_WITH: return "begins_with";
    case OP_CONTAINS: return "contains";
    case OP_SIZE: return "size";
    case OP_IF_NOT_EXISTS: return "if_not_exists";
    case OP_LIST_APPEND: return "list_append";
    }
    return "";
}

/* Appends one element of a path: its name, or "[index]". */
void expr_path_elem_render(struct text_buf *sb, const struct expr_path_elem *el)
{
    if (el->is_index) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "[%u]", el->index);
        text_buf_add(sb, buf, (size_t) n);
    } else {
        text_buf_add(sb, el->name, el->name_len);
    }
}

/* Appends "[a, b, [1]]" (dynalite test/updateItem.js "overlapping paths"). */
void expr_path_render(struct text_buf *sb, const struct expr_path *p)
{
    text_buf_add(sb, "[", 1);
    for (size_t i = 0; i < p->count; i++) {
        if (i) text_buf_add(sb, ", ", 2);
        expr_path_elem_render(sb, &p->elems[i]);
    }
    text_buf_add(sb, "]", 1);
}
