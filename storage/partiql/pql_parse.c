/*
 * pql_parse.c - recursive-descent parser of DynamoDB's PartiQL statements.
 *
 * Grammar (the subset DynamoDB accepts; developerguide/ql-reference.*.html):
 *
 *   statement := (select | insert | update | delete | exists) [';']
 *   select    := SELECT ('*' | path {',' path}) FROM source [WHERE cond]
 *                [ORDER BY path [ASC|DESC] {',' path [ASC|DESC]}]
 *   exists    := EXISTS '(' select ')'            (ExecuteTransaction only)
 *   insert    := INSERT INTO name VALUE value
 *   update    := UPDATE name {SET path '=' value {',' ...} | REMOVE path {',' path}}
 *                [WHERE cond] [RETURNING (ALL|MODIFIED) (OLD|NEW) '*']
 *   delete    := DELETE FROM name [WHERE cond] [RETURNING ALL OLD '*']
 *   source    := name ['.' name]                  (table, or table."index")
 *   cond      := and {OR and};  and := not {AND not};  not := NOT not | pred
 *   pred      := sum [cmp sum | [NOT] BETWEEN sum AND sum | [NOT] IN list
 *                     | IS [NOT] type]
 *   sum       := primary {('+'|'-') primary}
 *   primary   := '(' cond ')' | literal | '?' | path | name '(' [cond {',' cond}] ')'
 *   literal   := 'string' | number | TRUE | FALSE | NULL | MISSING
 *                | '{' 'key' ':' value, ... '}' | '[' value, ... ']' | '<<' value, ... '>>'
 *   path      := name {'.' name | '[' integer ']'}
 *
 * Only syntax is checked here; what a clause means for a table (keys,
 * indexes, parameters) is pql_plan.c's job. Syntax errors are DynamoDB's
 * "Statement wasn't well formed, can't be processed: <detail>"; the details
 * "Expected data manipulation" and "Unexpected token after expression" are
 * AWS's (observed, see conformance/test_partiql.py), the others give the
 * token's position as line:column:length, the form of DynamoDB's other
 * positioned messages.
 *
 * Ownership: every node is chained on the statement (nodes) and freed by
 * pql_stmt_free; names point into the statement's own copy of the text,
 * unquoted in place. Nesting is bounded by PQL_MAX_NESTING.
 */
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/model/number.h"
#include "storage/partiql/pql.h"
#include "storage/partiql/pql_lex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NOT_WELL_FORMED "Statement wasn't well formed, can't be processed: "

struct parser {
    struct pql_stmt *s;
    struct pql_tokens toks;
    size_t i;
    int depth;
    struct ddb_error *err;
    /* Where a literal stands inside the value being parsed ("root", "root.x",
     * "root[1]"), for the number messages; INSERT's item tuple does not add
     * its own keys, each attribute being a root of its own. */
    struct text_buf lit_path;
    bool item_tuple_next;
};

static const struct pql_token *peek(struct parser *p)
{
    return &p->toks.toks[p->i];
}

static const struct pql_token *peek_at(struct parser *p, size_t ahead)
{
    size_t k = p->i + ahead;
    return &p->toks.toks[k < p->toks.count ? k : p->toks.count - 1];
}

static const struct pql_token *advance(struct parser *p)
{
    const struct pql_token *t = peek(p);
    if (t->type != PT_EOF) p->i++;
    return t;
}

static bool is_kw(struct parser *p, const char *kw)
{
    return pql_tok_is(p->s->src, peek(p), kw);
}

static bool accept_kw(struct parser *p, const char *kw)
{
    if (!is_kw(p, kw)) return false;
    p->i++;
    return true;
}

static bool accept(struct parser *p, enum pql_tok type)
{
    if (peek(p)->type != type) return false;
    p->i++;
    return true;
}

void pql_position(const struct pql_stmt *s, uint32_t pos, uint32_t len, char *buf, size_t cap)
{
    size_t line = 1, col = 1;
    for (size_t k = 0; k < pos && k < s->src_len; k++) {
        if (s->src[k] == '\n') {
            line++;
            col = 1;
        } else if (((unsigned char) s->src[k] & 0xC0) != 0x80) {
            col++;
        }
    }
    snprintf(buf, cap, " at %zu:%zu:%u", line, col, (unsigned) len);
}

