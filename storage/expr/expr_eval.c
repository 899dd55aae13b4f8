/*
 * expr_eval.c - the one evaluator: conditions and filters, update actions,
 * projections.
 *
 * Semantics are DynamoDB's (DynamoDB Local's OperatorExecutor and
 * ExpressionExecutor, checked against scylladb test/alternator and dynalite's
 * tests of real AWS behaviour):
 *
 * Conditions never fail at evaluation time. A missing attribute, or an
 * operand of a type the operator does not handle, makes the comparison false
 * rather than an error: "=" needs both operands present and equal (two missing
 * attributes are not equal), "<>" is its negation (true when either is
 * missing), < <= > >= and BETWEEN need both sides of one type among S, N and B
 * (strings and binaries compare as unsigned bytes, numbers numerically);
 * begins_with needs two strings or two binaries; contains(a, b) is a substring
 * test on S and B, membership on a set of b's type and element equality on a
 * list; size() is the length of S (in UTF-16 code units, as Java counts), B,
 * sets, lists and maps, and "missing" for other types, so size(number) > 0 is
 * false.
 *
 * Updates evaluate every right-hand side against the item as it was before the
 * update (scylla test_update_expression_multi_with_copy) and build the new item
 * from the path tree: list indexes name positions before the update, SET past
 * the end of a list appends, several appends land in index order, REMOVE of
 * list elements compacts the list, and ADD/DELETE are set union and difference
 * (an emptied set disappears) or numeric addition (ADD on a missing attribute
 * creates it). Arithmetic is exact (number.h). Errors, verbatim from dynalite
 * test/updateItem.js:
 *   - "The provided expression refers to an attribute that does not exist in the item"
 *     (a right-hand side path, or the second operand of if_not_exists, is missing);
 *   - "An operand in the update expression has an incorrect data type" (for a
 *     legacy AttributeUpdates tree, which has no source: "Type mismatch for
 *     attribute to update");
 *   - "The document path provided in the update expression is invalid for update"
 *     (a path goes through a missing attribute or a non-container).
 * An update is all-or-nothing: the new item is built aside and replaces the old
 * one only if every action succeeded.
 *
 * Projections copy the named parts in place: a.b[2].c keeps a, b and c as maps
 * and lists, list elements keep their order and are compacted.
 *
 * No locking: trees are immutable after parsing, and items are the caller's.
 */
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/expr/expr_ast.h"
#include "storage/model/item.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char MSG_NOT_FOUND[] =
    "The provided expression refers to an attribute that does not exist in the item";
static const char MSG_BAD_TYPE[] = "An operand in the update expression has an incorrect data type";
/* The same mismatch in a legacy AttributeUpdates ADD/DELETE (built trees have
 * no source): dynalite test/updateItem.js "should return ValidationException
 * if trying to delete/add incorrect types", recorded against AWS. */
static const char MSG_LEGACY_BAD_TYPE[] = "Type mismatch for attribute to update";
static const char MSG_BAD_PATH[] =
    "The document path provided in the update expression is invalid for update";

/* ---- paths ---- */

static const struct value *child_of(const struct value *doc, const struct expr_path_elem *el)
{
    if (!doc) return NULL;
    if (el->is_index) {
        if (doc->type != VALUE_L || el->index >= doc->u.list.count) return NULL;
        return &doc->u.list.elems[el->index];
    }
    if (doc->type != VALUE_M) return NULL;
    return value_map_get(doc, el->name, el->name_len);
}

static const struct value *lookup(const struct value *root, const struct expr_path *p)
{
    const struct value *v = root;
    for (size_t i = 0; v && i < p->count; i++)
        v = child_of(v, &p->elems[i]);
    return v;
}

/* ---- conditions ---- */

struct operand {
    const struct value *v; /* NULL when missing */
    struct value tmp;      /* holds a computed value (size) that v points to */
};

static bool size_of(const struct value *v, size_t *out)
{
    switch (v->type) {
    case VALUE_S: *out = text_utf16_length(v->u.str.data, v->u.str.len); return true;
    case VALUE_B: *out = v->u.str.len; return true;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
    case VALUE_L: *out = v->u.list.count; return true;
    case VALUE_M: *out = v->u.map.count; return true;
    default: return false;
    }
}

