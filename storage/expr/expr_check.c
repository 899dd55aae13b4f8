/*
 * expr_check.c - semantic checks of a parsed expression, in DynamoDB's order,
 * and the per-request #name / :value context.
 *
 * DynamoDB validates an expression in three passes after parsing, and the first
 * error of the first pass that finds one is what it reports (the order below is
 * DynamoDB Local's: ASTListener, then ExpressionValidator/OperatorValidator;
 * each message is one of its DbValidationError texts, and the examples come from
 * dynalite's tests recorded against AWS, scylladb test/alternator and real AWS
 * responses quoted in public code):
 *
 *  1. A walk of the tree in document order (pre-order for a function, which is
 *     checked before its arguments): unknown function names; functions used in
 *     the wrong kind of expression ("size" in an update, "if_not_exists" in a
 *     condition); functions nested where they may not be (only size() may be an
 *     operand in a condition, only if_not_exists() inside another function or
 *     +/- in an update, and a condition must not be a bare size()); reserved
 *     words used as bare names; list indexes above 2^31-1; an update section
 *     used twice (reported at the end of the second one).
 *
 *  2. Resolution and operator checks. For a condition: post-order over the tree,
 *     resolving #names and :values and then checking each operator: number of
 *     operands, operand types, "first operand must be distinct", then the
 *     operator's own rules (BETWEEN bounds, IN's 100 operands, attribute_type's
 *     type name, document-path operands), counting operators up to 300. For an
 *     update: the target paths, last action first, resolved and added to the
 *     path tree (refusing overlapping and conflicting paths), then the values,
 *     last action first, with ADD/DELETE's operand type. A projection's paths are
 *     resolved and added to its tree last first too (DynamoDB's parser collects
 *     them from a stack), which is why "path one" is the one written first.
 *
 *  3. For a KeyConditionExpression, expr_key.c's structure checks.
 *
 * Unused #names and :values are reported per request, after all its
 * expressions: expr_ctx_check_unused().
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/thread_cache.h"
#include "storage/expr/expr_ast.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <xxhash.h>

/* ---- context ---- */

/* Starts a request's context over its (borrowed) names and values maps. */
/* One flag per entry of map, false, from the thread's cache: a request's
 * few names and values make small blocks it frees again at its end. */
static bool *used_flags(const struct value *map)
{
    size_t n = map->u.map.count ? map->u.map.count : 1;
    bool *flags = thread_cache_alloc(n * sizeof *flags);
    memset(flags, 0, n * sizeof *flags);
    return flags;
}

void expr_ctx_init(struct expr_ctx *ctx, const struct value *names, const struct value *values)
{
    ctx->names = names;
    ctx->values = values;
    ctx->names_used = names ? used_flags(names) : NULL;
    ctx->values_used = values ? used_flags(values) : NULL;
}

/* Frees what expr_ctx_init allocated; the maps stay the caller's. */
void expr_ctx_clear(struct expr_ctx *ctx)
{
    thread_cache_free(ctx->names_used);
    thread_cache_free(ctx->values_used);
    memset(ctx, 0, sizeof *ctx);
}

static int check_unused(const struct value *map, const bool *used, const char *what,
                        struct ddb_error *err)
{
    struct text_buf sb = {0};
    int rc = 0;

    if (!map) return 0;
    for (size_t i = 0; i < map->u.map.count; i++) {
        if (used[i]) continue;
        text_buf_add(&sb, sb.len ? ", " : "{", sb.len ? 2 : 1);
        text_buf_add(&sb, map->u.map.attrs[i].name, map->u.map.attrs[i].name_len);
    }
    if (sb.len) {
        text_buf_add(&sb, "}", 1);
        rc = ddb_error_set(err, DDB_VALIDATION,
                           "Value provided in %s unused in expressions: keys: %.*s", what,
                           (int) sb.len, sb.data);
    }
    free(sb.data);
    return rc;
}