/* A syntax error at token t. Bytes no token accepts, and strings or comments
 * without their end, get the envelope with nothing after it, as AWS answers
 * a '#' or an unterminated comment (paritysuite tier3 partiqlGrammar). */
static int syntax_error(struct parser *p, const struct pql_token *t, const char *what)
{
    char at[64];
    if (t->type == PT_EOF)
        return ddb_error_set(p->err, DDB_VALIDATION, NOT_WELL_FORMED "Unexpected end of statement");
    if (t->type == PT_UNKNOWN || t->type == PT_UNTERMINATED)
        return ddb_error_set(p->err, DDB_VALIDATION, NOT_WELL_FORMED);
    pql_position(p->s, t->start, t->len, at, sizeof at);
    return ddb_error_set(p->err, DDB_VALIDATION, NOT_WELL_FORMED "%s%s", what, at);
}

/* The message AWS gives a token left after a complete statement. */
static int leftover(struct parser *p)
{
    if (peek(p)->type == PT_UNKNOWN || peek(p)->type == PT_UNTERMINATED)
        return syntax_error(p, peek(p), "");
    return ddb_error_set(p->err, DDB_VALIDATION,
                         NOT_WELL_FORMED "Unexpected token after expression");
}

static int expect(struct parser *p, enum pql_tok type, const char *what)
{
    if (accept(p, type)) return 0;
    return syntax_error(p, peek(p), what);
}

static int expect_kw(struct parser *p, const char *kw)
{
    if (accept_kw(p, kw)) return 0;
    return syntax_error(p, peek(p), "Unexpected token");
}

static struct pql_node *node_new(struct parser *p, enum pql_node_kind kind,
                                 const struct pql_token *t)
{
    struct pql_node *n = xcalloc(1, sizeof *n);
    n->kind = kind;
    n->pos = t->start;
    n->len = t->len;
    value_init_null(&n->lit);
    n->next_alloc = p->s->nodes;
    p->s->nodes = n;
    return n;
}

static void node_add_arg(struct pql_node *n, struct pql_node *arg)
{
    n->args = xrealloc(n->args, (n->argc + 1) * sizeof *n->args);
    n->args[n->argc++] = arg;
}

/* Removes the quotes of a quoted token in place (undoubling inner quotes) and
 * returns its text; the statement's copy is modified, which is fine because
 * nothing reads the raw text of a token twice. */
static const char *unquote(struct parser *p, const struct pql_token *t, size_t *len)
{
    char *s = p->s->src + t->start;
    size_t n = t->len, out = 0;
    if (t->type != PT_QIDENT && t->type != PT_STRING) {
        *len = n;
        return s;
    }
    char quote = s[0];
    for (size_t k = 1; k + 1 < n; k++) {
        s[out++] = s[k];
        if (s[k] == quote && k + 2 < n && s[k + 1] == quote) k++;
    }
    s[out] = '\0';
    *len = out;
    return s;
}

/* Keywords that end an expression or a clause and so are never identifiers
 * where an operand is expected. */
static bool is_reserved(struct parser *p, const struct pql_token *t)
{
    static const char *const words[] = {
        "AND",  "OR",    "NOT",       "BETWEEN", "IN",     "IS",     "WHERE",
        "FROM", "SET",   "REMOVE",    "SELECT",  "VALUE",  "VALUES", "INTO",
        "BY",   "ORDER", "RETURNING", "INSERT",  "UPDATE", "DELETE", NULL,
    };
    for (const char *const *w = words; *w; w++)
        if (pql_tok_is(p->s->src, t, *w)) return true;
    return false;
}

static int parse_cond(struct parser *p, struct pql_node **out);
static int parse_value(struct parser *p, struct pql_node **out);

static int enter(struct parser *p)
{
    if (++p->depth > PQL_MAX_NESTING) return syntax_error(p, peek(p), "Nesting too deep");
    return 0;
}

/* A name: bare identifier or "quoted". The text is NUL-terminated in place
 * only for quoted names; callers keep the length. */
static int parse_name(struct parser *p, const char **name, size_t *len)
{
    const struct pql_token *t = peek(p);
    if ((t->type != PT_IDENT || is_reserved(p, t)) && t->type != PT_QIDENT)
        return syntax_error(p, t, "Unexpected token");
    advance(p);
    *name = unquote(p, t, len);
    return 0;
}