static void eval_operand(const struct expr_node *n, const struct value *item, struct operand *o)
{
    o->v = NULL;
    value_init_null(&o->tmp);
    switch (n->kind) {
    case EN_PATH: o->v = lookup(item, &n->path); return;
    case EN_VALUE: o->v = n->value; return;
    case EN_OP: break;
    }
    if (n->op == OP_SIZE) {
        struct operand arg;
        size_t size;
        eval_operand(n->args[0], item, &arg);
        if (arg.v && size_of(arg.v, &size)) {
            char buf[32];
            int len = snprintf(buf, sizeof buf, "%zu", size);
            value_init_number_text(&o->tmp, buf, (size_t) len);
            o->v = &o->tmp;
        }
        value_clear(&arg.tmp);
    }
}

static bool is_ordered(const struct value *v)
{
    return v->type == VALUE_S || v->type == VALUE_N || v->type == VALUE_B;
}

/* Order of a and b when both are present, of one type among S, N, B; *ok
 * false otherwise (the comparison is then false). */
static int order(const struct value *a, const struct value *b, bool *ok)
{
    *ok = a && b && a->type == b->type && is_ordered(a);
    return *ok ? value_compare_scalar(a, b) : 0;
}

static bool equal(const struct value *a, const struct value *b)
{
    return a && b && value_equal(a, b);
}

static bool bytes_contain(const struct value *hay, const struct value *needle, bool prefix_only)
{
    size_t h = hay->u.str.len, n = needle->u.str.len;
    if (n > h) return false;
    if (n == 0) return true;
    for (size_t i = 0; i + n <= h; i++) {
        if (memcmp(hay->u.str.data + i, needle->u.str.data, n) == 0) return true;
        if (prefix_only) break;
    }
    return false;
}

static bool eval_contains(const struct value *a, const struct value *b)
{
    if (!a || !b) return false;
    switch (a->type) {
    case VALUE_S:
    case VALUE_B: return a->type == b->type && bytes_contain(a, b, false);
    case VALUE_L:
        for (size_t i = 0; i < a->u.list.count; i++) {
            if (value_equal(&a->u.list.elems[i], b)) return true;
        }
        return false;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS: return b->type == value_set_element_type(a->type) && value_set_contains(a, b);
    default: return false;
    }
}

static bool eval_cond(const struct expr_node *n, const struct value *item);

static bool eval_leaf(const struct expr_node *n, const struct value *item)
{
    struct operand o[3];
    bool r = false, ok = true, ok2 = true;
    int c;

    switch (n->op) {
    case OP_ATTRIBUTE_EXISTS: return lookup(item, &n->args[0]->path) != NULL;
    case OP_ATTRIBUTE_NOT_EXISTS: return lookup(item, &n->args[0]->path) == NULL;
    case OP_IN:
        eval_operand(n->args[0], item, &o[0]);
        for (size_t i = 1; i < n->argc && !r; i++) {
            eval_operand(n->args[i], item, &o[1]);
            r = equal(o[0].v, o[1].v);
            value_clear(&o[1].tmp);
        }
        value_clear(&o[0].tmp);
        return r;
    default: break;
    }
    assert(n->argc <= 3);
    for (size_t i = 0; i < n->argc; i++)
        eval_operand(n->args[i], item, &o[i]);
    switch (n->op) {
    case OP_EQ: r = equal(o[0].v, o[1].v); break;
    case OP_NE: r = !equal(o[0].v, o[1].v); break;
    case OP_LT: c = order(o[0].v, o[1].v, &ok), r = ok && c < 0; break;
    case OP_LE: c = order(o[0].v, o[1].v, &ok), r = ok && c <= 0; break;
    case OP_GT: c = order(o[0].v, o[1].v, &ok), r = ok && c > 0; break;
    case OP_GE: c = order(o[0].v, o[1].v, &ok), r = ok && c >= 0; break;
    case OP_BETWEEN:
        /* x >= low AND x <= high, each side of x's type (OperatorExecutor.eval_BETWEEN). */
        c = order(o[0].v, o[1].v, &ok);
        r = ok && c >= 0;
        c = order(o[0].v, o[2].v, &ok2);
        r = r && ok2 && c <= 0;
        break;
    case OP_BEGINS_WITH:
        r = o[0].v && o[1].v && o[0].v->type == o[1].v->type &&
            (o[0].v->type == VALUE_S || o[0].v->type == VALUE_B) &&
            bytes_contain(o[0].v, o[1].v, true);
        break;
    case OP_CONTAINS: r = eval_contains(o[0].v, o[1].v); break;
    case OP_ATTRIBUTE_TYPE:
        r = o[0].v && o[1].v && o[1].v->type == VALUE_S &&
            strlen(value_type_name(o[0].v->type)) == o[1].v->u.str.len &&
            memcmp(value_type_name(o[0].v->type), o[1].v->u.str.data, o[1].v->u.str.len) == 0;
        break;
    default: assert(!"not a condition operator"); break;
    }
    for (size_t i = 0; i < n->argc; i++)
        value_clear(&o[i].tmp);
    return r;
}

