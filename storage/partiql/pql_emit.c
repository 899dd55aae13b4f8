/*
 * pql_emit.c - writes a statement's parts as DynamoDB expression text (see
 * pql_emit.h).
 *
 * PartiQL's operators map one to one onto the expression language: =, <>,
 * <, <=, >, >=, BETWEEN, IN, AND, OR, NOT, and the functions begins_with,
 * contains, attribute_type and size; `x IS [NOT] MISSING` is
 * attribute_[not_]exists(x), `x IS [NOT] <type>` attribute_type(x, 'T'), and
 * exists()/missing() are attribute_exists()/attribute_not_exists(). Literals
 * and parameters become :values, <<bags>> DynamoDB's sets.
 */
#include "storage/partiql/pql_emit.h"

#include "storage/base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- names, values and literals ---- */

/* Appends "#k" for attribute name (one #name per distinct name). */
void pql_emit_name(struct planner *pl, struct text_buf *b, const char *name, size_t len)
{
    struct value *names = &pl->plan->names;
    char ref[24];
    struct value v;

    for (size_t i = 0; i < names->u.map.count; i++) {
        const struct value *n = &names->u.map.attrs[i].value;
        if (n->u.str.len == len && memcmp(n->u.str.data, name, len) == 0) {
            text_buf_add(b, names->u.map.attrs[i].name, names->u.map.attrs[i].name_len);
            return;
        }
    }
    snprintf(ref, sizeof ref, "#%zu", names->u.map.count);
    value_init_string(&v, name, len);
    value_map_set(names, ref, strlen(ref), &v);
    text_buf_puts(b, ref);
}

/* Appends ":k" for *v (taken). */
void pql_emit_value(struct planner *pl, struct text_buf *b, struct value *v)
{
    struct value *values = &pl->plan->values;
    char ref[24];
    snprintf(ref, sizeof ref, ":%zu", values->u.map.count);
    value_map_set(values, ref, strlen(ref), v);
    text_buf_puts(b, ref);
}

bool pql_is_value_node(const struct pql_node *n)
{
    return (n->kind == PN_LIT && !n->missing) || n->kind == PN_PARAM || n->kind == PN_TUPLE ||
           n->kind == PN_LIST || n->kind == PN_BAG;
}

/* AWS names an unknown function in lower case, with its position
 * (paritysuite tier3 partiqlFunctions: EXISTS(ss), set_add in a WHERE). */