/*
 * After every expression of a request has been parsed with ctx: refuses names,
 * then values, that none of them used - "Value provided in
 * ExpressionAttributeNames unused in expressions: keys: {#a, #b}" (dynalite
 * test/updateItem.js; the keys in the order the request gave them, which AWS
 * does not define).
 */
int expr_ctx_check_unused(const struct expr_ctx *ctx, struct ddb_error *err)
{
    if (check_unused(ctx->names, ctx->names_used, "ExpressionAttributeNames", err) != 0) return -1;
    return check_unused(ctx->values, ctx->values_used, "ExpressionAttributeValues", err);
}

/* ---- message helpers ---- */

/* The path tree's edges, found by (parent, element) in O(1), so that building
 * a tree of k paths is O(k) whatever the fan-out (legacy AttributeUpdates and
 * AttributesToGet have no length limit). Open addressing; owned by the checker. */
struct child_slot {
    const struct expr_ptree *parent;
    struct expr_ptree *child; /* NULL: empty slot */
};

struct child_table {
    struct child_slot *slots;
    size_t mask, count;
};

struct checker {
    struct expr *e;
    const char *param;
    struct expr_ctx *ctx;
    struct ddb_error *err;
    size_t op_count;
    struct child_table children;
};

/* Raises "Invalid <param>: <message>". */
static int bad(struct checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct checker *c, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    int len;

    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    msg = xmalloc((size_t) len + 1);
    va_start(ap, fmt);
    vsnprintf(msg, (size_t) len + 1, fmt, ap);
    va_end(ap);
    ddb_error_set(c->err, DDB_VALIDATION, "Invalid %s: %s", c->param, msg);
    free(msg);
    return -1;
}

/* ---- operators: names and types ---- */

/* Sets of attribute types, one bit per enum value_type. */
#define TBIT(t) (1u << (t))
#define T_ALL                                                                                      \
    (TBIT(VALUE_S) | TBIT(VALUE_N) | TBIT(VALUE_B) | TBIT(VALUE_BOOL) | TBIT(VALUE_NULL) |         \
     TBIT(VALUE_M) | TBIT(VALUE_L) | TBIT(VALUE_SS) | TBIT(VALUE_NS) | TBIT(VALUE_BS))
#define T_ORDERED (TBIT(VALUE_S) | TBIT(VALUE_N) | TBIT(VALUE_B))
#define T_ITERABLE                                                                                 \
    (TBIT(VALUE_S) | TBIT(VALUE_B) | TBIT(VALUE_SS) | TBIT(VALUE_NS) | TBIT(VALUE_BS) |            \
     TBIT(VALUE_L) | TBIT(VALUE_M))

/*
 * How DynamoDB prints "any type" (a document path's possible types) in
 * "operand type: ...": its internal type list, verbatim from a real response to
 * ConditionExpression "attribute_type(#n, S)" (pinned in public emulator tests).
 */
static const char ALL_TYPES_TEXT[] =
    "{S,SS,N,NS,B,BS,BOOL,NULL,L,M,HD,DOUBLE,FLOAT,HDS,FS,DOUBLESET,DICT,DECIMAL,INT,DECIMALSET,"
    "INTSET}";

/* The types an operator accepts (Operator's operandType in DynamoDB Local). */
static unsigned operand_types(enum expr_op op)
{
    switch (op) {
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_BETWEEN: return T_ORDERED;
    case OP_BEGINS_WITH: return TBIT(VALUE_S) | TBIT(VALUE_B);
    case OP_SIZE: return T_ITERABLE;
    case OP_PLUS:
    case OP_MINUS: return TBIT(VALUE_N);
    case OP_LIST_APPEND: return TBIT(VALUE_L);
    case OP_AND:
    case OP_OR:
    case OP_NOT: return TBIT(VALUE_BOOL);
    default: return T_ALL;
    }
}

/* The types a node may produce: any for a path, its type for a value, the
 * operator's result type for an operator. */