/* AND and OR chains nest to the right; walking their right spine in a loop
 * keeps the recursion as deep as the parentheses, not the chain. */
static bool eval_cond(const struct expr_node *n, const struct value *item)
{
    for (;;) {
        switch (n->op) {
        case OP_AND:
            if (!eval_cond(n->args[0], item)) return false;
            n = n->args[1];
            continue;
        case OP_OR:
            if (eval_cond(n->args[0], item)) return true;
            n = n->args[1];
            continue;
        case OP_NOT: return !eval_cond(n->args[0], item);
        default: return eval_leaf(n, item);
        }
    }
}

/*
 * Evaluates a condition, filter or key condition against an item's attributes
 * (NULL when the item does not exist). Never fails: returns 0 and sets
 * *matched. Nothing here knows a lock: attrs must not change while it runs
 * (the engine evaluates its stored items under its own lock).
 */
int expr_eval_condition(const struct expr *cond, const struct value *attrs, bool *matched,
                        struct ddb_error *err)
{
    (void) err;
    assert(cond->kind == EXPR_CONDITION || cond->kind == EXPR_KEY_CONDITION);
    *matched = eval_cond(cond->root, attrs);
    return 0;
}

/* ---- update values ---- */

struct applier {
    const struct value *root; /* the item before the update */
    bool item_existed;
    struct ddb_error *err;
    const char *bad_type; /* MSG_BAD_TYPE, or MSG_LEGACY_BAD_TYPE for AttributeUpdates */
};

static int number_math(const struct value *a, const struct value *b, bool add, struct value *out,
                       struct ddb_error *err)
{
    struct number x, y, r;
    char buf[NUMBER_TEXT_MAX];
    size_t len;

    /* Canonical texts always parse. */
    if (number_parse(a->u.str.data, a->u.str.len, &x, err) != 0) return -1;
    if (number_parse(b->u.str.data, b->u.str.len, &y, err) != 0) return -1;
    if ((add ? number_add(&x, &y, &r, err) : number_subtract(&x, &y, &r, err)) != 0) return -1;
    len = number_format(&r, buf, sizeof buf);
    value_init_number_text(out, buf, len);
    return 0;
}

/*
 * Evaluates an update right-hand side into an owned *out; *found false when it
 * is a missing attribute (out is then NULL-typed). Operands of +, - and
 * list_append are checked in order, each for presence then type
 * (ExpressionExecutor.executeOperator).
 */