static void path_add(struct pql_node *n, bool is_index, uint32_t index, const char *name,
                     size_t len)
{
    n->steps = xrealloc(n->steps, (n->step_count + 1) * sizeof *n->steps);
    n->steps[n->step_count].is_index = is_index;
    n->steps[n->step_count].index = index;
    n->steps[n->step_count].name = name;
    n->steps[n->step_count].name_len = len;
    n->step_count++;
}

/* The steps after a path's first name. */
static int parse_path_rest(struct parser *p, struct pql_node *n)
{
    for (;;) {
        if (accept(p, PT_DOT)) {
            const char *name;
            size_t len;
            if (parse_name(p, &name, &len) != 0) return -1;
            path_add(n, false, 0, name, len);
        } else if (peek(p)->type == PT_LBRACKET) {
            const struct pql_token *t;
            char digits[16];
            unsigned long long v;
            advance(p);
            t = peek(p);
            if (t->type != PT_NUMBER || t->len >= sizeof digits)
                return syntax_error(p, t, "Unexpected path component");
            memcpy(digits, p->s->src + t->start, t->len);
            digits[t->len] = '\0';
            for (size_t k = 0; k < t->len; k++)
                if (digits[k] < '0' || digits[k] > '9')
                    return syntax_error(p, t, "Unexpected path component");
            v = strtoull(digits, NULL, 10);
            advance(p);
            if (expect(p, PT_RBRACKET, "Unexpected token") != 0) return -1;
            path_add(n, true, v > UINT32_MAX ? UINT32_MAX : (uint32_t) v, NULL, 0);
        } else {
            return 0;
        }
    }
}

static int parse_path(struct parser *p, struct pql_node **out)
{
    const struct pql_token *t = peek(p);
    struct pql_node *n;
    const char *name;
    size_t len;
    if (parse_name(p, &name, &len) != 0) return -1;
    n = node_new(p, PN_PATH, t);
    path_add(n, false, 0, name, len);
    *out = n;
    return parse_path_rest(p, n);
}

/* False when the exponent, or the scale it leaves (digits after the point
 * less the exponent), does not fit a 32-bit integer: AWS cannot convert such
 * a literal and answers the envelope with nothing after it. */
static bool exponent_fits(const char *text, size_t n)
{
    long long exp = 0, frac = 0;
    bool neg = false, in_frac = false;
    size_t i = 0;
    for (; i < n && text[i] != 'e' && text[i] != 'E'; i++) {
        if (text[i] == '.')
            in_frac = true;
        else if (in_frac)
            frac++;
    }
    if (i == n) return true;
    i++;
    if (i < n && (text[i] == '-' || text[i] == '+')) neg = text[i++] == '-';
    for (; i < n; i++) {
        exp = exp * 10 + (text[i] - '0');
        if (exp > 4294967296LL) return false;
    }
    if (neg) exp = -exp;
    if (exp > 2147483647LL || exp < -2147483648LL) return false;
    return frac - exp <= 2147483647LL && frac - exp >= -2147483648LL;
}

/* A number literal with an optional leading minus, checked by DynamoDB's
 * number rules (38 digits, range) with their usual messages. */
static int parse_number(struct parser *p, bool negative, const struct pql_token *at,
                        struct pql_node **out)
{
    const struct pql_token *t = advance(p);
    struct number num;
    char buf[NUMBER_TEXT_MAX], text[160];
    size_t n;
    struct pql_node *node;

    if (t->len + 2 > sizeof text) return syntax_error(p, t, "Unexpected token");
    n = 0;
    if (negative) text[n++] = '-';
    memcpy(text + n, p->s->src + t->start, t->len);
    n += t->len;
    text[n] = '\0';
    if (!exponent_fits(text, n)) return ddb_error_set(p->err, DDB_VALIDATION, NOT_WELL_FORMED);
    if (number_parse(text, n, &num, p->err) != 0) {
        /* DynamoDB names where the literal stands: "... under root.x". */
        struct ddb_error inner = {0};
        ddb_error_move(&inner, p->err);
        ddb_error_set(p->err, inner.code, "%s under %s", inner.message ? inner.message : "",
                      p->lit_path.data ? p->lit_path.data : "root");
        ddb_error_clear(&inner);
        return -1;
    }
    n = number_format(&num, buf, sizeof buf);
    node = node_new(p, PN_LIT, at);
    value_init_number_text(&node->lit, buf, n);
    *out = node;
    return 0;
}