static unsigned node_types(const struct expr_node *n)
{
    switch (n->kind) {
    case EN_PATH: return T_ALL;
    case EN_VALUE: return TBIT(n->value->type);
    case EN_OP:
        switch (n->op) {
        case OP_SIZE:
        case OP_PLUS:
        case OP_MINUS: return TBIT(VALUE_N);
        case OP_LIST_APPEND: return TBIT(VALUE_L);
        case OP_IF_NOT_EXISTS:
        case OP_FUNC_UNKNOWN: return T_ALL;
        default: return TBIT(VALUE_BOOL);
        }
    }
    return T_ALL;
}

static const char *types_text(unsigned types)
{
    for (int t = VALUE_S; t <= VALUE_BS; t++) {
        if (types == TBIT(t)) return value_type_name((enum value_type) t);
    }
    return ALL_TYPES_TEXT;
}

/* Whether "the first operand must be distinct" applies (allowNullOperands). */
static bool checks_distinct(enum expr_op op)
{
    return op != OP_PLUS && op != OP_MINUS && op != OP_LIST_APPEND && op != OP_AND && op != OP_OR &&
           op != OP_NOT;
}

static bool is_function_op(enum expr_op op)
{
    return op >= OP_FUNC_UNKNOWN;
}

static bool arity_ok(enum expr_op op, size_t argc)
{
    switch (op) {
    case OP_IN: return argc >= 2;
    case OP_BETWEEN: return argc == 3;
    case OP_NOT:
    case OP_ATTRIBUTE_EXISTS:
    case OP_ATTRIBUTE_NOT_EXISTS:
    case OP_SIZE: return argc == 1;
    case OP_FUNC_UNKNOWN: return true;
    default: return argc == 2;
    }
}

static bool elem_equal(const struct expr_path_elem *a, const struct expr_path_elem *b)
{
    if (a->is_index != b->is_index) return false;
    if (a->is_index) return a->index == b->index;
    return a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0;
}

static bool path_equal(const struct expr_path *a, const struct expr_path *b)
{
    if (a->count != b->count) return false;
    for (size_t i = 0; i < a->count; i++) {
        if (!elem_equal(&a->elems[i], &b->elems[i])) return false;
    }
    return true;
}

/* ---- pass 1: the walk ---- */

static int walk_path(struct checker *c, const struct expr_path *p)
{
    for (size_t i = 0; i < p->count; i++) {
        const struct expr_path_elem *el = &p->elems[i];
        if (el->is_index) {
            /* DynamoDB parses indexes with Java's Integer.valueOf. */
            if (el->index_too_big)
                return bad(c, "List index is not within the allowable range; index: [%.*s]",
                           (int) el->text_len, el->text);
        } else if (!el->is_ref && el->text && expr_is_reserved_word(el->name, el->name_len)) {
            return bad(c, "Attribute name is a reserved keyword; reserved keyword: %.*s",
                       (int) el->name_len, el->name);
        }
    }
    return 0;
}

static int bad_function(struct checker *c, const struct expr_node *n, const char *what)
{
    return bad(c, "%s; function: %.*s", what, (int) n->ref_len, n->ref);
}

static const char MISUSED[] = "The function is not allowed to be used this way in an expression";

/* Function rules at the function's entry (ASTListener.enterFunctionCall). */
static int walk_function(struct checker *c, const struct expr_node *n, int nesting)
{
    enum expr_op op = n->op;

    if (op == OP_FUNC_UNKNOWN) return bad_function(c, n, "Invalid function name");
    if (c->e->kind == EXPR_UPDATE) {
        if (op != OP_IF_NOT_EXISTS && op != OP_LIST_APPEND)
            return bad_function(c, n, "The function is not allowed in an update expression");
        if (nesting > 0 && op != OP_IF_NOT_EXISTS) return bad_function(c, n, MISUSED);
        return 0;
    }
    if (op == OP_IF_NOT_EXISTS || op == OP_LIST_APPEND)
        return bad_function(c, n, "The function is not allowed in a condition expression");
    /* A condition must be boolean; inside an operator only size() may be used. */
    if (nesting == 0 && op == OP_SIZE) return bad_function(c, n, MISUSED);
    if (nesting > 0 && op != OP_SIZE) return bad_function(c, n, MISUSED);
    return 0;
}