static int eval_value(struct applier *ap, const struct expr_node *n, struct value *out, bool *found)
{
    struct value a, b;
    bool fa, fb;
    int rc = -1;

    value_init_null(out);
    *found = false;
    switch (n->kind) {
    case EN_PATH: {
        const struct value *v = lookup(ap->root, &n->path);
        if (v) {
            value_copy(out, v);
            *found = true;
        }
        return 0;
    }
    case EN_VALUE:
        value_copy(out, n->value);
        *found = true;
        return 0;
    case EN_OP: break;
    }
    value_init_null(&a);
    value_init_null(&b);
    if (eval_value(ap, n->args[0], &a, &fa) != 0) goto out;
    if (eval_value(ap, n->args[1], &b, &fb) != 0) goto out;
    if (n->op == OP_IF_NOT_EXISTS) {
        if (!fb) {
            ddb_error_set(ap->err, DDB_VALIDATION, "%s", MSG_NOT_FOUND);
            goto out;
        }
        value_move(out, fa ? &a : &b);
        *found = true;
        rc = 0;
        goto out;
    }
    {
        enum value_type want = n->op == OP_LIST_APPEND ? VALUE_L : VALUE_N;
        if (!fa || (a.type == want && !fb)) {
            ddb_error_set(ap->err, DDB_VALIDATION, "%s", MSG_NOT_FOUND);
            goto out;
        }
        if (a.type != want || b.type != want) {
            ddb_error_set(ap->err, DDB_VALIDATION, "%s", ap->bad_type);
            goto out;
        }
    }
    if (n->op == OP_LIST_APPEND) {
        /* A fresh list: value_list_append may only grow lists it built. */
        value_init_list(out, VALUE_L);
        for (size_t i = 0; i < a.u.list.count; i++)
            value_list_append(out, &a.u.list.elems[i]);
        for (size_t i = 0; i < b.u.list.count; i++)
            value_list_append(out, &b.u.list.elems[i]);
    } else if (number_math(&a, &b, n->op == OP_PLUS, out, ap->err) != 0) {
        goto out;
    }
    *found = true;
    rc = 0;
out:
    value_clear(&a);
    value_clear(&b);
    return rc;
}

/* ---- update actions ---- */

/* The new value of an action's target, given its old value (NULL if absent);
 * *present false when the target disappears (REMOVE, emptied set). */
static int action_result(struct applier *ap, const struct expr_action *act, const struct value *old,
                         struct value *out, bool *present)
{
    const struct value *right = act->value ? act->value->value : NULL;
    struct value_set_index members;
    bool distinct;

    value_init_null(out);
    *present = false;
    switch (act->kind) {
    case ACT_SET:
        if (eval_value(ap, act->value, out, present) != 0) return -1;
        if (!*present) return ddb_error_set(ap->err, DDB_VALIDATION, "%s", MSG_NOT_FOUND);
        return 0;
    case ACT_REMOVE: return 0;
    case ACT_ADD:
        *present = true;
        if (!old) {
            value_copy(out, right);
            return 0;
        }
        if (old->type != right->type) {
            *present = false;
            return ddb_error_set(ap->err, DDB_VALIDATION, "%s", ap->bad_type);
        }
        if (right->type == VALUE_N) {
            if (number_math(old, right, true, out, ap->err) != 0) {
                *present = false;
                return -1;
            }
            return 0;
        }
        /* Union: the old elements, then the new ones (a fresh set, since
         * value_list_append may only grow lists it built), put in set order
         * (value.h) at the end. */
        value_set_index_init(&members, old);
        value_init_list(out, old->type);
        for (size_t i = 0; i < old->u.list.count + right->u.list.count; i++) {
            const struct value *x = i < old->u.list.count
                                        ? &old->u.list.elems[i]
                                        : &right->u.list.elems[i - old->u.list.count];
            struct value e;
            if (i >= old->u.list.count && value_set_index_contains(&members, x)) continue;
            value_copy(&e, x);
            value_list_append(out, &e);
        }
        value_set_index_clear(&members);
        distinct = value_set_sort(out); /* a union holds no duplicates */
        assert(distinct);
        (void) distinct;
        return 0;
    case ACT_DELETE:
        if (!old) return 0;
        if (old->type != right->type)
            return ddb_error_set(ap->err, DDB_VALIDATION, "%s", ap->bad_type);
        assert(value_is_set(old));
        /* The difference keeps old's members in old's (set) order. */
        value_set_index_init(&members, right);
        value_init_list(out, old->type);
        for (size_t i = 0; i < old->u.list.count; i++) {
            if (value_set_index_contains(&members, &old->u.list.elems[i])) continue;
            struct value e;
            value_copy(&e, &old->u.list.elems[i]);
            value_list_append(out, &e);
        }
        value_set_index_clear(&members);
        if (out->u.list.count == 0) {
            value_clear(out); /* a set may not be empty: the attribute goes */
            return 0;
        }
        *present = true;
        return 0;
    }
    return 0;
}

