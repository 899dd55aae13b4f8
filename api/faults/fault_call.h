/*
 * fault_call.h - what a request names, as fault rules match it: its tables,
 * its index, and each item or key it writes or reads (single-item
 * operations, batches, transactions), in request order.
 *
 * Internal to api/faults/. Everything points into the request's JSON body
 * (borrowed); the arrays are owned (fault_targets_clear). The body has
 * passed its shape check (api/wire/shape.c), so members have their types;
 * anything else is skipped, never trusted.
 */
#ifndef DDB_API_FAULT_CALL_H
#define DDB_API_FAULT_CALL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* One item or key of the request. */
struct fault_target {
    const char *table;
    json_t *attrs; /* the Item or the Key */
    json_t *entry; /* a batch's array element (PutRequest/DeleteRequest, or the key); NULL else */
    size_t action; /* its place among a transaction's actions or a batch's requests */
};

struct fault_targets {
    struct fault_target *v;
    size_t n;
    const char **tables; /* every table the request names */
    size_t table_count;
    const char *index;   /* IndexName, or NULL */
    size_t action_count; /* a transaction's actions (TransactItems or TransactStatements) */
};

void fault_targets_collect(const char *operation, json_t *body, struct fault_targets *out);
void fault_targets_clear(struct fault_targets *t);

/* Whether attrs carries every attribute of want with an equal value. */
bool fault_key_matches(const json_t *want, const json_t *attrs);

bool fault_is_batch(const char *operation);
bool fault_is_transaction(const char *operation);

#endif