/* '{' 'key' ':' value {',' ...} '}', '[' ... ']', '<<' ... '>>' */
static int parse_collection(struct parser *p, struct pql_node **out)
{
    const struct pql_token *open = advance(p);
    enum pql_tok close = open->type == PT_LBRACE     ? PT_RBRACE
                         : open->type == PT_LBRACKET ? PT_RBRACKET
                                                     : PT_RBAG;
    struct pql_node *n = node_new(p,
                                  open->type == PT_LBRACE     ? PN_TUPLE
                                  : open->type == PT_LBRACKET ? PN_LIST
                                                              : PN_BAG,
                                  open);
    bool item_tuple = p->item_tuple_next && n->kind == PN_TUPLE;
    size_t path_len = p->lit_path.len;

    p->item_tuple_next = false;
    *out = n;
    if (accept(p, close)) return 0;
    for (;;) {
        struct pql_node *v;
        int rc;
        if (n->kind == PN_TUPLE) {
            const struct pql_token *k = peek(p);
            size_t len;
            const char *key;
            if (k->type != PT_STRING) return syntax_error(p, k, "Unexpected token");
            advance(p);
            key = unquote(p, k, &len);
            if (expect(p, PT_COLON, "Unexpected token") != 0) return -1;
            n->keys = xrealloc(n->keys, (n->argc + 1) * sizeof *n->keys);
            n->key_lens = xrealloc(n->key_lens, (n->argc + 1) * sizeof *n->key_lens);
            n->keys[n->argc] = key;
            n->key_lens[n->argc] = len;
        }
        if (n->kind == PN_TUPLE && !item_tuple)
            text_buf_printf(&p->lit_path, ".%.*s", (int) n->key_lens[n->argc], n->keys[n->argc]);
        else if (n->kind == PN_LIST)
            text_buf_printf(&p->lit_path, "[%zu]", n->argc);
        rc = parse_value(p, &v);
        p->lit_path.len = path_len;
        if (p->lit_path.data) p->lit_path.data[path_len] = '\0';
        if (rc != 0) return -1;
        node_add_arg(n, v);
        if (accept(p, close)) return 0;
        if (expect(p, PT_COMMA, "Unexpected token") != 0) return -1;
    }
}

static int parse_primary(struct parser *p, struct pql_node **out)
{
    const struct pql_token *t = peek(p);
    int rc;

    if (enter(p) != 0) return -1;
    switch (t->type) {
    case PT_LPAREN:
        advance(p);
        rc = parse_cond(p, out);
        if (rc == 0) rc = expect(p, PT_RPAREN, "Unexpected token");
        break;
    case PT_STRING: {
        size_t len;
        const char *s;
        advance(p);
        s = unquote(p, t, &len);
        *out = node_new(p, PN_LIT, t);
        value_init_string(&(*out)->lit, s, len);
        rc = 0;
        break;
    }
    case PT_NUMBER: rc = parse_number(p, false, t, out); break;
    case PT_MINUS:
        advance(p);
        if (peek(p)->type != PT_NUMBER) {
            rc = syntax_error(p, peek(p), "Unexpected token");
            break;
        }
        rc = parse_number(p, true, t, out);
        break;
    case PT_QUESTION:
        advance(p);
        *out = node_new(p, PN_PARAM, t);
        (*out)->param_index = p->s->param_count++;
        rc = 0;
        break;
    case PT_LBRACE:
    case PT_LBRACKET:
    case PT_LBAG: rc = parse_collection(p, out); break;
    case PT_IDENT:
        if (peek_at(p, 1)->type != PT_LPAREN &&
            (pql_tok_is(p->s->src, t, "TRUE") || pql_tok_is(p->s->src, t, "FALSE"))) {
            advance(p);
            *out = node_new(p, PN_LIT, t);
            value_init_bool(&(*out)->lit, pql_tok_is(p->s->src, t, "TRUE"));
            rc = 0;
        } else if (pql_tok_is(p->s->src, t, "NULL")) {
            advance(p);
            *out = node_new(p, PN_LIT, t);
            rc = 0;
        } else if (pql_tok_is(p->s->src, t, "MISSING") && peek_at(p, 1)->type != PT_LPAREN) {
            advance(p);
            *out = node_new(p, PN_LIT, t);
            (*out)->missing = true;
            rc = 0;
        } else if (peek_at(p, 1)->type == PT_LPAREN && !is_reserved(p, t)) {
            struct pql_node *call = node_new(p, PN_CALL, t);
            advance(p);
            advance(p);
            call->name = p->s->src + t->start;
            call->name_len = t->len;
            *out = call;
            rc = 0;
            if (!accept(p, PT_RPAREN)) {
                for (;;) {
                    struct pql_node *arg;
                    if (peek(p)->type == PT_STAR) {
                        /* COUNT(*) and the like: DynamoDB has no aggregates. */
                        rc = ddb_error_set(p->err, DDB_VALIDATION, "Unsupported operation: %.*s",
                                           (int) t->len, p->s->src + t->start);
                        break;
                    }
                    if ((rc = parse_cond(p, &arg)) != 0) break;
                    node_add_arg(call, arg);
                    if (accept(p, PT_RPAREN)) break;
                    if ((rc = expect(p, PT_COMMA, "Unexpected token")) != 0) break;
                }
            }
        } else {
            rc = parse_path(p, out);
        }
        break;
    case PT_QIDENT: rc = parse_path(p, out); break;
    default: rc = syntax_error(p, t, "Unexpected token"); break;
    }
    p->depth--;
    return rc;
}

