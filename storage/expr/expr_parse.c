/*
 * expr_parse.c - the one parser for every expression kind, and expr_parse().
 *
 * The grammar is DynamoDB's (DynamoDbGrammar.g4 in the DAX client), written here
 * as recursive descent:
 *
 *   projection : path (',' path)* EOF
 *   condition  : or EOF
 *   or         : and (OR and)*                      right-associative
 *   and        : unary (AND unary)*                 right-associative
 *   unary      : NOT unary | primary               NOT binds tighter than AND
 *   primary    : operand comparator operand
 *              | operand IN '(' operand (',' operand)* ')'
 *              | operand BETWEEN operand AND operand
 *              | func                               a function as a condition
 *              | '(' or ')'
 *   update     : (SET set_action (',' set_action)* | REMOVE path (',' path)*
 *                | ADD path :value (',' ...)* | DELETE path :value (',' ...)*)+ EOF
 *   set_action : path '=' (arith | operand)
 *   arith      : operand ('+'|'-') operand | '(' arith ')'
 *   operand    : func | path | :value | '(' operand ')'
 *   func       : ID '(' operand (',' operand)* ')'
 *   path       : (ID | #name) ('.' (ID | #name) | '[' INDEX ']')*
 *
 * This file only knows syntax: which function names exist, reserved words,
 * #names and :values are expr_check.c's business, in DynamoDB's order.
 *
 * Error positions. DynamoDB's ANTLR parser reports the first token its adaptive
 * prediction cannot continue with, quoting it and its neighbours: "Syntax
 * error; token: "<tok>", near: "<prev tok><spaces><tok><spaces><next tok>""
 * (ExpressionErrorListener in DynamoDB Local; EOF prints as <EOF> in token and as
 * nothing in near). A recursive-descent parser that remembers the furthest token
 * any alternative failed at reports the same token: ANTLR commits to the
 * alternative that survives longest, so its failure point is the furthest one.
 * Alternatives are tried longest-first (comparator before function condition,
 * arithmetic before a plain operand) and operands are memoized per token, which
 * keeps the parse linear even for "((((...".
 *
 * "The expression has redundant parentheses;" is raised by DynamoDB while
 * parsing, when a parenthesized condition, operand or arithmetic is itself
 * directly parenthesized ("((a))"), at that group's closing parenthesis: so it
 * wins over a syntax error further right but not over one further left. Each
 * parse result carries the position of the first such parenthesis in it (red),
 * and each failure records the red of what was already parsed before it.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/base/thread_cache.h"
#include "storage/expr/expr_ast.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- parser ---- */

#define NO_RED SIZE_MAX

struct memo {
    bool done;
    bool ok;
    size_t end;
    size_t red;
    struct expr_node *node;
};

struct parser {
    struct expr *e;
    const struct expr_token *t;
    size_t n; /* tokens, the last one EOF */
    const char *src;
    size_t fail_pos; /* furthest token an alternative failed at */
    size_t fail_red; /* redundant ')' parsed before that failure, or NO_RED */
    bool failed;
    size_t depth;
    bool too_deep;
    size_t deep_pos;
    struct memo *memo; /* operand results per token */
    /* update and projection results, collected in document order */
    struct expr_action *actions;
    size_t action_count, action_cap;
    struct expr_section *sections;
    size_t section_count, section_cap;
    struct expr_path *paths;
    size_t path_count, path_cap;
};

struct res {
    bool ok;
    size_t end; /* first token after the construct */
    size_t red; /* first redundant closing parenthesis inside, or NO_RED */
    struct expr_node *node;
};

static const struct res FAIL = {false, 0, NO_RED, NULL};

static size_t min_sz(size_t a, size_t b)
{
    return a < b ? a : b;
}

static enum expr_tok T(const struct parser *p, size_t i)
{
    return p->t[i < p->n ? i : p->n - 1].type;
}

static void fail(struct parser *p, size_t pos, size_t red)
{
    if (pos >= p->n) pos = p->n - 1;
    if (!p->failed || pos > p->fail_pos) {
        p->fail_pos = pos;
        p->fail_red = red;
    } else if (pos == p->fail_pos) {
        p->fail_red = min_sz(p->fail_red, red);
    }
    p->failed = true;
}