/* How many children node has. */
static size_t expr_ptree_children(const struct expr_ptree *node)
{
    size_t n = 0;
    for (const struct expr_ptree *c = node->first_child; c; c = c->next_sibling)
        n++;
    return n;
}

/* True when every action below node removes something (REMOVE or DELETE). */
static bool only_removals(const struct expr_ptree *node)
{
    if (node->leaf) return node->action->kind == ACT_REMOVE || node->action->kind == ACT_DELETE;
    for (const struct expr_ptree *c = node->first_child; c; c = c->next_sibling) {
        if (!only_removals(c)) return false;
    }
    return true;
}

struct child_result {
    const struct expr_ptree *node;
    struct value v;
    bool present;
};

static int build(struct applier *ap, const struct expr_ptree *node, const struct value *doc,
                 struct value *out);

/* The children's new values, in the tree's (sorted) order, as DynamoDB
 * evaluates them (ExpressionExecutor.createNewDocumentInternal). */
static int child_results(struct applier *ap, const struct expr_ptree *node, const struct value *doc,
                         struct child_result *res, size_t *count)
{
    size_t n = 0;

    for (const struct expr_ptree *c = node->first_child; c; c = c->next_sibling, n++) {
        const struct value *old;
        res[n].node = c;
        res[n].present = false;
        value_init_null(&res[n].v);
        if (c->elem->is_index != (doc->type == VALUE_L)) goto bad_path;
        old = child_of(doc, c->elem);
        if (c->leaf) {
            if (action_result(ap, c->action, old, &res[n].v, &res[n].present) != 0) goto fail;
            continue;
        }
        if (!old) {
            if (!ap->item_existed && only_removals(c)) continue;
            goto bad_path;
        }
        if (build(ap, c, old, &res[n].v) != 0) goto fail;
        res[n].present = true;
    }
    *count = n;
    return 0;
bad_path:
    ddb_error_set(ap->err, DDB_VALIDATION, "%s", MSG_BAD_PATH);
fail:
    for (size_t i = 0; i <= n; i++)
        value_clear(&res[i].v);
    return -1;
}

/* The new version of container doc after the actions below node. */
static int build(struct applier *ap, const struct expr_ptree *node, const struct value *doc,
                 struct value *out)
{
    struct child_result *res;
    size_t count = 0;

    if (doc->type != VALUE_M && doc->type != VALUE_L)
        return ddb_error_set(ap->err, DDB_VALIDATION, "%s", MSG_BAD_PATH);
    res = xcalloc(expr_ptree_children(node), sizeof *res);
    if (child_results(ap, node, doc, res, &count) != 0) {
        free(res);
        return -1;
    }
    if (doc->type == VALUE_M) {
        /* Which result replaces each old attribute, found by name once per
         * result: O(attributes + results), however many of each. */
        struct child_result **at = xcalloc(doc->u.map.count ? doc->u.map.count : 1, sizeof *at);
        for (size_t k = 0; k < count; k++) {
            const struct expr_path_elem *el = res[k].node->elem;
            ssize_t pos = value_map_find(doc, el->name, el->name_len);
            if (pos >= 0) at[pos] = &res[k];
        }
        value_init_map(out);
        for (size_t i = 0; i < doc->u.map.count; i++) {
            const struct attr *a = &doc->u.map.attrs[i];
            struct child_result *r = at[i];
            struct value copy;
            if (r) {
                if (r->present) value_map_append(out, a->name, a->name_len, &r->v);
                r->present = false; /* placed (or removed) */
                continue;
            }
            value_copy(&copy, &a->value);
            value_map_append(out, a->name, a->name_len, &copy);
        }
        free(at);
        for (size_t k = 0; k < count; k++) {
            if (res[k].present)
                value_map_append(out, res[k].node->elem->name, res[k].node->elem->name_len,
                                 &res[k].v);
        }
    } else {
        /* Indexes are sorted: walk old elements and results together. */
        size_t k = 0;
        value_init_list(out, VALUE_L);
        for (size_t i = 0; i < doc->u.list.count; i++) {
            struct value copy;
            if (k < count && res[k].node->elem->index == i) {
                if (res[k].present) value_list_append(out, &res[k].v);
                k++;
                continue;
            }
            value_copy(&copy, &doc->u.list.elems[i]);
            value_list_append(out, &copy);
        }
        for (; k < count; k++) {
            if (res[k].present) value_list_append(out, &res[k].v);
        }
    }
    for (size_t k = 0; k < count; k++)
        value_clear(&res[k].v);
    free(res);
    return 0;
}