static int parse_sum(struct parser *p, struct pql_node **out)
{
    if (parse_primary(p, out) != 0) return -1;
    while (peek(p)->type == PT_PLUS || peek(p)->type == PT_MINUS) {
        const struct pql_token *t = advance(p);
        struct pql_node *n = node_new(p, PN_OP, t), *rhs;
        n->op = t->type == PT_PLUS ? PO_PLUS : PO_MINUS;
        node_add_arg(n, *out);
        if (parse_primary(p, &rhs) != 0) return -1;
        node_add_arg(n, rhs);
        *out = n;
    }
    return 0;
}

/* A value in INSERT's VALUE and SET's right-hand side. */
static int parse_value(struct parser *p, struct pql_node **out)
{
    return parse_sum(p, out);
}

static const struct {
    enum pql_tok tok;
    enum pql_op op;
} comparators[] = {
    {PT_EQ, PO_EQ}, {PT_NE, PO_NE}, {PT_LT, PO_LT}, {PT_LE, PO_LE}, {PT_GT, PO_GT}, {PT_GE, PO_GE},
};

static int parse_pred(struct parser *p, struct pql_node **out)
{
    const struct pql_token *t;
    struct pql_node *lhs, *n;
    bool negated = false;

    if (parse_sum(p, &lhs) != 0) return -1;
    *out = lhs;
    t = peek(p);
    for (size_t k = 0; k < sizeof comparators / sizeof comparators[0]; k++) {
        if (t->type != comparators[k].tok) continue;
        advance(p);
        n = node_new(p, PN_OP, t);
        n->op = comparators[k].op;
        node_add_arg(n, lhs);
        *out = n;
        if (parse_sum(p, &lhs) != 0) return -1;
        node_add_arg(n, lhs);
        return 0;
    }
    if (pql_tok_is(p->s->src, t, "IS")) {
        const struct pql_token *type;
        advance(p);
        n = node_new(p, PN_OP, t);
        n->op = PO_IS;
        node_add_arg(n, lhs);
        *out = n;
        n->negated = accept_kw(p, "NOT");
        type = peek(p);
        if (type->type != PT_IDENT || type->len >= sizeof n->is_type)
            return syntax_error(p, type, "Unexpected token");
        advance(p);
        for (size_t k = 0; k < type->len; k++) {
            char c = p->s->src[type->start + k];
            n->is_type[k] = (char) (c >= 'a' && c <= 'z' ? c - 32 : c);
        }
        return 0;
    }
    if (pql_tok_is(p->s->src, t, "NOT") && (pql_tok_is(p->s->src, peek_at(p, 1), "BETWEEN") ||
                                            pql_tok_is(p->s->src, peek_at(p, 1), "IN"))) {
        advance(p);
        negated = true;
        t = peek(p);
    }
    if (pql_tok_is(p->s->src, t, "BETWEEN")) {
        struct pql_node *lo, *hi;
        advance(p);
        n = node_new(p, PN_OP, t);
        n->op = PO_BETWEEN;
        n->negated = negated;
        node_add_arg(n, lhs);
        *out = n;
        if (parse_sum(p, &lo) != 0) return -1;
        node_add_arg(n, lo);
        if (expect_kw(p, "AND") != 0) return -1;
        if (parse_sum(p, &hi) != 0) return -1;
        node_add_arg(n, hi);
        return 0;
    }
    if (pql_tok_is(p->s->src, t, "IN")) {
        enum pql_tok close;
        advance(p);
        n = node_new(p, PN_OP, t);
        n->op = PO_IN;
        n->negated = negated;
        node_add_arg(n, lhs);
        *out = n;
        if (peek(p)->type == PT_LBRACKET)
            close = PT_RBRACKET;
        else if (peek(p)->type == PT_LPAREN)
            close = PT_RPAREN;
        else
            return ddb_error_set(p->err, DDB_VALIDATION,
                                 "IN operator must have a left hand argument of type Variable "
                                 "Reference and right hand argument of type Seq with at least one "
                                 "member");
        advance(p);
        if (peek(p)->type == close)
            return ddb_error_set(p->err, DDB_VALIDATION,
                                 "IN operator must have a left hand argument of type Variable "
                                 "Reference and right hand argument of type Seq with at least one "
                                 "member");
        for (;;) {
            struct pql_node *v;
            if (parse_sum(p, &v) != 0) return -1;
            node_add_arg(n, v);
            if (accept(p, close)) return 0;
            if (expect(p, PT_COMMA, "Unexpected token") != 0) return -1;
        }
    }
    return 0;
}