static bool enter(struct parser *p, size_t pos)
{
    if (p->too_deep) return false;
    if (++p->depth > EXPR_MAX_NESTING) {
        p->too_deep = true;
        p->deep_pos = pos;
        return false;
    }
    return true;
}

static void leave(struct parser *p)
{
    p->depth--;
}

static struct expr_node *new_node(struct parser *p, enum expr_node_kind kind)
{
    struct expr_node *n = expr_alloc(p->e, sizeof *n);
    n->kind = kind;
    return n;
}

static struct expr_node *new_op(struct parser *p, enum expr_op op, size_t argc)
{
    struct expr_node *n = new_node(p, EN_OP);
    n->op = op;
    n->argc = argc;
    n->args = expr_alloc(p->e, argc * sizeof *n->args);
    return n;
}

/* A parenthesized construct: the same node marked parens, without touching the
 * original, which the operand memo may hand out again. */
static struct expr_node *with_parens(struct parser *p, const struct expr_node *inner)
{
    struct expr_node *n = expr_alloc(p->e, sizeof *n);
    *n = *inner;
    n->parens = true;
    return n;
}

/* A growable array of node pointers, freed by its user. */
struct nodevec {
    struct expr_node **v;
    size_t n, cap;
};

static void nodevec_push(struct nodevec *nv, struct expr_node *node)
{
    if (nv->n == nv->cap) {
        nv->cap = nv->cap ? nv->cap * 2 : 4;
        nv->v = xrealloc(nv->v, nv->cap * sizeof *nv->v);
    }
    nv->v[nv->n++] = node;
}

static struct expr_node *op_from_vec(struct parser *p, enum expr_op op, const struct nodevec *nv)
{
    struct expr_node *n = new_op(p, op, nv->n);
    memcpy(n->args, nv->v, nv->n * sizeof *nv->v);
    return n;
}

static void fill_elem(struct parser *p, struct expr_path_elem *el, size_t tok)
{
    const struct expr_token *t = &p->t[tok];
    const char *text = p->src + t->start;

    el->text = text;
    el->text_len = t->len;
    if (t->type == TOK_INDEX) {
        uint64_t v = 0;
        el->is_index = true;
        for (size_t i = 0; i < t->len && !el->index_too_big; i++) {
            v = v * 10 + (uint64_t) (text[i] - '0');
            if (v > INT32_MAX) el->index_too_big = true; /* Java's Integer.valueOf */
        }
        el->index = el->index_too_big ? 0 : (uint32_t) v;
    } else {
        el->is_ref = t->type == TOK_NAME_REF;
        el->name = text;
        el->name_len = t->len;
    }
}

/* path: (ID | #name) ('.' (ID | #name) | '[' INDEX ']')* */
static struct res parse_path(struct parser *p, size_t i, size_t red)
{
    struct res r = FAIL;
    size_t j = i + 1, count = 1, k = 0;

    if (T(p, i) != TOK_ID && T(p, i) != TOK_NAME_REF) {
        fail(p, i, red);
        return r;
    }
    for (;;) {
        if (T(p, j) == TOK_DOT) {
            if (T(p, j + 1) != TOK_ID && T(p, j + 1) != TOK_NAME_REF) {
                fail(p, j + 1, red);
                break;
            }
            j += 2;
        } else if (T(p, j) == TOK_LBRACKET) {
            if (T(p, j + 1) != TOK_INDEX) {
                fail(p, j + 1, red);
                break;
            }
            if (T(p, j + 2) != TOK_RBRACKET) {
                fail(p, j + 2, red);
                break;
            }
            j += 3;
        } else {
            break;
        }
        count++;
    }
    r.node = new_node(p, EN_PATH);
    r.node->path.count = count;
    r.node->path.elems = expr_alloc(p->e, count * sizeof *r.node->path.elems);
    fill_elem(p, &r.node->path.elems[k++], i);
    for (size_t x = i + 1; x < j;) {
        if (T(p, x) == TOK_DOT) {
            fill_elem(p, &r.node->path.elems[k++], x + 1);
            x += 2;
        } else {
            fill_elem(p, &r.node->path.elems[k++], x + 1);
            x += 3;
        }
    }
    assert(k == count);
    r.ok = true;
    r.end = j;
    r.red = NO_RED;
    return r;
}