static int unrecognized_function(struct planner *pl, const struct pql_node *n)
{
    char name[64], at[64];
    size_t len = n->name_len < sizeof name - 1 ? n->name_len : sizeof name - 1;
    for (size_t i = 0; i < len; i++) {
        char c = n->name[i];
        name[i] = (char) (c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    name[len] = '\0';
    pql_position(pl->s, n->pos, n->len, at, sizeof at);
    return ddb_error_set(pl->err, DDB_VALIDATION, "Unrecognized function: %s%s", name, at);
}

/* A set literal may not repeat a member: "One or more parameter values were
 * invalid: Input collection [x, x] contains duplicates." (AWS's text, the
 * members as written, paritysuite tier3 partiqlFunctions). */
static int check_duplicates(struct planner *pl, struct value *set)
{
    struct text_buf list;
    bool dup = false;

    for (size_t i = 0; i < set->u.list.count && !dup; i++)
        for (size_t j = i + 1; j < set->u.list.count && !dup; j++)
            dup = value_equal(&set->u.list.elems[i], &set->u.list.elems[j]);
    if (!dup) return 0;
    text_buf_init(&list);
    for (size_t i = 0; i < set->u.list.count; i++) {
        const struct value *e = &set->u.list.elems[i];
        char *b64 = e->type == VALUE_B ? text_base64_encode_new(e->u.str.data, e->u.str.len) : NULL;
        text_buf_puts(&list, i ? ", " : "[");
        if (b64)
            text_buf_puts(&list, b64);
        else
            text_buf_add(&list, e->u.str.data, e->u.str.len);
        free(b64);
    }
    text_buf_puts(&list, "]");
    ddb_error_set(pl->err, DDB_VALIDATION,
                  "One or more parameter values were invalid: Input collection %s contains "
                  "duplicates.",
                  list.data);
    text_buf_clear(&list);
    value_clear(set);
    return -1;
}

/* <<...>>: DynamoDB's sets, of strings, numbers or binaries, never empty. */
static int eval_bag(struct planner *pl, const struct pql_node *n, struct value *out, int depth)
{
    enum value_type elem = VALUE_NULL;

    if (n->argc == 0) return ddb_error_set(pl->err, DDB_VALIDATION, "Empty bags are not supported");
    for (size_t i = 0; i < n->argc; i++) {
        struct value v;
        if (pql_eval_value(pl, n->args[i], &v, depth + 1) != 0) {
            value_clear(out);
            return -1;
        }
        if ((v.type != VALUE_S && v.type != VALUE_N && v.type != VALUE_B) ||
            (elem != VALUE_NULL && v.type != elem)) {
            value_clear(&v);
            value_clear(out);
            return ddb_error_set(pl->err, DDB_VALIDATION,
                                 "Unsupported data type in Bag. DynamoDB only supports either "
                                 "numbers or strings in bags");
        }
        if (elem == VALUE_NULL) {
            elem = v.type;
            value_init_list(out, v.type == VALUE_S   ? VALUE_SS
                                 : v.type == VALUE_N ? VALUE_NS
                                                     : VALUE_BS);
        }
        value_list_append(out, &v);
    }
    if (check_duplicates(pl, out) != 0) return -1;
    /* Into set order (storage/model/value.h). DynamoDB Local keeps a bag
     * literal's written order until an update touches the set (see
     * docs/differences.md); ddbemu keeps one order for every set. */
    value_set_sort(out);
    return 0;
}

/* A literal, parameter or collection of them as a DynamoDB value. */
int pql_eval_value(struct planner *pl, const struct pql_node *n, struct value *out, int depth)
{
    value_init_null(out);
    if (depth > PQL_MAX_NESTING) return ddb_error_set(pl->err, DDB_VALIDATION, "Nesting too deep");
    switch (n->kind) {
    case PN_LIT:
        if (n->missing)
            return ddb_error_set(pl->err, DDB_VALIDATION,
                                 "MISSING must be compared using IS operator");
        value_copy(out, &n->lit);
        return 0;
    case PN_PARAM: value_copy(out, &pl->params[n->param_index]); return 0;
    case PN_TUPLE:
        value_init_map(out);
        for (size_t i = 0; i < n->argc; i++) {
            struct value v;
            if (value_map_get(out, n->keys[i], n->key_lens[i])) {
                ddb_error_set(pl->err, DDB_VALIDATION, "Duplicate keys in tuple. Key: %.*s",
                              (int) n->key_lens[i], n->keys[i]);
                value_clear(out);
                return -1;
            }
            if (pql_eval_value(pl, n->args[i], &v, depth + 1) != 0) {
                value_clear(out);
                return -1;
            }
            value_map_set(out, n->keys[i], n->key_lens[i], &v);
        }
        return 0;
    case PN_LIST:
        value_init_list(out, VALUE_L);
        for (size_t i = 0; i < n->argc; i++) {
            struct value v;
            if (pql_eval_value(pl, n->args[i], &v, depth + 1) != 0) {
                value_clear(out);
                return -1;
            }
            value_list_append(out, &v);
        }
        return 0;
    case PN_BAG: return eval_bag(pl, n, out, depth);
    default:
        return ddb_error_set(pl->err, DDB_VALIDATION, "Unsupported token in expression: %s",
                             n->kind == PN_PATH ? "path" : "expression");
    }
}

/* ---- expression text ---- */

void pql_emit_path(struct planner *pl, struct text_buf *b, const struct pql_node *n)
{
    for (size_t i = 0; i < n->step_count; i++) {
        const struct pql_step *st = &n->steps[i];
        if (st->is_index) {
            text_buf_printf(b, "[%u]", (unsigned) st->index);
        } else {
            if (i) text_buf_puts(b, ".");
            pql_emit_name(pl, b, st->name, st->name_len);
        }
    }
}

bool pql_is_call(const struct pql_node *n, const char *fn)
{
    return n->kind == PN_CALL && strlen(fn) == n->name_len &&
           strncasecmp(n->name, fn, n->name_len) == 0;
}

/* An operand of a comparison or a function: a path, a value, or size(path). */
int pql_emit_operand(struct planner *pl, struct text_buf *b, const struct pql_node *n,
                     bool in_update, int depth)
{
    if (depth > PQL_MAX_NESTING) return ddb_error_set(pl->err, DDB_VALIDATION, "Nesting too deep");
    if (n->kind == PN_PATH) {
        pql_emit_path(pl, b, n);
        return 0;
    }
    if (pql_is_value_node(n)) {
        struct value v;
        if (pql_eval_value(pl, n, &v, 0) != 0) return -1;
        pql_emit_value(pl, b, &v);
        return 0;
    }
    if (n->kind == PN_LIT) /* MISSING */
        return ddb_error_set(pl->err, DDB_VALIDATION, "MISSING must be compared using IS operator");
    if (n->kind == PN_OP && (n->op == PO_PLUS || n->op == PO_MINUS)) {
        if (!in_update)
            return ddb_error_set(pl->err, DDB_VALIDATION,
                                 "Unsupported operator in Condition Expression. Operator: %s",
                                 n->op == PO_PLUS ? "+" : "-");
        if (pql_emit_operand(pl, b, n->args[0], true, depth + 1) != 0) return -1;
        text_buf_puts(b, n->op == PO_PLUS ? " + " : " - ");
        return pql_emit_operand(pl, b, n->args[1], true, depth + 1);
    }
    if (n->kind == PN_CALL) {
        /* size() as a comparison operand, list_append/if_not_exists in SET;
         * the expression checker refuses any other function here, as it does
         * in an ordinary expression. PartiQL's function names are
         * case-insensitive, the expression language's are not. */
        static const char *const known[] = {
            "size",           "list_append",      "if_not_exists",        "begins_with", "contains",
            "attribute_type", "attribute_exists", "attribute_not_exists", NULL};
        const char *canonical = NULL;
        for (const char *const *k = known; *k && !canonical; k++)
            if (pql_is_call(n, *k)) canonical = *k;
        if (!canonical) return unrecognized_function(pl, n);
        text_buf_puts(b, canonical);
        text_buf_puts(b, "(");
        for (size_t i = 0; i < n->argc; i++) {
            if (i) text_buf_puts(b, ", ");
            if (pql_emit_operand(pl, b, n->args[i], in_update, depth + 1) != 0) return -1;
        }
        text_buf_puts(b, ")");
        return 0;
    }
    text_buf_puts(b, "(");
    if (pql_emit_cond(pl, b, n, depth + 1) != 0) return -1;
    text_buf_puts(b, ")");
    return 0;
}

const char *pql_cmp_text(enum pql_op op)
{
    switch (op) {
    case PO_EQ: return " = ";
    case PO_NE: return " <> ";
    case PO_LT: return " < ";
    case PO_LE: return " <= ";
    case PO_GT: return " > ";
    case PO_GE: return " >= ";
    default: return " ";
    }
}

/* x IS [NOT] type: MISSING is attribute_not_exists, the others attribute_type. */
static int emit_is(struct planner *pl, struct text_buf *b, const struct pql_node *n)
{
    static const struct {
        const char *word;
        const char *type;
    } types[] = {
        {"NULL", "NULL"}, {"BOOLEAN", "BOOL"}, {"BLOB", "B"},  {"STRING", "S"},
        {"NUMERIC", "N"}, {"STRUCT", "M"},     {"TUPLE", "M"}, {"LIST", "L"},
    };
    const struct pql_node *x = n->args[0];
    struct value t;

    if (x->kind != PN_PATH)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "The left hand side argument to IS must be a Variable Reference, "
                             "Literal, or Path");
    if (strcmp(n->is_type, "MISSING") == 0) {
        text_buf_puts(b, n->negated ? "attribute_exists(" : "attribute_not_exists(");
        pql_emit_path(pl, b, x);
        text_buf_puts(b, ")");
        return 0;
    }
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        if (strcmp(n->is_type, types[i].word) != 0) continue;
        text_buf_puts(b, n->negated ? "(NOT attribute_type(" : "attribute_type(");
        pql_emit_path(pl, b, x);
        text_buf_puts(b, ", ");
        value_init_string(&t, types[i].type, strlen(types[i].type));
        pql_emit_value(pl, b, &t);
        text_buf_puts(b, n->negated ? "))" : ")");
        return 0;
    }
    return ddb_error_set(pl->err, DDB_VALIDATION,
                         "Unsupported data type for IS operator: %s. Supported data types are "
                         "[MISSING, NULL, BOOLEAN, BLOB, STRING, NUMERIC, STRUCT, TUPLE, LIST]",
                         n->is_type);
}

