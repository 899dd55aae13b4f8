/*
 * expr_ast.h - the expression AST, private to storage/expr_*.c and their tests.
 *
 * One tree shape serves the five expression kinds and the legacy parameters:
 *
 *   - a condition (ConditionExpression, FilterExpression, KeyConditionExpression,
 *     and later Expected / QueryFilter / ScanFilter / KeyConditions) is a tree of
 *     struct expr_node: EN_OP nodes (comparators, BETWEEN, IN, AND, OR, NOT and
 *     the functions) over EN_PATH and EN_VALUE leaves;
 *   - an update is a list of struct expr_action (SET/REMOVE/ADD/DELETE, a target
 *     path and, except for REMOVE, a value tree), grouped in sections;
 *   - a projection is a list of paths.
 *
 * The shapes follow the grammar DynamoDB itself uses (the ANTLR grammar that
 * ships in the DAX client, DynamoDbGrammar.g4 + Tokens.g4, Apache-2.0) and the
 * validation order of DynamoDB Local's expression validator, so that errors come
 * out in AWS's order. Where AWS's order is known, expr_check.c cites it.
 *
 * Memory: every node, path and array of a struct expr lives in its arena and is
 * freed at once by expr_free(); nothing in a tree is freed individually. Names
 * and values are borrowed: an ID's text points into the expression's own copy of
 * the source, a resolved #name points into the request's
 * ExpressionAttributeNames, a resolved :value into its ExpressionAttributeValues
 * (expr.h: the caller keeps them alive while the tree is used). Trees built
 * without a source (legacy translation, see expr_build_*) copy names into the
 * arena and own their values (expr_node_new_value_owned), which expr_free()
 * clears.
 *
 * Trees are immutable once expr_parse() has returned them, so one parsed
 * filter may be evaluated concurrently; no locking here.
 */
#ifndef DDB_EXPR_AST_H
#define DDB_EXPR_AST_H

#include "storage/base/error.h"
#include "storage/base/text.h"
#include "storage/expr/expr.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * "The maximum number of operators or functions allowed in an UpdateExpression
 * is 300" (developerguide/ServiceQuotas.html, "Expression parameters"); DynamoDB
 * counts comparators, AND/OR/NOT, BETWEEN, IN, + and - and the functions, and
 * applies the same cap to every expression kind. (Belongs in limits.h; kept here
 * because limits.h is owned by the lead - see the report.)
 */
#define EXPR_MAX_OPERATORS 300

/*
 * Our own bound on parenthesis / NOT / function-call nesting while parsing, so
 * that the recursive-descent parser cannot overflow the stack (STYLE B9). AWS
 * documents no such limit; within the 4 KB expression size it is only reachable
 * with more than EXPR_MAX_NESTING nested parentheses, which we reject as a
 * syntax error at the token that goes one level too deep.
 */
#define EXPR_MAX_NESTING 1000

/* ---- tokens (Tokens.g4) ---- */

enum expr_tok {
    TOK_EOF,
    TOK_COMMA,    /* , */
    TOK_LPAREN,   /* ( */
    TOK_RPAREN,   /* ) */
    TOK_DOT,      /* . */
    TOK_LBRACKET, /* [ */
    TOK_RBRACKET, /* ] */
    TOK_EQ,       /* = */
    TOK_NE,       /* <> */
    TOK_LT,       /* < */
    TOK_LE,       /* <= */
    TOK_GT,       /* > */
    TOK_GE,       /* >= */
    TOK_PLUS,     /* + */
    TOK_MINUS,    /* - */
    TOK_IN,       /* keywords, case-insensitive */
    TOK_BETWEEN,
    TOK_NOT,
    TOK_AND,
    TOK_OR,
    TOK_SET,
    TOK_ADD,
    TOK_DELETE,
    TOK_REMOVE,
    TOK_INDEX,     /* '0' | [1-9][0-9]* */
    TOK_ID,        /* [a-zA-Z][a-zA-Z0-9_]* */
    TOK_NAME_REF,  /* '#' [a-zA-Z0-9_]+ */
    TOK_VALUE_REF, /* ':' [a-zA-Z0-9_]+ */
    TOK_STRING,    /* "..." or '...': a token no rule accepts */
    TOK_UNKNOWN,   /* any other character (one UTF-8 code point) */
};

struct expr_token {
    enum expr_tok type;
    uint32_t start; /* byte offset in the source */
    uint32_t len;   /* bytes; 0 for TOK_EOF */
};

