/*
 * pql_emit.h - statement parts as DynamoDB expression text (private to
 * storage/partiql).
 *
 * The planner (pql_plan.c) decides what a statement does; these functions
 * write the pieces it needs - paths, values, conditions, update operands - as
 * expression text in which every identifier is a #name and every literal or
 * parameter a :value of the plan's maps, ready for storage/expr to parse.
 * They also turn literals and parameters into values. Errors are the
 * statement's (ValidationException with DynamoDB's PartiQL texts).
 *
 * Ownership: names and values are added to the plan's maps; text goes to the
 * caller's buffer. No locking.
 */
#ifndef DDB_PQL_EMIT_H
#define DDB_PQL_EMIT_H

#include "storage/base/text.h"
#include "storage/partiql/pql.h"

/* One planning of one statement: the statement, its Parameters, the plan
 * being built (its names and values maps) and where errors go. */
struct planner {
    const struct pql_stmt *s;
    const struct value *params;
    struct pql_plan *plan;
    struct ddb_error *err;
};

/* Appends "#k" for an attribute name (one #name per distinct name). */
void pql_emit_name(struct planner *pl, struct text_buf *b, const char *name, size_t len);
/* Appends ":k" for *v, which it takes. */
void pql_emit_value(struct planner *pl, struct text_buf *b, struct value *v);
/* True for a literal (not MISSING), a parameter or a collection of them. */
bool pql_is_value_node(const struct pql_node *n);
/* A literal, parameter or collection as a value (*out owned by the caller). */
int pql_eval_value(struct planner *pl, const struct pql_node *n, struct value *out, int depth);
/* Appends a document path: "#0.#1[2]". */
void pql_emit_path(struct planner *pl, struct text_buf *b, const struct pql_node *n);
/* True when n calls the function fn (any case). */
bool pql_is_call(const struct pql_node *n, const char *fn);
/* An operand: a path, a value, a function call; in_update allows + and -. */
int pql_emit_operand(struct planner *pl, struct text_buf *b, const struct pql_node *n,
                     bool in_update, int depth);
/* " = ", " < ", ... for a comparator. */
const char *pql_cmp_text(enum pql_op op);
/* A condition (a WHERE or part of one) as ConditionExpression text. */
int pql_emit_cond(struct planner *pl, struct text_buf *b, const struct pql_node *n, int depth);

#endif