static int walk_node(struct checker *c, const struct expr_node *n, int nesting)
{
    int inner = nesting;

    switch (n->kind) {
    case EN_PATH: return walk_path(c, &n->path);
    case EN_VALUE: return 0;
    case EN_OP: break;
    }
    if (is_function_op(n->op)) {
        if (walk_function(c, n, nesting) != 0) return -1;
        inner = nesting + 1;
    } else if (n->op != OP_AND && n->op != OP_OR && n->op != OP_NOT) {
        inner = nesting + 1; /* comparators, BETWEEN, IN, + and - nest their operands */
    }
    for (size_t i = 0; i < n->argc; i++) {
        if (walk_node(c, n->args[i], inner) != 0) return -1;
    }
    return 0;
}

static const char *const SECTION_NAMES[] = {"SET", "REMOVE", "ADD", "DELETE"};

static int walk_update(struct checker *c)
{
    bool seen[4] = {false, false, false, false};

    for (size_t s = 0; s < c->e->section_count; s++) {
        const struct expr_section *sec = &c->e->sections[s];
        for (size_t i = sec->first; i < sec->first + sec->count; i++) {
            const struct expr_action *a = &c->e->actions[i];
            if (walk_path(c, &a->path) != 0) return -1;
            if (a->kind == ACT_SET && walk_node(c, a->value, 0) != 0) return -1;
        }
        if (seen[sec->kind])
            return bad(c, "The \"%s\" section can only be used once in an update expression;",
                       SECTION_NAMES[sec->kind]);
        seen[sec->kind] = true;
    }
    return 0;
}

/* ---- pass 2: resolution and operators ---- */

static ssize_t map_lookup(const struct value *map, const char *name, size_t len)
{
    return map ? value_map_find(map, name, len) : -1;
}

/* ExpressionValidator.validateDocPath: depth, then each #name in order. */
static int resolve_path(struct checker *c, struct expr_path *p)
{
    if (p->count > DDB_MAX_NESTING_DEPTH)
        return bad(c, "The document path has too many nesting levels; nesting levels: %zu",
                   p->count);
    for (size_t i = 0; i < p->count; i++) {
        struct expr_path_elem *el = &p->elems[i];
        ssize_t k;
        const struct value *v;

        if (!el->is_ref) continue;
        k = map_lookup(c->ctx->names, el->text, el->text_len);
        if (k < 0 || (v = &c->ctx->names->u.map.attrs[k].value)->type != VALUE_S)
            return bad(c,
                       "An expression attribute name used in the document path is not defined; "
                       "attribute name: %.*s",
                       (int) el->text_len, el->text);
        c->ctx->names_used[k] = true;
        el->name = v->u.str.data;
        el->name_len = v->u.str.len;
    }
    return 0;
}

static int resolve_value(struct checker *c, struct expr_node *n)
{
    ssize_t k;

    if (n->has_owned) return 0;
    k = map_lookup(c->ctx->values, n->ref, n->ref_len);
    if (k < 0)
        return bad(c,
                   "An expression attribute value used in expression is not defined; attribute "
                   "value: %.*s",
                   (int) n->ref_len, n->ref);
    c->ctx->values_used[k] = true;
    n->value = &c->ctx->values->u.map.attrs[k].value;
    return 0;
}

/* "AttributeValue: {N:5}" - how DynamoDB prints a BETWEEN bound (binary in base64). */
static void render_bound(struct text_buf *sb, const struct value *v)
{
    size_t len = v->u.str.len;

    text_buf_add(sb, "AttributeValue: {", 17);
    text_buf_add(sb, value_type_name(v->type), strlen(value_type_name(v->type)));
    text_buf_add(sb, ":", 1);
    if (v->type != VALUE_B) {
        text_buf_add(sb, v->u.str.data, len);
    } else {
        char *encoded = text_base64_encode_new(v->u.str.data, len);
        text_buf_add(sb, encoded, strlen(encoded));
        free(encoded);
    }
    text_buf_add(sb, "}", 1);
}