static const struct {
    const char *name;
    enum expr_op op;
} functions[] = {
    {"attribute_exists", OP_ATTRIBUTE_EXISTS},
    {"attribute_not_exists", OP_ATTRIBUTE_NOT_EXISTS},
    {"attribute_type", OP_ATTRIBUTE_TYPE},
    {"begins_with", OP_BEGINS_WITH},
    {"contains", OP_CONTAINS},
    {"size", OP_SIZE},
    {"if_not_exists", OP_IF_NOT_EXISTS},
    {"list_append", OP_LIST_APPEND},
};

/* Function names are case-sensitive (scylla test_update_expression.py:
 * LIST_APPEND is refused while SET is accepted in any case). */
static enum expr_op function_op(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof functions / sizeof functions[0]; i++) {
        if (strlen(functions[i].name) == len && memcmp(functions[i].name, name, len) == 0)
            return functions[i].op;
    }
    return OP_FUNC_UNKNOWN;
}

static struct res parse_operand(struct parser *p, size_t i, size_t red);

/* func: ID '(' operand (',' operand)* ')' */
static struct res parse_func(struct parser *p, size_t i, size_t red)
{
    struct res r = FAIL;
    struct nodevec args = {0};
    size_t j = i + 2, ared = NO_RED;

    assert(T(p, i) == TOK_ID && T(p, i + 1) == TOK_LPAREN);
    if (!enter(p, i + 1)) return r;
    for (;;) {
        struct res a = parse_operand(p, j, min_sz(red, ared));
        if (!a.ok) goto out;
        nodevec_push(&args, a.node);
        ared = min_sz(ared, a.red);
        j = a.end;
        if (T(p, j) == TOK_COMMA) {
            j++;
            continue;
        }
        if (T(p, j) == TOK_RPAREN) break;
        fail(p, j, min_sz(red, ared));
        goto out;
    }
    r.node = op_from_vec(p, function_op(p->src + p->t[i].start, p->t[i].len), &args);
    r.node->ref = p->src + p->t[i].start;
    r.node->ref_len = p->t[i].len;
    r.ok = true;
    r.end = j + 1;
    r.red = ared;
out:
    leave(p);
    free(args.v);
    return r;
}

static struct res parse_operand_uncached(struct parser *p, size_t i, size_t red)
{
    struct res r = FAIL;

    switch (T(p, i)) {
    case TOK_ID:
        if (T(p, i + 1) == TOK_LPAREN) {
            r = parse_func(p, i, red);
            if (r.ok) return r;
        }
        return parse_path(p, i, red);
    case TOK_NAME_REF: return parse_path(p, i, red);
    case TOK_VALUE_REF:
        r.node = new_node(p, EN_VALUE);
        r.node->ref = p->src + p->t[i].start;
        r.node->ref_len = p->t[i].len;
        r.ok = true;
        r.end = i + 1;
        r.red = NO_RED;
        return r;
    case TOK_LPAREN: {
        struct res in;
        if (!enter(p, i)) return r;
        in = parse_operand(p, i + 1, red);
        leave(p);
        if (!in.ok) return r;
        if (T(p, in.end) != TOK_RPAREN) {
            fail(p, in.end, min_sz(red, in.red));
            return r;
        }
        r.ok = true;
        r.end = in.end + 1;
        r.red = in.node->parens ? min_sz(in.red, in.end) : in.red;
        r.node = with_parens(p, in.node);
        return r;
    }
    default: fail(p, i, red); return r;
    }
}

/* operand: func | path | :value | '(' operand ')', memoized per start token. */
static struct res parse_operand(struct parser *p, size_t i, size_t red)
{
    struct memo *m;
    struct res r;

    if (p->too_deep) return FAIL;
    if (i >= p->n) i = p->n - 1;
    m = &p->memo[i];
    if (m->done) return (struct res){m->ok, m->end, m->red, m->node};
    r = parse_operand_uncached(p, i, red);
    if (p->too_deep) return FAIL; /* not memoized: the whole parse is over */
    *m = (struct memo){true, r.ok, r.end, r.red, r.node};
    return r;
}