/* A condition (WHERE, or a part of it) as ConditionExpression text. */
int pql_emit_cond(struct planner *pl, struct text_buf *b, const struct pql_node *n, int depth)
{
    if (depth > PQL_MAX_NESTING) return ddb_error_set(pl->err, DDB_VALIDATION, "Nesting too deep");
    if (n->kind == PN_CALL) {
        const char *fn = NULL;
        if (pql_is_call(n, "begins_with")) fn = "begins_with";
        if (pql_is_call(n, "contains")) fn = "contains";
        if (pql_is_call(n, "attribute_type")) fn = "attribute_type";
        if (pql_is_call(n, "attribute_exists")) fn = "attribute_exists";
        if (pql_is_call(n, "attribute_not_exists")) fn = "attribute_not_exists";
        if (pql_is_call(n, "size"))
            return ddb_error_set(pl->err, DDB_VALIDATION,
                                 "WHERE clause must contain an expression that resolves to a "
                                 "boolean");
        if (!fn) return unrecognized_function(pl, n);
        text_buf_puts(b, fn);
        text_buf_puts(b, "(");
        for (size_t i = 0; i < n->argc; i++) {
            if (i) text_buf_puts(b, ", ");
            if (pql_emit_operand(pl, b, n->args[i], false, depth + 1) != 0) return -1;
        }
        text_buf_puts(b, ")");
        return 0;
    }
    if (n->kind != PN_OP || n->op == PO_PLUS || n->op == PO_MINUS)
        return ddb_error_set(pl->err, DDB_VALIDATION,
                             "WHERE clause must contain an expression that resolves to a boolean");
    switch (n->op) {
    case PO_AND:
    case PO_OR:
        text_buf_puts(b, "(");
        for (size_t i = 0; i < n->argc; i++) {
            if (i) text_buf_puts(b, n->op == PO_AND ? " AND " : " OR ");
            if (pql_emit_cond(pl, b, n->args[i], depth + 1) != 0) return -1;
        }
        text_buf_puts(b, ")");
        return 0;
    case PO_NOT:
        text_buf_puts(b, "(NOT ");
        if (pql_emit_cond(pl, b, n->args[0], depth + 1) != 0) return -1;
        text_buf_puts(b, ")");
        return 0;
    case PO_IS: return emit_is(pl, b, n);
    case PO_BETWEEN:
    case PO_IN:
        text_buf_puts(b, n->negated ? "(NOT (" : "(");
        if (pql_emit_operand(pl, b, n->args[0], false, depth + 1) != 0) return -1;
        text_buf_puts(b, n->op == PO_BETWEEN ? " BETWEEN " : " IN (");
        for (size_t i = 1; i < n->argc; i++) {
            if (i > 1) text_buf_puts(b, n->op == PO_BETWEEN ? " AND " : ", ");
            if (pql_emit_operand(pl, b, n->args[i], false, depth + 1) != 0) return -1;
        }
        text_buf_puts(b, n->op == PO_IN ? ")" : "");
        text_buf_puts(b, n->negated ? "))" : ")");
        return 0;
    default:
        if (pql_emit_operand(pl, b, n->args[0], false, depth + 1) != 0) return -1;
        text_buf_puts(b, pql_cmp_text(n->op));
        return pql_emit_operand(pl, b, n->args[1], false, depth + 1);
    }
}