/* OperatorValidator.validateBetween: only when both bounds are constants. */
static int check_between(struct checker *c, const struct expr_node *n)
{
    const struct expr_node *lo = n->args[1], *hi = n->args[2];
    struct text_buf sb = {0};
    const char *what;
    int rc;

    if (lo->kind != EN_VALUE || hi->kind != EN_VALUE) return 0;
    if (lo->value->type != hi->value->type)
        what = "The BETWEEN operator requires same data type for lower and upper bounds";
    else if (value_compare_scalar(lo->value, hi->value) > 0)
        what = "The BETWEEN operator requires upper bound to be greater than or equal to lower "
               "bound";
    else
        return 0;
    text_buf_add(&sb, "lower bound operand: ", 21);
    render_bound(&sb, lo->value);
    text_buf_add(&sb, ", upper bound operand: ", 23);
    render_bound(&sb, hi->value);
    rc = bad(c, "%s; %.*s", what, (int) sb.len, sb.data);
    free(sb.data);
    return rc;
}

/* attribute_type's second operand: a :value holding one of the type names. */
static int check_attribute_type(struct checker *c, const struct expr_node *n)
{
    const struct expr_node *t = n->args[1];
    enum value_type type;

    if (t->kind != EN_VALUE || t->value->type != VALUE_S)
        return bad(c,
                   "Incorrect operand type for operator or function; operator or function: "
                   "attribute_type, operand type: %s",
                   types_text(node_types(t)));
    if (!value_type_from_name(t->value->u.str.data, t->value->u.str.len, &type))
        return bad(c,
                   "Invalid attribute type name found; type: %.*s, valid types: "
                   "{S,SS,N,NS,B,BS,BOOL,NULL,L,M}",
                   (int) t->value->u.str.len, t->value->u.str.data);
    return 0;
}

/* OperatorValidator.validateOperator: count, types, distinctness, then the
 * operator's own rule. */
static int check_operator(struct checker *c, const struct expr_node *n)
{
    const char *name = is_function_op(n->op) ? "" : expr_op_name(n->op);
    int name_len = (int) strlen(name);
    unsigned accepted = operand_types(n->op);

    if (is_function_op(n->op)) {
        name = n->ref;
        name_len = (int) n->ref_len;
    }
    if (!arity_ok(n->op, n->argc))
        return bad(c,
                   "Incorrect number of operands for operator or function; operator or function: "
                   "%.*s, number of operands: %zu",
                   name_len, name, n->argc);
    for (size_t i = 0; i < n->argc; i++) {
        unsigned types = node_types(n->args[i]);
        if ((types & accepted) == 0)
            return bad(c,
                       "Incorrect operand type for operator or function; operator or function: "
                       "%.*s, operand type: %s",
                       name_len, name, types_text(types));
    }
    if (checks_distinct(n->op) && n->argc > 1 && n->args[0]->kind == EN_PATH) {
        for (size_t i = 1; i < n->argc; i++) {
            if (n->args[i]->kind != EN_PATH || !path_equal(&n->args[0]->path, &n->args[i]->path))
                continue;
            struct text_buf sb = {0};
            int rc;
            expr_path_render(&sb, &n->args[0]->path);
            rc = bad(c,
                     "The first operand must be distinct from the remaining operands for this "
                     "operator or function; operator: %.*s, first operand: %.*s",
                     name_len, name, (int) sb.len, sb.data);
            free(sb.data);
            return rc;
        }
    }
    switch (n->op) {
    case OP_BETWEEN: return check_between(c, n);
    case OP_IN:
        if (n->argc - 1 > DDB_MAX_IN_OPERANDS)
            return bad(
                c, "The IN operator is provided with too many operands; number of operands: %zu",
                n->argc - 1);
        return 0;
    case OP_ATTRIBUTE_EXISTS:
    case OP_ATTRIBUTE_NOT_EXISTS:
    case OP_IF_NOT_EXISTS:
        if (n->args[0]->kind != EN_PATH)
            return bad(c,
                       "Operator or function requires a document path; operator or function: %.*s",
                       name_len, name);
        return 0;
    case OP_ATTRIBUTE_TYPE: return check_attribute_type(c, n);
    default: return 0;
    }
}