static struct res parse_or(struct parser *p, size_t i, size_t red);

static enum expr_op comparator(enum expr_tok t)
{
    switch (t) {
    case TOK_EQ: return OP_EQ;
    case TOK_NE: return OP_NE;
    case TOK_LT: return OP_LT;
    case TOK_LE: return OP_LE;
    case TOK_GT: return OP_GT;
    case TOK_GE: return OP_GE;
    default: return OP_FUNC_UNKNOWN;
    }
}

static bool is_function(const struct expr_node *n)
{
    return n->kind == EN_OP && n->op >= OP_FUNC_UNKNOWN;
}

/* The operand-led alternatives of primary, once operand o has been parsed. */
static struct res parse_after_operand(struct parser *p, struct res o, size_t red)
{
    struct res r = FAIL, a, b;
    size_t j = o.end, cred = min_sz(red, o.red);
    enum expr_op op = comparator(T(p, j));
    struct nodevec list = {0};

    if (op != OP_FUNC_UNKNOWN) {
        a = parse_operand(p, j + 1, cred);
        if (!a.ok) return r;
        r.node = new_op(p, op, 2);
        r.node->args[0] = o.node;
        r.node->args[1] = a.node;
        r.ok = true;
        r.end = a.end;
        r.red = min_sz(o.red, a.red);
        return r;
    }
    if (T(p, j) == TOK_IN) {
        size_t k = j + 2;
        if (T(p, j + 1) != TOK_LPAREN) {
            fail(p, j + 1, cred);
            return r;
        }
        nodevec_push(&list, o.node);
        r.red = o.red;
        for (;;) {
            a = parse_operand(p, k, min_sz(cred, r.red));
            if (!a.ok) goto out;
            nodevec_push(&list, a.node);
            r.red = min_sz(r.red, a.red);
            k = a.end;
            if (T(p, k) == TOK_COMMA) {
                k++;
                continue;
            }
            if (T(p, k) == TOK_RPAREN) break;
            fail(p, k, min_sz(cred, r.red));
            goto out;
        }
        r.node = op_from_vec(p, OP_IN, &list);
        r.ok = true;
        r.end = k + 1;
        goto out;
    }
    if (T(p, j) == TOK_BETWEEN) {
        a = parse_operand(p, j + 1, cred);
        if (!a.ok) return r;
        if (T(p, a.end) != TOK_AND) {
            fail(p, a.end, min_sz(cred, a.red));
            return r;
        }
        b = parse_operand(p, a.end + 1, min_sz(cred, a.red));
        if (!b.ok) return r;
        r.node = new_op(p, OP_BETWEEN, 3);
        r.node->args[0] = o.node;
        r.node->args[1] = a.node;
        r.node->args[2] = b.node;
        r.ok = true;
        r.end = b.end;
        r.red = min_sz(o.red, min_sz(a.red, b.red));
        return r;
    }
    if (is_function(o.node) && !o.node->parens) return o; /* a function as a condition */
    /* Nothing can follow the operand: DynamoDB had not committed to it, so a
     * redundant parenthesis inside it does not count (red, not cred). */
    fail(p, j, red);
    return r;
out:
    free(list.v);
    return r;
}

/* primary: the operand-led forms, a function, or '(' or ')' */
static struct res parse_primary(struct parser *p, size_t i, size_t red)
{
    struct res o = parse_operand(p, i, red), c;

    if (o.ok) {
        struct res r = parse_after_operand(p, o, red);
        if (r.ok) return r;
        if (p->too_deep) return FAIL;
    }
    if (T(p, i) != TOK_LPAREN || !enter(p, i)) return FAIL;
    c = parse_or(p, i + 1, red);
    leave(p);
    if (!c.ok) return FAIL;
    if (T(p, c.end) != TOK_RPAREN) {
        fail(p, c.end, min_sz(red, c.red));
        return FAIL;
    }
    return (struct res){true, c.end + 1, c.node->parens ? min_sz(c.red, c.end) : c.red,
                        with_parens(p, c.node)};
}

/* unary: NOT unary | primary */
static struct res parse_unary(struct parser *p, size_t i, size_t red)
{
    struct res r;