static int parse_not(struct parser *p, struct pql_node **out)
{
    if (is_kw(p, "NOT")) {
        const struct pql_token *t = advance(p);
        struct pql_node *n = node_new(p, PN_OP, t), *arg;
        int rc;
        n->op = PO_NOT;
        *out = n;
        if (enter(p) != 0) return -1;
        rc = parse_not(p, &arg);
        p->depth--;
        if (rc != 0) return -1;
        node_add_arg(n, arg);
        return 0;
    }
    return parse_pred(p, out);
}

static int parse_binary(struct parser *p, struct pql_node **out, const char *kw, enum pql_op op,
                        int (*sub)(struct parser *, struct pql_node **))
{
    struct pql_node *n = NULL;
    if (sub(p, out) != 0) return -1;
    while (is_kw(p, kw)) {
        const struct pql_token *t = advance(p);
        struct pql_node *rhs;
        if (!n) {
            n = node_new(p, PN_OP, t);
            n->op = op;
            node_add_arg(n, *out);
            *out = n;
        }
        if (sub(p, &rhs) != 0) return -1;
        node_add_arg(n, rhs);
    }
    return 0;
}

static int parse_and(struct parser *p, struct pql_node **out)
{
    return parse_binary(p, out, "AND", PO_AND, parse_not);
}

static int parse_cond(struct parser *p, struct pql_node **out)
{
    return parse_binary(p, out, "OR", PO_OR, parse_and);
}

/* After a table name, a name that starts no clause is an alias, which
 * DynamoDB refuses with its own text (paritysuite tier3 partiqlGrammar). */
static int check_alias(struct parser *p)
{
    static const char *const clauses[] = {"WHERE", "ORDER", "SET", "REMOVE", "RETURNING", NULL};
    const struct pql_token *t = peek(p);
    if (t->type == PT_QIDENT)
        return ddb_error_set(p->err, DDB_VALIDATION, "Aliasing is not supported");
    if (t->type != PT_IDENT) return 0;
    for (const char *const *c = clauses; *c; c++)
        if (pql_tok_is(p->s->src, t, *c)) return 0;
    return ddb_error_set(p->err, DDB_VALIDATION, "Aliasing is not supported");
}

/* FROM's source: name, or name.name for an index. */
static int parse_source(struct parser *p, bool aliasable)
{
    const char *name;
    size_t len;
    if (parse_name(p, &name, &len) != 0) return -1;
    p->s->table = xmemdup(name, len);
    if (accept(p, PT_DOT)) {
        if (parse_name(p, &name, &len) != 0) return -1;
        p->s->index = xmemdup(name, len);
        if (peek(p)->type == PT_DOT)
            return ddb_error_set(p->err, DDB_VALIDATION,
                                 "A path may contain at most 2 components in the FROM clause");
    }
    return aliasable ? check_alias(p) : 0;
}