/* ExpressionValidator.validateExpression: post-order. */
static int validate_node(struct checker *c, struct expr_node *n)
{
    switch (n->kind) {
    case EN_PATH: return resolve_path(c, &n->path);
    case EN_VALUE: return resolve_value(c, n);
    case EN_OP: break;
    }
    for (size_t i = 0; i < n->argc; i++) {
        if (validate_node(c, n->args[i]) != 0) return -1;
    }
    if (check_operator(c, n) != 0) return -1;
    if (++c->op_count > EXPR_MAX_OPERATORS)
        return bad(c, "The expression contains too many operators; operator count: %zu",
                   c->op_count);
    return 0;
}

/* ---- the path tree ---- */

static int compare_elem(const struct expr_path_elem *a, const struct expr_path_elem *b)
{
    if (a->is_index) return a->index < b->index ? -1 : a->index > b->index;
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    int r = n ? memcmp(a->name, b->name, n) : 0;
    if (r) return r;
    return a->name_len < b->name_len ? -1 : a->name_len > b->name_len;
}

static uint64_t child_hash(const struct expr_ptree *parent, const struct expr_path_elem *el)
{
    uint64_t seed = (uint64_t) (uintptr_t) parent;
    if (el->is_index) return XXH3_64bits_withSeed(&el->index, sizeof el->index, ~seed);
    return XXH3_64bits_withSeed(el->name, el->name_len, seed);
}

/* The slot of (parent, el): the matching one, or the empty one where it goes. */
static struct child_slot *child_slot(const struct child_table *t, const struct expr_ptree *parent,
                                     const struct expr_path_elem *el)
{
    size_t i = child_hash(parent, el) & t->mask;
    while (t->slots[i].child &&
           !(t->slots[i].parent == parent && elem_equal(t->slots[i].child->elem, el)))
        i = (i + 1) & t->mask;
    return &t->slots[i];
}

/* The table lives in the expression's arena (zeroed there), as the tree it
 * indexes does: an update's few paths fit its first 16 slots, and no
 * request allocates from glibc for it (a 512-byte calloc here was 1% of an
 * UpdateItem at 1,000,000 items, most of it growing the heap: bench/README.md,
 * "UpdateItem's allocations"). A grown table leaves the old one in the
 * arena: at most as many bytes again as the final table. */
static void child_table_grow(struct expr *e, struct child_table *t)
{
    struct child_slot *old = t->slots;
    size_t old_cap = old ? t->mask + 1 : 0, cap = old ? 2 * old_cap : 16;

    t->slots = expr_alloc(e, cap * sizeof *t->slots);
    t->mask = cap - 1;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].child) *child_slot(t, old[i].parent, old[i].child->elem) = old[i];
    }
}

static struct expr_ptree *find_child(struct checker *c, const struct expr_ptree *node,
                                     const struct expr_path_elem *el)
{
    if (!c->children.slots) return NULL;
    return child_slot(&c->children, node, el)->child;
}

/* Adds a child at the head of the sibling list; sort_tree orders siblings
 * once the tree is complete. */
static struct expr_ptree *add_child(struct checker *c, struct expr_ptree *parent,
                                    const struct expr_path_elem *el)
{
    struct expr_ptree *n = expr_alloc(c->e, sizeof *n);
    struct child_slot *slot;

    if (2 * (c->children.count + 1) > (c->children.slots ? c->children.mask + 1 : 0))
        child_table_grow(c->e, &c->children);
    n->elem = el;
    n->next_sibling = parent->first_child;
    parent->first_child = n;
    slot = child_slot(&c->children, parent, el);
    slot->parent = parent;
    slot->child = n;
    c->children.count++;
    return n;
}