/*
 * The top level of an update, done in place: *attrs is the caller's own copy
 * of the item, so once every result is computed (the only step that can
 * fail) the results replace, drop or follow the attributes where they are,
 * and the untouched ones - usually nearly all of a large item - are neither
 * copied nor freed. Same order as build(): old attributes where they were,
 * then new ones in the tree's order.
 */
static int build_in_place(struct applier *ap, const struct expr_ptree *node, struct value *attrs)
{
    struct child_result res_on_stack[ITEM_CHANGES_MAX], *res = res_on_stack;
    bool drop_on_stack[2 * ITEM_CHANGES_MAX + 1], *drop = drop_on_stack;
    size_t count = 0, n = expr_ptree_children(node), old_count = attrs->u.map.count;

    /* An update's few actions and a small item need no allocation here. */
    if (n > ITEM_CHANGES_MAX) res = xcalloc(n, sizeof *res);
    if (child_results(ap, node, attrs, res, &count) != 0) {
        if (res != res_on_stack) free(res);
        return -1;
    }
    if (old_count + count + 1 > sizeof drop_on_stack / sizeof *drop) /* appends may follow */
        drop = xcalloc(old_count + count + 1, sizeof *drop);
    else
        memset(drop, 0, sizeof drop_on_stack);
    for (size_t k = 0; k < count; k++) {
        const struct expr_path_elem *el = res[k].node->elem;
        ssize_t pos = value_map_find(attrs, el->name, el->name_len);
        if (pos >= 0 && (size_t) pos < old_count) {
            struct value *slot = &attrs->u.map.attrs[pos].value;
            if (res[k].present) {
                value_clear(slot);
                value_move(slot, &res[k].v);
            } else {
                drop[pos] = true;
            }
        } else if (res[k].present) {
            value_map_append(attrs, el->name, el->name_len, &res[k].v);
        }
        value_clear(&res[k].v);
    }
    value_map_remove_marked(attrs, drop); /* appended ones are past old_count: kept */
    if (drop != drop_on_stack) free(drop);
    if (res != res_on_stack) free(res);
    return 0;
}

/*
 * Applies an update expression to *attrs (a VALUE_M): on success *attrs is the
 * new item; on -1 (the errors in the file comment, or number overflow from
 * number.h) *attrs is unchanged. item_existed false relaxes nested REMOVE and
 * DELETE on a new item (scylla test_nested_attribute_remove_from_missing_item).
 */
int expr_apply_update_ex(const struct expr *update, struct value *attrs, bool item_existed,
                         struct ddb_error *err)
{
    struct applier ap = {attrs, item_existed, err,
                         update->src ? MSG_BAD_TYPE : MSG_LEGACY_BAD_TYPE};

    assert(update->kind == EXPR_UPDATE && attrs->type == VALUE_M);
    return build_in_place(&ap, update->tree, attrs);
}

/*
 * The update of an existing item as a new item, without a copy of the old
 * one's tree: the results are computed against its decoded (read-only)
 * tree, as expr_apply_update_ex computes them, and only they are encoded
 * into the new item (item_with_changes). An UpdateItem at 1,000,000 items
 * spent a tenth of its allocations copying the old item to change one
 * attribute (bench/README.md, "UpdateItem's allocations"). An update of
 * more top-level attributes than ITEM_CHANGES_MAX, rare and large, takes
 * the copy.
 */
struct item *expr_update_item(const struct expr *update, const struct item *old,
                              struct ddb_error *err)
{
    const struct value *attrs = item_attrs(old);
    struct applier ap = {attrs, true, err, update->src ? MSG_BAD_TYPE : MSG_LEGACY_BAD_TYPE};
    struct child_result res[ITEM_CHANGES_MAX];
    struct attr_change changes[ITEM_CHANGES_MAX];
    struct item *item;
    size_t count = 0;