    if (T(p, i) != TOK_NOT) return parse_primary(p, i, red);
    if (!enter(p, i)) return FAIL;
    r = parse_unary(p, i + 1, red);
    leave(p);
    if (!r.ok) return FAIL;
    struct expr_node *n = new_op(p, OP_NOT, 1);
    n->args[0] = r.node;
    r.node = n;
    return r;
}

/* A chain of operands joined by `sep`, nested to the right (DynamoDB's
 * <assoc=right>): a AND b AND c is a AND (b AND c). */
static struct res parse_chain(struct parser *p, size_t i, size_t red, enum expr_tok sep,
                              enum expr_op op, struct res (*sub)(struct parser *, size_t, size_t))
{
    struct res first = sub(p, i, red), r;
    struct nodevec items = {0};

    if (!first.ok || T(p, first.end) != sep) return first;
    r = first;
    nodevec_push(&items, first.node);
    while (T(p, r.end) == sep) {
        struct res next = sub(p, r.end + 1, min_sz(red, r.red));
        if (!next.ok) break;
        nodevec_push(&items, next.node);
        r.end = next.end;
        r.red = min_sz(r.red, next.red);
    }
    r.node = items.v[items.n - 1];
    for (size_t k = items.n - 1; k-- > 0;) {
        struct expr_node *n = new_op(p, op, 2);
        n->args[0] = items.v[k];
        n->args[1] = r.node;
        r.node = n;
    }
    free(items.v);
    return r;
}

static struct res parse_and(struct parser *p, size_t i, size_t red)
{
    return parse_chain(p, i, red, TOK_AND, OP_AND, parse_unary);
}

static struct res parse_or(struct parser *p, size_t i, size_t red)
{
    return parse_chain(p, i, red, TOK_OR, OP_OR, parse_and);
}

/* arith: operand ('+'|'-') operand | '(' arith ')' */
static struct res parse_arith(struct parser *p, size_t i, size_t red)
{
    struct res o = parse_operand(p, i, red), a, r = FAIL;

    if (o.ok && (T(p, o.end) == TOK_PLUS || T(p, o.end) == TOK_MINUS)) {
        a = parse_operand(p, o.end + 1, min_sz(red, o.red));
        if (!a.ok) return r;
        r.node = new_op(p, T(p, o.end) == TOK_PLUS ? OP_PLUS : OP_MINUS, 2);
        r.node->args[0] = o.node;
        r.node->args[1] = a.node;
        r.ok = true;
        r.end = a.end;
        r.red = min_sz(o.red, a.red);
        return r;
    }
    if (o.ok) fail(p, o.end, red);
    if (T(p, i) != TOK_LPAREN || !enter(p, i)) return r;
    a = parse_arith(p, i + 1, red);
    leave(p);
    if (!a.ok) return r;
    if (T(p, a.end) != TOK_RPAREN) {
        fail(p, a.end, min_sz(red, a.red));
        return r;
    }
    r.ok = true;
    r.end = a.end + 1;
    r.red = a.node->parens ? min_sz(a.red, a.end) : a.red;
    r.node = with_parens(p, a.node);
    return r;
}

static void push_action(struct parser *p, enum expr_action_kind kind, struct expr_path path,
                        struct expr_node *value)
{
    if (p->action_count == p->action_cap) {
        p->action_cap = p->action_cap ? p->action_cap * 2 : 8;
        p->actions = thread_cache_grow(p->actions, p->action_count * sizeof *p->actions,
                                       p->action_cap * sizeof *p->actions);
    }
    p->actions[p->action_count++] = (struct expr_action){kind, path, value};
}

/* One action of a section; appends it to p->actions on success. */
static struct res parse_action(struct parser *p, enum expr_action_kind kind, size_t i, size_t red)
{
    struct res path = parse_path(p, i, red), v = FAIL;
    size_t cred;