/* The tokens of one expression; the last one is always TOK_EOF. Whitespace
 * ([ \t\n\r]) is skipped, as on DynamoDB's hidden channel, but stays in the
 * source, which is what "near" quotes. */
struct expr_tokens {
    struct expr_token *toks; /* owned */
    size_t count;
    const char *src; /* borrowed */
    size_t src_len;
};

/* Tokenizes src (never fails: bytes no rule matches become TOK_UNKNOWN).
 * *out is initialized here; free with expr_tokens_clear(). */
void expr_lex(const char *src, size_t len, struct expr_tokens *out);
void expr_tokens_clear(struct expr_tokens *t);
/* True when s (ASCII, any case) is one of DynamoDB's reserved words. */
bool expr_is_reserved_word(const char *s, size_t len);
/* The reserved-word list, for tests: count and the i-th word (upper case). */
size_t expr_reserved_word_count(void);
const char *expr_reserved_word(size_t i);

/* ---- document paths ---- */

struct expr_path_elem {
    bool is_index;      /* [n] rather than a map key */
    bool is_ref;        /* written as #name; name is resolved by expr_check */
    bool index_too_big; /* [n] with n > INT32_MAX: AWS's "List index is not within..." */
    uint32_t index;     /* is_index */
    const char *name;   /* map key: the ID's text, or after resolution the #name's value */
    size_t name_len;
    const char *text; /* as written ("abc", "#n", or the digits of an index); NULL if built */
    size_t text_len;
};

struct expr_path {
    struct expr_path_elem *elems; /* arena */
    size_t count;                 /* >= 1; elems[0] is never an index */
};

/* ---- condition and value trees ---- */

enum expr_node_kind {
    EN_PATH,  /* a document path; missing in the item evaluates to "missing" */
    EN_VALUE, /* an ExpressionAttributeValue (or a legacy constant) */
    EN_OP,    /* an operator or function over args */
};

enum expr_op {
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_BETWEEN, /* args: x, low, high */
    OP_IN,      /* args: x, candidates... */
    OP_AND,
    OP_OR,
    OP_NOT,
    OP_PLUS,  /* update values only */
    OP_MINUS, /* update values only */
    /* functions; OP_FUNC_UNKNOWN keeps any other name for expr_check to refuse */
    OP_FUNC_UNKNOWN,
    OP_ATTRIBUTE_EXISTS,
    OP_ATTRIBUTE_NOT_EXISTS,
    OP_ATTRIBUTE_TYPE,
    OP_BEGINS_WITH,
    OP_CONTAINS,
    OP_SIZE,
    OP_IF_NOT_EXISTS,
    OP_LIST_APPEND,
};

struct expr_node {
    enum expr_node_kind kind;
    enum expr_op op;         /* EN_OP */
    struct expr_node **args; /* EN_OP; arena */
    size_t argc;
    struct expr_path path; /* EN_PATH */
    const char *ref;       /* EN_VALUE: ":v" as written; EN_OP function: its name */
    size_t ref_len;
    const struct value *value;    /* EN_VALUE: resolved by expr_check (or owned below) */
    bool parens;                  /* written inside parentheses (DynamoDB's hasOuterParens) */
    bool has_owned;               /* EN_VALUE built with expr_node_new_value_owned */
    struct value owned;           /* valid when has_owned */
    struct expr_node *next_owned; /* chain of nodes whose `owned` expr_free clears */
};

/* ---- update expressions ---- */

enum expr_action_kind { ACT_SET, ACT_REMOVE, ACT_ADD, ACT_DELETE };

struct expr_action {
    enum expr_action_kind kind;
    struct expr_path path;
    struct expr_node *value; /* NULL for REMOVE; an EN_VALUE for ADD and DELETE */
};

struct expr_section {
    enum expr_action_kind kind;
    size_t first; /* index of its first action */
    size_t count;
};

/*
 * The tree of the document paths an update or projection names (DynamoDB's
 * "projection tree"): one node per path element, children kept sorted (map
 * keys by bytes, list indexes numerically), a leaf where a path ends. Built by
 * expr_check, which refuses overlapping and conflicting paths while building
 * it; used to apply updates (indexes refer to positions before the update) and
 * to project items.
 */
struct expr_ptree {
    const struct expr_path_elem *elem; /* edge from the parent; NULL at the root */
    struct expr_ptree *first_child;    /* sorted siblings */
    struct expr_ptree *next_sibling;
    const struct expr_action *action; /* update leaf */
    bool leaf;
};