    assert(update->kind == EXPR_UPDATE);
    if (expr_ptree_children(update->tree) > ITEM_CHANGES_MAX) {
        struct value copy;
        value_copy(&copy, attrs);
        if (expr_apply_update_ex(update, &copy, true, err) != 0) {
            value_clear(&copy);
            return NULL;
        }
        return item_new(&copy);
    }
    if (child_results(&ap, update->tree, attrs, res, &count) != 0) return NULL;
    for (size_t k = 0; k < count; k++) {
        const struct expr_path_elem *el = res[k].node->elem;
        changes[k] =
            (struct attr_change){el->name, el->name_len, res[k].present ? &res[k].v : NULL};
    }
    item = item_with_changes(old, changes, count);
    for (size_t k = 0; k < count; k++)
        value_clear(&res[k].v);
    return item;
}

/* ---- projections ---- */

/* Copies into *out (always initialized) the parts of container doc named below
 * node; returns whether anything was copied. */
static bool project(const struct expr_ptree *node, const struct value *doc, struct value *out)
{
    bool is_list = doc && doc->type == VALUE_L;

    if (is_list)
        value_init_list(out, VALUE_L);
    else
        value_init_map(out);
    if (!doc || (doc->type != VALUE_M && doc->type != VALUE_L)) return false;
    for (const struct expr_ptree *c = node->first_child; c; c = c->next_sibling) {
        const struct value *child = child_of(doc, c->elem);
        struct value v;
        if (!child) continue;
        if (c->leaf) {
            value_copy(&v, child);
        } else if (!project(c, child, &v)) {
            value_clear(&v);
            continue;
        }
        if (is_list)
            value_list_append(out, &v);
        else
            value_map_set(out, c->elem->name, c->elem->name_len, &v);
    }
    return is_list ? out->u.list.count > 0 : out->u.map.count > 0;
}

/* Copies the projected parts of attrs (NULL: none) into *out, a new VALUE_M
 * owned by the caller. */
void expr_project(const struct expr *projection, const struct value *attrs, struct value *out)
{
    assert(projection->kind == EXPR_PROJECTION);
    if (!attrs || attrs->type != VALUE_M) {
        value_init_map(out);
        return;
    }
    project(projection->tree, attrs, out);
}

bool expr_projection_is_nested(const struct expr *projection)
{
    assert(projection->kind == EXPR_PROJECTION);
    for (size_t i = 0; i < projection->path_count; i++) {
        if (projection->paths[i].count > 1) return true;
    }
    return false;
}

bool expr_projection_top_names(const struct expr *projection, struct expr_top_names *out)
{
    assert(projection->kind == EXPR_PROJECTION);
    if (!projection->top_names) return false;
    *out = (struct expr_top_names){(const char *const *) projection->top_names,
                                   projection->top_lens, projection->path_count};
    return true;
}

struct item *expr_project_item(const struct expr *projection, const struct item *item)
{
    struct expr_top_names top;
    struct value projected;

    if (expr_projection_top_names(projection, &top))
        return item_project(item, top.names, top.lens, top.count);
    expr_project(projection, item_attrs(item), &projected);
    return item_new(&projected);
}

void expr_project_named(const struct expr *projection, const struct value *attrs, struct value *out)
{
    assert(projection->kind == EXPR_PROJECTION);
    value_init_map(out);
    if (!attrs || attrs->type != VALUE_M) return;
    for (size_t i = 0; i < projection->path_count; i++) {
        const struct expr_path *p = &projection->paths[i];
        const struct expr_path_elem *name = &p->elems[0];
        const struct value *v = lookup(attrs, p);
        struct value copy;
        for (size_t j = 1; j < p->count; j++) {
            if (!p->elems[j].is_index) name = &p->elems[j];
        }
        if (!v) continue;
        value_copy(&copy, v);
        value_map_set(out, name->name, name->name_len, &copy);
    }
}

/* The parts of attrs an update targets (ReturnValues UPDATED_OLD / UPDATED_NEW,
 * ExpressionExecutor.getUpdatedOld/NewDocument): a new VALUE_M in *out. */
void expr_project_updated(const struct expr *update, const struct value *attrs, struct value *out)
{
    assert(update->kind == EXPR_UPDATE);
    if (!attrs || attrs->type != VALUE_M) {
        value_init_map(out);
        return;
    }
    project(update->tree, attrs, out);
}