/* The child that comes first in sorted order (the tree is sorted only at the end). */
static const struct expr_ptree *first_sorted_child(const struct expr_ptree *node)
{
    const struct expr_ptree *first = node->first_child;
    for (const struct expr_ptree *ch = first; ch; ch = ch->next_sibling) {
        if (compare_elem(ch->elem, first->elem) < 0) first = ch;
    }
    return first;
}

static int compare_children(const void *pa, const void *pb)
{
    const struct expr_ptree *a = *(const struct expr_ptree *const *) pa;
    const struct expr_ptree *b = *(const struct expr_ptree *const *) pb;
    return compare_elem(a->elem, b->elem);
}

/* Sorts every node's children (map keys by bytes, list indexes numerically),
 * as struct expr_ptree promises. */
#define SORT_ON_STACK 16

static void sort_tree(struct expr_ptree *node)
{
    struct expr_ptree *on_stack[SORT_ON_STACK], **kids;
    size_t n = 0;

    for (struct expr_ptree *ch = node->first_child; ch; ch = ch->next_sibling)
        n++;
    if (n == 0) return;
    kids = n <= SORT_ON_STACK ? on_stack : xmalloc(n * sizeof *kids);
    n = 0;
    for (struct expr_ptree *ch = node->first_child; ch; ch = ch->next_sibling)
        kids[n++] = ch;
    qsort(kids, n, sizeof *kids, compare_children);
    node->first_child = kids[0];
    for (size_t i = 0; i < n; i++) {
        kids[i]->next_sibling = i + 1 < n ? kids[i + 1] : NULL;
        sort_tree(kids[i]);
    }
    if (kids != on_stack) free(kids);
}

/* "Two document paths overlap/conflict ...; path one: [..], path two: [..]":
 * path two is the path already in the tree, found by following `prefix` elements
 * of path one and then the first child at each level down to a leaf (as
 * DynamoDB's buildPathToProjectionTreeLeaf does). */
static int paths_clash(struct checker *c, const char *what, const struct expr_path *one,
                       size_t prefix, const struct expr_ptree *from)
{
    struct text_buf a = {0}, b = {0};
    int rc;

    expr_path_render(&a, one);
    text_buf_add(&b, "[", 1);
    for (size_t i = 0; i < prefix; i++) {
        if (i) text_buf_add(&b, ", ", 2);
        expr_path_elem_render(&b, &one->elems[i]);
    }
    for (const struct expr_ptree *n = from; n; n = n->leaf ? NULL : first_sorted_child(n)) {
        if (b.len > 1) text_buf_add(&b, ", ", 2);
        expr_path_elem_render(&b, n->elem);
    }
    text_buf_add(&b, "]", 1);
    rc = bad(c,
             "Two document paths %s with each other; must remove or rewrite one of these paths; "
             "path one: %.*s, path two: %.*s",
             what, (int) a.len, a.data, (int) b.len, b.data);
    free(a.data);
    free(b.data);
    return rc;
}

/* ExpressionValidator.buildProjTreeInternal. */
static int tree_insert(struct checker *c, const struct expr_path *path,
                       const struct expr_action *action)
{
    struct expr_ptree *node = c->e->tree;

    for (size_t d = 0;; d++) {
        const struct expr_path_elem *el = &path->elems[d];
        struct expr_ptree *child = find_child(c, node, el);

        if (!child) {
            /* Siblings are all names or all indexes, so any one tells. */
            if (node->first_child && node->first_child->elem->is_index != el->is_index)
                return paths_clash(c, "conflict", path, d, first_sorted_child(node));
            for (size_t k = d; k < path->count; k++)
                node = add_child(c, node, &path->elems[k]);
            node->leaf = true;
            node->action = action;
            return 0;
        }
        if (child->leaf) return paths_clash(c, "overlap", path, d, child);
        if (d + 1 == path->count) return paths_clash(c, "overlap", path, d, child);
        node = child;
    }
}

/* ---- per kind ---- */

