/*
 * pql.h - DynamoDB's PartiQL dialect: statements, their parser and their planner.
 *
 * A statement travels in two steps, both free of locks and of tables:
 *
 *   pql_parse(text)            -> struct pql_stmt   (syntax only: the grammar of
 *                                 SELECT, INSERT, UPDATE, DELETE and, inside
 *                                 ExecuteTransaction, EXISTS(SELECT ...))
 *   pql_plan(stmt, table, ?s)  -> struct pql_plan   (what DynamoDB would run:
 *                                 Query(s) or Scan, or one write_op)
 *
 * The planner does not evaluate anything itself: it writes the statement's
 * WHERE, SET/REMOVE and projection as ordinary DynamoDB expressions (every
 * identifier through a #name, every literal and parameter through a :value)
 * and parses them with storage/expr, so a PartiQL condition or update is
 * checked and evaluated by the one evaluator every other operation uses. The
 * caller (storage/partiql.c) runs the plan through db_query / db_scan /
 * db_write_item / db_transact_*, so reads and writes behave, cost and fail as
 * the equivalent Query, Scan, PutItem, UpdateItem and DeleteItem.
 *
 * Messages are DynamoDB's where they are recorded (DynamoDB Local's PartiQL
 * ValidationExceptionMessages, and answers public projects captured from
 * AWS); docs/differences.md lists the ones that are ours.
 *
 * Ownership: pql_parse returns a statement the caller frees (pql_stmt_free);
 * a plan owns everything in it (pql_plan_clear), including the names and
 * values its expressions borrow. No locking: these are pure functions.
 */
#ifndef DDB_PQL_H
#define DDB_PQL_H

#include "storage/base/error.h"
#include "storage/expr/expr.h"
#include "storage/model/item.h"
#include "storage/model/schema.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Our bound on nesting (parentheses, NOT, literals inside literals) so that
 * the recursive-descent parser cannot overflow the stack; AWS documents none
 * and the 8192-character statement makes deeper nesting unusual. */
#define PQL_MAX_NESTING 200

enum pql_kind { PQL_SELECT, PQL_INSERT, PQL_UPDATE, PQL_DELETE, PQL_EXISTS };

/* Which operation runs the statement: a SELECT in a batch or a transaction
 * reads one item by its full key. */
enum pql_context { PQL_IN_STATEMENT, PQL_IN_BATCH, PQL_IN_TRANSACTION };

/* RETURNING: what an UPDATE or DELETE hands back (storage/partiql.c maps it
 * onto the write's ReturnValues). */
enum pql_returning {
    PQL_RETURN_NONE,
    PQL_RETURN_ALL_OLD,
    PQL_RETURN_MODIFIED_OLD,
    PQL_RETURN_ALL_NEW,
    PQL_RETURN_MODIFIED_NEW,
};

/* ---- the syntax tree (pql_parse.c) ---- */

enum pql_node_kind {
    PN_PATH,  /* a document path: steps */
    PN_LIT,   /* a scalar literal: lit (or MISSING) */
    PN_PARAM, /* '?': param_index */
    PN_TUPLE, /* {'k': v, ...}: keys[i] -> args[i] */
    PN_LIST,  /* [v, ...] */
    PN_BAG,   /* <<v, ...>> */
    PN_OP,    /* an operator over args */
    PN_CALL,  /* a function call: name(args) */
};

enum pql_op {
    PO_EQ,
    PO_NE,
    PO_LT,
    PO_LE,
    PO_GT,
    PO_GE,
    PO_BETWEEN, /* x, lo, hi */
    PO_IN,      /* x, candidates... */
    PO_AND,
    PO_OR,
    PO_NOT,
    PO_IS, /* x IS [NOT] type: is_type, negated */
    PO_PLUS,
    PO_MINUS,
};

struct pql_step {
    bool is_index;
    uint32_t index;   /* is_index */
    const char *name; /* map key, in the statement's copy (quotes removed); NUL-terminated */
    size_t name_len;
};