    if (!path.ok) return FAIL;
    cred = min_sz(red, path.red);
    switch (kind) {
    case ACT_REMOVE: push_action(p, kind, path.node->path, NULL); return path;
    case ACT_ADD:
    case ACT_DELETE:
        if (T(p, path.end) != TOK_VALUE_REF) {
            fail(p, path.end, cred);
            return FAIL;
        }
        v = parse_operand(p, path.end, cred);
        break;
    case ACT_SET:
        if (T(p, path.end) != TOK_EQ) {
            fail(p, path.end, cred);
            return FAIL;
        }
        v = parse_arith(p, path.end + 1, cred);
        if (!v.ok && !p->too_deep) v = parse_operand(p, path.end + 1, cred);
        break;
    }
    if (!v.ok) return FAIL;
    push_action(p, kind, path.node->path, v.node);
    v.red = min_sz(v.red, path.red);
    return v;
}

/* KEYWORD action (',' action)* */
static struct res parse_section(struct parser *p, size_t i, size_t red)
{
    enum expr_action_kind kind = T(p, i) == TOK_SET      ? ACT_SET
                                 : T(p, i) == TOK_REMOVE ? ACT_REMOVE
                                 : T(p, i) == TOK_ADD    ? ACT_ADD
                                                         : ACT_DELETE;
    size_t first = p->action_count;
    struct res r = parse_action(p, kind, i + 1, red);

    if (!r.ok) return FAIL;
    while (T(p, r.end) == TOK_COMMA) {
        struct res next = parse_action(p, kind, r.end + 1, min_sz(red, r.red));
        if (!next.ok) break;
        r.end = next.end;
        r.red = min_sz(r.red, next.red);
    }
    if (p->section_count == p->section_cap) {
        p->section_cap = p->section_cap ? p->section_cap * 2 : 4;
        p->sections = thread_cache_grow(p->sections, p->section_count * sizeof *p->sections,
                                        p->section_cap * sizeof *p->sections);
    }
    p->sections[p->section_count++] = (struct expr_section){kind, first, p->action_count - first};
    return r;
}

static bool is_section_keyword(enum expr_tok t)
{
    return t == TOK_SET || t == TOK_REMOVE || t == TOK_ADD || t == TOK_DELETE;
}

static struct res parse_update(struct parser *p)
{
    struct res r = {true, 0, NO_RED, NULL};
    size_t sections = 0;

    while (is_section_keyword(T(p, r.end))) {
        struct res s = parse_section(p, r.end, r.red);
        if (!s.ok) break;
        r.end = s.end;
        r.red = min_sz(r.red, s.red);
        sections++;
    }
    if (sections == 0) {
        fail(p, r.end, r.red);
        return FAIL;
    }
    return r;
}

static struct res parse_projection(struct parser *p)
{
    struct res r = parse_path(p, 0, NO_RED);

    while (r.ok) {
        if (p->path_count == p->path_cap) {
            p->path_cap = p->path_cap ? p->path_cap * 2 : 8;
            p->paths = thread_cache_grow(p->paths, p->path_count * sizeof *p->paths,
                                         p->path_cap * sizeof *p->paths);
        }
        p->paths[p->path_count++] = r.node->path;
        if (T(p, r.end) != TOK_COMMA) break;
        struct res next = parse_path(p, r.end + 1, NO_RED);
        if (!next.ok) break;
        r = next;
    }
    return r;
}

/* The quoted token and its surroundings, as DynamoDB prints a syntax error. */
static int syntax_error(const struct parser *p, const char *param, struct ddb_error *err)
{
    size_t pos = p->too_deep ? p->deep_pos : p->fail_pos;
    const struct expr_token *t = &p->t[pos];
    size_t start = pos > 0 ? p->t[pos - 1].start : 0, end;

    if (t->type == TOK_EOF)
        end = t->start;
    else if (p->t[pos + 1].type == TOK_EOF)
        end = p->t[pos + 1].start;
    else
        end = p->t[pos + 1].start + p->t[pos + 1].len;
    if (t->type == TOK_EOF)
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid %s: Syntax error; token: \"<EOF>\", near: \"%.*s\"", param,
                             (int) (end - start), p->src + start);
    return ddb_error_set(err, DDB_VALIDATION,
                         "Invalid %s: Syntax error; token: \"%.*s\", near: \"%.*s\"", param,
                         (int) t->len, p->src + t->start, (int) (end - start), p->src + start);
}