static const char *long_type_name(enum value_type t)
{
    switch (t) {
    case VALUE_S: return "STRING";
    case VALUE_N: return "NUMBER";
    case VALUE_B: return "BINARY";
    case VALUE_BOOL: return "BOOLEAN";
    case VALUE_NULL: return "NULL";
    case VALUE_M: return "MAP";
    case VALUE_L: return "LIST";
    case VALUE_SS: return "STRING_SET";
    case VALUE_NS: return "NUMBER_SET";
    case VALUE_BS: return "BINARY_SET";
    }
    return "";
}

/*
 * ADD takes a number or a set, DELETE a set: "Incorrect operand type for
 * operator or function; operator: ADD, operand type: STRING, typeSet:
 * ALLOWED_FOR_ADD_OPERAND" (real AWS responses quoted by dynamoid and others;
 * dynalite's older capture lacks the typeSet part).
 */
static int check_add_delete(struct checker *c, const struct expr_action *a)
{
    enum value_type t = a->value->value->type;
    bool is_set = t == VALUE_SS || t == VALUE_NS || t == VALUE_BS;
    bool add = a->kind == ACT_ADD;

    if (is_set || (add && t == VALUE_N)) return 0;
    return bad(c,
               "Incorrect operand type for operator or function; operator: %s, operand type: %s, "
               "typeSet: ALLOWED_FOR_%s_OPERAND",
               add ? "ADD" : "DELETE", long_type_name(t), add ? "ADD" : "DELETE");
}

static int check_update(struct checker *c)
{
    struct expr *e = c->e;

    if (walk_update(c) != 0) return -1;
    e->tree = expr_alloc(e, sizeof *e->tree);
    for (size_t i = e->action_count; i-- > 0;) {
        if (resolve_path(c, &e->actions[i].path) != 0) return -1;
        if (tree_insert(c, &e->actions[i].path, &e->actions[i]) != 0) return -1;
    }
    sort_tree(e->tree);
    for (size_t i = e->action_count; i-- > 0;) {
        struct expr_action *a = &e->actions[i];
        if (!a->value) continue;
        if (validate_node(c, a->value) != 0) return -1;
        if (a->kind != ACT_SET && check_add_delete(c, a) != 0) return -1;
    }
    return 0;
}

static int check_projection(struct checker *c)
{
    struct expr *e = c->e;

    for (size_t i = 0; i < e->path_count; i++) {
        if (walk_path(c, &e->paths[i]) != 0) return -1;
    }
    e->tree = expr_alloc(e, sizeof *e->tree);
    for (size_t i = e->path_count; i-- > 0;) {
        if (resolve_path(c, &e->paths[i]) != 0) return -1;
        if (tree_insert(c, &e->paths[i], NULL) != 0) return -1;
    }
    sort_tree(e->tree);
    if (!expr_projection_is_nested(e)) {
        /* The leaves are the root's children, one per path (a repeated
         * path is refused as an overlap above), in the answer's order. */
        size_t n = 0;
        e->top_names = expr_alloc(e, (e->path_count + 1) * sizeof *e->top_names);
        e->top_lens = expr_alloc(e, (e->path_count + 1) * sizeof *e->top_lens);
        for (const struct expr_ptree *ch = e->tree->first_child; ch; ch = ch->next_sibling) {
            e->top_names[n] = ch->elem->name;
            e->top_lens[n++] = ch->elem->name_len;
        }
        assert(n == e->path_count);
    }
    return 0;
}

/* Runs the semantic checks on a freshly parsed expression (see the file comment). */
int expr_check(struct expr *e, const char *param, struct expr_ctx *ctx, struct ddb_error *err)
{
    struct checker c = {e, param, ctx, err, 0, {0}};

    switch (e->kind) {
    case EXPR_UPDATE:
    case EXPR_PROJECTION: return e->kind == EXPR_UPDATE ? check_update(&c) : check_projection(&c);
    case EXPR_CONDITION:
    case EXPR_KEY_CONDITION:
        if (walk_node(&c, e->root, 0) != 0) return -1;
        if (validate_node(&c, e->root) != 0) return -1;
        if (e->kind == EXPR_KEY_CONDITION) return expr_key_check(e, err);
        return 0;
    }
    return 0;
}