/* ---- questions about paths ---- */

static bool top_is(const struct expr_path *p, const char *name, size_t len)
{
    return p->count > 0 && !p->elems[0].is_index && p->elems[0].name_len == len &&
           memcmp(p->elems[0].name, name, len) == 0;
}

/* True when an action of the update targets the top-level attribute `name`
 * (also through a nested path: "SET a.b = ..." touches a). */
bool expr_update_touches(const struct expr *update, const char *name, size_t name_len)
{
    for (size_t i = 0; i < update->action_count; i++) {
        if (top_is(&update->actions[i].path, name, name_len)) return true;
    }
    return false;
}

/* The type a SET value has whatever the item holds (dynalite's updateParser
 * attrType): a :value's, N for + and -, L for list_append, if_not_exists's
 * fallback's; false for a document path. */
static bool static_type(const struct expr_node *n, enum value_type *type)
{
    if (n->kind == EN_VALUE) {
        *type = n->value->type;
        return true;
    }
    if (n->kind != EN_OP) return false;
    switch (n->op) {
    case OP_PLUS:
    case OP_MINUS: *type = VALUE_N; return true;
    case OP_LIST_APPEND: *type = VALUE_L; return true;
    case OP_IF_NOT_EXISTS: return static_type(n->args[1], type);
    default: return false;
    }
}

/* See expr.h. */
bool expr_update_static_type(const struct expr *update, const char *name, size_t name_len,
                             enum value_type *type)
{
    for (size_t i = 0; i < update->action_count; i++) {
        const struct expr_action *a = &update->actions[i];
        if (a->path.count != 1 || !top_is(&a->path, name, name_len)) continue;
        return a->kind != ACT_REMOVE && static_type(a->value, type);
    }
    return false;
}

/* Calls visit on every path of the tree under n, stopping when it returns true. */
static bool any_path(const struct expr_node *n,
                     bool (*visit)(const struct expr_path *, const char *, size_t),
                     const char *name, size_t len)
{
    if (!n) return false;
    if (n->kind == EN_PATH) return visit(&n->path, name, len);
    for (size_t i = 0; i < n->argc; i++) {
        if (any_path(n->args[i], visit, name, len)) return true;
    }
    return false;
}

static bool any_path_of(const struct expr *e,
                        bool (*visit)(const struct expr_path *, const char *, size_t),
                        const char *name, size_t len)
{
    if (any_path(e->root, visit, name, len)) return true;
    for (size_t i = 0; i < e->action_count; i++) {
        if (visit(&e->actions[i].path, name, len)) return true;
        if (any_path(e->actions[i].value, visit, name, len)) return true;
    }
    for (size_t i = 0; i < e->path_count; i++) {
        if (visit(&e->paths[i], name, len)) return true;
    }
    return false;
}

static bool nested_under(const struct expr_path *p, const char *name, size_t len)
{
    return p->count > 1 && top_is(p, name, len);
}

/* See expr.h. */
bool expr_references(const struct expr *e, const char *name, size_t name_len)
{
    return any_path_of(e, top_is, name, name_len);
}

/* See expr.h. */
bool expr_uses_nested(const struct expr *e, const char *name, size_t name_len)
{
    return any_path_of(e, nested_under, name, name_len);
}

static bool node_within(const struct expr_node *n, bool (*pred)(const void *, const char *, size_t),
                        const void *ctx)
{
    if (!n) return true;
    if (n->kind == EN_PATH) return pred(ctx, n->path.elems[0].name, n->path.elems[0].name_len);
    for (size_t i = 0; i < n->argc; i++) {
        if (!node_within(n->args[i], pred, ctx)) return false;
    }
    return true;
}

/* See expr.h. */
bool expr_names_all(const struct expr *e,
                    bool (*pred)(const void *ctx, const char *name, size_t name_len),
                    const void *ctx)
{
    for (size_t i = 0; i < e->path_count; i++) {
        const struct expr_path_elem *el = &e->paths[i].elems[0];
        if (!pred(ctx, el->name, el->name_len)) return false;
    }
    return node_within(e->root, pred, ctx);
}