/* Parses the tokens of e->src into e; syntax and redundant-parenthesis errors only. */
static int parse_tokens(struct expr *e, const struct expr_tokens *tk, const char *param,
                        struct ddb_error *err)
{
    struct parser p = {.e = e, .t = tk->toks, .n = tk->count, .src = tk->src};
    struct res r = FAIL;
    int rc = -1;

    /* The parser's working arrays come from the thread's cache: blocks every
     * request makes and frees (thread_cache.h). */
    p.memo = thread_cache_alloc(tk->count * sizeof *p.memo);
    memset(p.memo, 0, tk->count * sizeof *p.memo);
    switch (e->kind) {
    case EXPR_CONDITION:
    case EXPR_KEY_CONDITION: r = parse_or(&p, 0, NO_RED); break;
    case EXPR_UPDATE: r = parse_update(&p); break;
    case EXPR_PROJECTION: r = parse_projection(&p); break;
    }
    if (r.ok && T(&p, r.end) != TOK_EOF) {
        fail(&p, r.end, r.red);
        r.ok = false;
    }
    if (p.too_deep) {
        syntax_error(&p, param, err);
        goto out;
    }
    if (r.ok ? r.red != NO_RED : p.fail_red != NO_RED) {
        ddb_error_set(err, DDB_VALIDATION, "Invalid %s: The expression has redundant parentheses;",
                      param);
        goto out;
    }
    if (!r.ok) {
        syntax_error(&p, param, err);
        goto out;
    }
    e->root = r.node;
    if (p.action_count) {
        e->actions = expr_alloc(e, p.action_count * sizeof *e->actions);
        memcpy(e->actions, p.actions, p.action_count * sizeof *e->actions);
        e->action_count = p.action_count;
        e->sections = expr_alloc(e, p.section_count * sizeof *e->sections);
        memcpy(e->sections, p.sections, p.section_count * sizeof *e->sections);
        e->section_count = p.section_count;
    }
    if (p.path_count) {
        e->paths = expr_alloc(e, p.path_count * sizeof *e->paths);
        memcpy(e->paths, p.paths, p.path_count * sizeof *e->paths);
        e->path_count = p.path_count;
    }
    rc = 0;
out:
    thread_cache_free(p.memo);
    thread_cache_free(p.actions);
    thread_cache_free(p.sections);
    thread_cache_free(p.paths);
    return rc;
}

static bool is_blank(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r') return false;
    }
    return true;
}

/*
 * Parses and checks one expression (see expr.h). Errors, in DynamoDB's order
 * (DynamoDbParser in DynamoDB Local): empty ("The expression can not be
 * empty;", dynalite test/updateItem.js), too long (more than 4096 UTF-16 code
 * units: "Expression size has exceeded the maximum allowed size;", with
 * "expression size: N" for conditions and filters only - seen in real
 * responses for FilterExpression and UpdateExpression), syntax, redundant
 * parentheses, then expr_check's semantic errors. A string of whitespace only
 * counts as empty.
 */
int expr_parse(enum expr_kind kind, const char *param, const char *text, size_t len,
               struct expr_ctx *ctx, struct expr **out, struct ddb_error *err)
{
    struct expr *e;
    struct expr_tokens tk;
    size_t size;
    int rc;

    *out = NULL;
    if (is_blank(text, len))
        return ddb_error_set(err, DDB_VALIDATION, "Invalid %s: The expression can not be empty;",
                             param);
    size = text_utf16_length(text, len);
    if (size > DDB_MAX_EXPRESSION_BYTES) {
        if (kind == EXPR_CONDITION || kind == EXPR_KEY_CONDITION)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "Invalid %s: Expression size has exceeded the maximum allowed "
                                 "size; expression size: %zu",
                                 param, size);
        return ddb_error_set(err, DDB_VALIDATION,
                             "Invalid %s: Expression size has exceeded the maximum allowed size;",
                             param);
    }
    e = expr_new(kind);
    e->src = expr_strdup(e, text, len);
    e->src_len = len;
    expr_lex(e->src, len, &tk);
    rc = parse_tokens(e, &tk, param, err);
    expr_tokens_clear(&tk);
    if (rc == 0) rc = expr_check(e, param, ctx, err);
    if (rc != 0) {
        expr_free(e);
        return -1;
    }
    *out = e;
    return 0;
}