static int parse_where(struct parser *p)
{
    if (!accept_kw(p, "WHERE")) return 0;
    return parse_cond(p, &p->s->where);
}

static int parse_select(struct parser *p)
{
    struct pql_stmt *s = p->s;
    if (accept(p, PT_STAR)) {
        s->star = true;
    } else {
        for (;;) {
            struct pql_node *path;
            const struct pql_token *t = peek(p);
            char at[64];
            if (t->type == PT_STAR)
                return ddb_error_set(p->err, DDB_VALIDATION,
                                     "Other attributes should not be present in the projection "
                                     "when '*' is used.");
            if (t->type == PT_IDENT && peek_at(p, 1)->type == PT_LPAREN) {
                /* A function (COUNT(*), attribute_exists(x)) is no path. */
                pql_position(p->s, t->start, t->len, at, sizeof at);
                return ddb_error_set(p->err, DDB_VALIDATION, "Unexpected path component%s", at);
            }
            if (parse_primary(p, &path) != 0) return -1;
            if (path->kind != PN_PATH)
                return ddb_error_set(p->err, DDB_VALIDATION, "Unexpected path component");
            s->projection = xrealloc(s->projection, (s->projection_count + 1) * sizeof(void *));
            s->projection[s->projection_count++] = path;
            if (!accept(p, PT_COMMA)) break;
        }
        if (peek(p)->type == PT_STAR)
            return ddb_error_set(p->err, DDB_VALIDATION,
                                 "Other attributes should not be present in the projection when "
                                 "'*' is used.");
    }
    if (expect_kw(p, "FROM") != 0) return -1;
    if (parse_source(p, true) != 0) return -1;
    if (parse_where(p) != 0) return -1;
    if (accept_kw(p, "ORDER")) {
        if (expect_kw(p, "BY") != 0) return -1;
        for (;;) {
            struct pql_order o = {0};
            if (parse_path(p, &o.path) != 0) return -1;
            if (accept_kw(p, "DESC"))
                o.desc = true;
            else
                accept_kw(p, "ASC");
            s->order = xrealloc(s->order, (s->order_count + 1) * sizeof *s->order);
            s->order[s->order_count++] = o;
            if (!accept(p, PT_COMMA)) break;
        }
    }
    return 0;
}

static int parse_returning(struct parser *p)
{
    bool all, old;
    if (!accept_kw(p, "RETURNING")) return 0;
    if (accept_kw(p, "ALL"))
        all = true;
    else if (accept_kw(p, "MODIFIED"))
        all = false;
    else
        return syntax_error(p, peek(p), "Unexpected token");
    if (accept_kw(p, "OLD"))
        old = true;
    else if (accept_kw(p, "NEW"))
        old = false;
    else
        return syntax_error(p, peek(p), "Unexpected token");
    if (!accept(p, PT_STAR))
        return ddb_error_set(p->err, DDB_VALIDATION,
                             "Expected '*' after ( MODIFIED | ALL ) ( NEW | OLD ) in RETURNING "
                             "clause");
    p->s->returning = all ? (old ? PQL_RETURN_ALL_OLD : PQL_RETURN_ALL_NEW)
                          : (old ? PQL_RETURN_MODIFIED_OLD : PQL_RETURN_MODIFIED_NEW);
    return 0;
}

static int parse_update(struct parser *p)
{
    struct pql_stmt *s = p->s;
    const char *name;
    size_t len;

    if (parse_name(p, &name, &len) != 0) return -1;
    s->table = xmemdup(name, len);
    if (accept(p, PT_DOT)) {
        if (parse_name(p, &name, &len) != 0) return -1;
        s->index = xmemdup(name, len);
    }
    if (check_alias(p) != 0) return -1;
    for (;;) {
        enum pql_assign_kind kind;
        if (accept_kw(p, "SET"))
            kind = PA_SET;
        else if (accept_kw(p, "REMOVE"))
            kind = PA_REMOVE;
        else
            break;
        for (;;) {
            struct pql_assign a = {.kind = kind};
            if (parse_path(p, &a.path) != 0) return -1;
            if (kind == PA_SET) {
                if (expect(p, PT_EQ, "Unexpected token") != 0) return -1;
                if (parse_value(p, &a.value) != 0) return -1;
            }
            s->assigns = xrealloc(s->assigns, (s->assign_count + 1) * sizeof *s->assigns);
            s->assigns[s->assign_count++] = a;
            if (!accept(p, PT_COMMA)) break;
        }
    }
    if (s->assign_count == 0) return syntax_error(p, peek(p), "Unexpected token");
    if (parse_where(p) != 0) return -1;
    return parse_returning(p);
}