struct pql_node {
    enum pql_node_kind kind;
    uint32_t pos;           /* byte offset in the statement, for messages */
    uint32_t len;           /* bytes of the node's first token, for messages */
    struct pql_step *steps; /* PN_PATH */
    size_t step_count;
    struct value lit;   /* PN_LIT; owned */
    bool missing;       /* PN_LIT: the MISSING literal */
    size_t param_index; /* PN_PARAM */
    enum pql_op op;     /* PN_OP */
    bool negated;       /* PO_IS NOT, NOT BETWEEN, NOT IN */
    char is_type[16];   /* PO_IS: MISSING, NULL, STRING, ... (upper case) */
    const char *name;   /* PN_CALL: the function's name as written */
    size_t name_len;
    struct pql_node **args; /* PN_OP, PN_CALL, PN_TUPLE, PN_LIST, PN_BAG */
    size_t argc;
    const char **keys; /* PN_TUPLE: key strings, parallel to args */
    size_t *key_lens;
    struct pql_node *next_alloc; /* every node of a statement, for pql_stmt_free */
};

enum pql_assign_kind { PA_SET, PA_REMOVE };

struct pql_assign {
    enum pql_assign_kind kind;
    struct pql_node *path;
    struct pql_node *value; /* PA_SET */
};

struct pql_order {
    struct pql_node *path;
    bool desc;
};

struct pql_stmt {
    enum pql_kind kind;
    char *src; /* owned copy of the statement; names and steps point into it */
    size_t src_len;
    char *table; /* owned */
    char *index; /* owned; NULL unless FROM "table"."index" */
    /* SELECT (and EXISTS's inner SELECT) */
    bool star;
    struct pql_node **projection;
    size_t projection_count;
    struct pql_node *where; /* NULL when absent */
    struct pql_order *order;
    size_t order_count;
    /* INSERT */
    struct pql_node *value;
    /* UPDATE */
    struct pql_assign *assigns;
    size_t assign_count;
    /* UPDATE / DELETE */
    enum pql_returning returning; /* PQL_RETURN_NONE when absent */
    size_t param_count;           /* '?' in the statement */
    struct pql_node *nodes;       /* allocation chain */
};

/* " at line:column:length" for a node of s, as DynamoDB appends it to the
 * messages about one part of a statement (columns count characters from 1). */
void pql_position(const struct pql_stmt *s, uint32_t pos, uint32_t len, char *buf, size_t cap);

/* Parses one statement. Syntax errors: ValidationException "Statement wasn't
 * well formed, can't be processed: <detail>"; an empty one and unsupported
 * constructs get their own texts. *out is owned by the caller. */
int pql_parse(const char *text, size_t len, struct pql_stmt **out, struct ddb_error *err);
void pql_stmt_free(struct pql_stmt *s);

/* ---- the plan (pql_plan.c) ---- */

/* One Query of a SELECT whose WHERE pins the partition key (several for IN). */
struct pql_query {
    struct expr *key_condition; /* owned */
    struct value hash_value;    /* owned: the partition key value, for ordering */
};

struct pql_plan {
    enum pql_kind kind;
    char *table; /* owned */
    char *index; /* owned; NULL for the table */
    bool index_is_global;
    /* The names and values the expressions below refer to (owned; the trees
     * borrow them, so they are freed last). */
    struct value names;
    struct value values;
    struct expr_ctx ctx;
    bool ctx_ready;
    /* SELECT */
    struct expr *projection;   /* NULL: every attribute ('*') */
    struct expr *filter;       /* the whole WHERE; NULL when there is none */
    struct pql_query *queries; /* none: a Scan */
    size_t query_count;
    bool scan_forward;
    /* writes, and the key of a SELECT inside a transaction */
    struct value key;      /* VALUE_M, or VALUE_NULL */
    struct item *put_item; /* INSERT: owned reference */
    struct expr *condition;
    struct expr *update;
    enum pql_returning returning;
};

void pql_plan_init(struct pql_plan *p);
void pql_plan_clear(struct pql_plan *p);

/*
 * Plans s against the table definition def with the request's Parameters
 * (params[0..param_count), borrowed): checks the parameter count ("Number of
 * parameters in request and statement don't match."), the index, the full key
 * of a write ("Where clause does not contain a mandatory equality on all key
 * attributes"), ORDER BY, and builds the expressions. In a batch or a
 * transaction a SELECT needs its full key and no index.
 */
int pql_plan(const struct pql_stmt *s, const struct table_def *def, const struct value *params,
             size_t param_count, enum pql_context context, struct pql_plan *out,
             struct ddb_error *err);

#endif