/* ---- key conditions (after expr_key_check) ---- */

struct expr_key_term {
    const char *name; /* the key attribute (resolved) */
    size_t name_len;
    enum key_range_op op; /* the operator with the attribute on the left */
    const struct value *v[2];
};

/* ---- the expression ---- */

struct expr_arena_block;

struct expr {
    enum expr_kind kind;
    char *src; /* a copy of the expression text in the arena; NULL when built */
    size_t src_len;
    struct expr_arena_block *arena;
    struct expr_node *owned_values; /* chain, see struct expr_node */

    struct expr_node *root; /* EXPR_CONDITION, EXPR_KEY_CONDITION */

    struct expr_action *actions; /* EXPR_UPDATE, in document order */
    size_t action_count;
    struct expr_section *sections;
    size_t section_count;

    struct expr_path *paths; /* EXPR_PROJECTION, in document order */
    size_t path_count;

    struct expr_ptree *tree; /* EXPR_UPDATE and EXPR_PROJECTION, after checking */
    /* EXPR_PROJECTION of top-level names only, after checking: the tree's
     * names in its order (expr_projection_top_names); NULL otherwise. */
    const char **top_names;
    size_t *top_lens;

    struct expr_key_term *terms; /* EXPR_KEY_CONDITION, after checking */
    size_t term_count;
};

/* ---- arena and builders (expr_ast.c) ---- */

/* A new empty expression of the given kind, owned by the caller (expr_free). */
struct expr *expr_new(enum expr_kind kind);
/* Zeroed memory from e's arena, freed with e; never NULL. */
void *expr_alloc(struct expr *e, size_t size);
/* A copy of bytes (plus a NUL) in e's arena. */
char *expr_strdup(struct expr *e, const char *s, size_t len);

/*
 * Builders for code that makes trees without parsing text (expr_legacy.c,
 * tests): the legacy parameters map onto these nodes (Expected {Exists:false}
 * is attribute_not_exists(path), EQ is OP_EQ(path, value), NOT_CONTAINS is
 * OP_NOT(OP_CONTAINS(...)), AttributeUpdates PUT is an ACT_SET action, ...).
 * All take e's arena; the value builder takes ownership of *v (left NULL-typed).
 */
struct expr_node *expr_node_new_path(struct expr *e, const char *name, size_t name_len);
/* Appends a map key (index = false) or a list index to a path node. */
void expr_node_path_append(struct expr *e, struct expr_node *path_node, bool is_index,
                           const char *name, size_t name_len, uint32_t index);
struct expr_node *expr_node_new_value_owned(struct expr *e, struct value *v);
struct expr_node *expr_node_new_op(struct expr *e, enum expr_op op, struct expr_node **args,
                                   size_t argc);

/* ---- names and rendering (expr_ast.c) ---- */

/* The name DynamoDB prints for an operator or function ("=", "BETWEEN", "size");
 * "" for OP_FUNC_UNKNOWN, whose name is the node's ref. */
const char *expr_op_name(enum expr_op op);
/* Appends one element of a path: its name, or "[index]". */
void expr_path_elem_render(struct text_buf *sb, const struct expr_path_elem *el);
/* Appends "[a, b, [1]]", DynamoDB's rendering of a document path in messages. */
void expr_path_render(struct text_buf *sb, const struct expr_path *p);

/* ---- checking (expr_check.c) ---- */

/* Runs every semantic check on a freshly parsed e, in DynamoDB's order, resolving
 * #names and :values through ctx (marking them used). Errors carry the
 * "Invalid <param>: " prefix where AWS's do. */
int expr_check(struct expr *e, const char *param, struct expr_ctx *ctx, struct ddb_error *err);

/* ---- key conditions (expr_key.c) ---- */

/* The KeyConditionExpression-specific structure checks that follow expr_check
 * (operators allowed, one plain key attribute per condition, one condition per
 * key), filling e->terms. */
int expr_key_check(struct expr *e, struct ddb_error *err);
/* The key condition's term on attribute name (borrowed), or NULL when it has none. */
const struct expr_key_term *expr_key_find_term(const struct expr *kc, const char *name);
/* Refuses a partition key's term t (on attribute name) that compares it with
 * an empty string, as DynamoDB does; 0 otherwise. Both key condition forms. */
int expr_key_check_hash_not_empty(const struct expr_key_term *t, const char *name,
                                  struct ddb_error *err);

#endif