static int parse_statement(struct parser *p)
{
    struct pql_stmt *s = p->s;

    if (accept_kw(p, "SELECT")) {
        s->kind = PQL_SELECT;
        if (parse_select(p) != 0) return -1;
    } else if (accept_kw(p, "EXISTS")) {
        s->kind = PQL_EXISTS;
        if (expect(p, PT_LPAREN, "Unexpected token") != 0) return -1;
        if (expect_kw(p, "SELECT") != 0) return -1;
        if (parse_select(p) != 0) return -1;
        if (expect(p, PT_RPAREN, "Unexpected token") != 0) return -1;
    } else if (accept_kw(p, "INSERT")) {
        s->kind = PQL_INSERT;
        if (expect_kw(p, "INTO") != 0) return -1;
        if (parse_source(p, false) != 0) return -1;
        if (!is_kw(p, "VALUE") && !is_kw(p, "VALUES")) return leftover(p);
        if (is_kw(p, "VALUES"))
            return ddb_error_set(p->err, DDB_VALIDATION,
                                 "Unsupported operation: Inserting multiple items in a single "
                                 "statement is not supported, use \"INSERT INTO tableName VALUE "
                                 "item\" instead");
        if (expect_kw(p, "VALUE") != 0) return -1;
        p->item_tuple_next = peek(p)->type == PT_LBRACE;
        if (parse_value(p, &s->value) != 0) return -1;
        if (is_kw(p, "RETURNING"))
            return ddb_error_set(p->err, DDB_VALIDATION, "RETURNING is not supported in INSERT");
    } else if (accept_kw(p, "UPDATE")) {
        s->kind = PQL_UPDATE;
        if (parse_update(p) != 0) return -1;
    } else if (accept_kw(p, "DELETE")) {
        s->kind = PQL_DELETE;
        if (expect_kw(p, "FROM") != 0) return -1;
        if (parse_source(p, true) != 0) return -1;
        if (parse_where(p) != 0) return -1;
        if (parse_returning(p) != 0) return -1;
    } else {
        return ddb_error_set(p->err, DDB_VALIDATION, NOT_WELL_FORMED "Expected data manipulation");
    }
    accept(p, PT_SEMICOLON);
    if (peek(p)->type != PT_EOF) return leftover(p);
    return 0;
}

int pql_parse(const char *text, size_t len, struct pql_stmt **out, struct ddb_error *err)
{
    struct parser p;
    struct pql_stmt *s = xcalloc(1, sizeof *s);
    int rc;

    s->src = xmemdup(text, len);
    s->src_len = len;
    memset(&p, 0, sizeof p);
    p.s = s;
    p.err = err;
    text_buf_init(&p.lit_path);
    text_buf_puts(&p.lit_path, "root");
    pql_lex(s->src, len, &p.toks);
    /* A string, quoted name or comment without its end. */
    for (size_t k = 0; k < p.toks.count; k++) {
        if (p.toks.toks[k].type == PT_UNTERMINATED) {
            rc = syntax_error(&p, &p.toks.toks[k], "Unterminated token");
            goto out;
        }
    }
    rc = parse_statement(&p);
out:
    text_buf_clear(&p.lit_path);
    pql_tokens_clear(&p.toks);
    if (rc != 0) {
        pql_stmt_free(s);
        *out = NULL;
        return -1;
    }
    *out = s;
    return 0;
}

void pql_stmt_free(struct pql_stmt *s)
{
    struct pql_node *n, *next;
    if (!s) return;
    for (n = s->nodes; n; n = next) {
        next = n->next_alloc;
        value_clear(&n->lit);
        free(n->steps);
        free(n->args);
        free(n->keys);
        free(n->key_lens);
        free(n);
    }
    free(s->projection);
    free(s->order);
    free(s->assigns);
    free(s->table);
    free(s->index);
    free(s->src);
    free(s);
}
