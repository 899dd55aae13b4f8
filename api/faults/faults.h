/*
 * faults.h - fault injection: rules that make a DynamoDB request fail, slow
 * down, come back partly processed, or lose its answer, on demand.
 *
 * A rule (fault_rule.c parses and writes it; docs/testing.md, README.md
 * "Control interface") has three parts:
 *
 *   "match":   which calls it applies to - operation(s), table, index, the
 *              caller's access key, and an item key (a subset of the item's
 *              or key's attributes, in DynamoDB JSON) that single-item
 *              operations, batches and transactions are checked against;
 *   "action":  what happens - an error (one of DynamoDB's throttling, limit
 *              and server errors, with its status, __type and message),
 *              latency (the answer is held for that long, real time), a
 *              partial batch (UnprocessedItems/UnprocessedKeys), a canceled
 *              transaction (a chosen reason at a chosen position), or a lost
 *              answer (the call runs, then the connection is reset or the
 *              answer replaced by a 500);
 *   "trigger": when - the next N matching calls, a probability drawn from
 *              the rule's own seeded generator (the same seed gives the same
 *              sequence of decisions), a window of the engine clock; all the
 *              given conditions must hold, none given means every match.
 *
 * The set (fault_set.c) is shared by every request thread: its own mutex
 * guards the rules and their counters. The first rule, in the order added,
 * that matches and triggers decides the call; rules after it are not
 * consulted, so their counters and generators do not move.
 *
 * What a fault changes is what AWS would have changed: an error or a
 * cancellation is decided before the handler runs, so the call changes
 * nothing; a lost answer and latency are applied after it, so the call has
 * done everything; the withheld part of a batch is taken out of the request
 * before it runs. The access-pattern report and the streams see exactly the
 * work that was done.
 *
 * Ownership: fault_set_new's set is the caller's (fault_set_free); a
 * decision (struct fault_decision) owns what it holds (fault_decision_clear).
 */
#ifndef DDB_API_FAULTS_H
#define DDB_API_FAULTS_H

#include "storage/base/error.h"
#include "storage/model/failure.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fault_set;

/* What one call is, as the rules see it: built by dispatch.c after the
 * request's shape was checked. All borrowed. */
struct fault_call {
    const char *operation;  /* "PutItem", "BatchWriteItem", ... */
    const char *access_key; /* the caller's credential */
    json_t *body;           /* the request; a partial batch edits it (fault_withhold) */
};

enum fault_kind {
    FAULT_NONE,        /* no rule fired: the call runs as usual */
    FAULT_ERROR,       /* answer err; the handler does not run */
    FAULT_CANCEL,      /* answer err with failure's CancellationReasons */
    FAULT_LATENCY,     /* run the call, hold its answer for delay_ms */
    FAULT_UNPROCESSED, /* the request was cut; withheld goes into the answer */
    FAULT_LOSE_RESET,  /* run the call, then reset the connection */
    FAULT_LOSE_500,    /* run the call, then answer InternalServerError */
};

struct fault_decision {
    enum fault_kind kind;
    char rule_id[64];
    struct ddb_error err;           /* FAULT_ERROR, FAULT_CANCEL, FAULT_LOSE_500 */
    struct failure_details failure; /* FAULT_CANCEL: its reasons */
    unsigned delay_ms;              /* FAULT_LATENCY */
    json_t *withheld;               /* FAULT_UNPROCESSED: {table: [...]} or {table: {Keys..}} */
    const char *unprocessed_member; /* "UnprocessedItems" or "UnprocessedKeys" */
    bool request_emptied;           /* every request was withheld: the handler must not run */
};

struct fault_set *fault_set_new(void);
void fault_set_free(struct fault_set *set);

/*
 * Adds rules: doc is one rule object, an array of them, or {"faults": [..]}.
 * All or nothing: on a bad rule nothing is added, -1 is returned and *why
 * (owned) says which rule and what is wrong. On success the ids given to the
 * new rules (their "id", or "fault-<n>") are appended to ids (a JSON array)
 * when ids is not NULL.
 */
int fault_set_add(struct fault_set *set, const json_t *doc, json_t *ids, char **why);
/* Removes the rule with that id; false when there is none. */
bool fault_set_remove(struct fault_set *set, const char *id);
/* Removes every rule; returns how many there were. */
size_t fault_set_clear(struct fault_set *set);
/* {"faults": [each rule as given, with "id", "matched", "fired" and, for a
 * count trigger, "remaining"]}: a new object. */
json_t *fault_set_list(struct fault_set *set);

/* Whether any rule is in force (one atomic load); false for NULL. */
bool fault_set_active(struct fault_set *set);

/*
 * Decides one call at engine time now_ms: fills *out (zeroed first). With
 * FAULT_UNPROCESSED, call->body has already been cut. Cheap when the set is
 * empty (one atomic load). set may be NULL (no faults).
 */
void fault_set_decide(struct fault_set *set, const struct fault_call *call, int64_t now_ms,
                      struct fault_decision *out);

/* Adds the withheld part of a batch to the answer text (the handler's JSON
 * object): returns the new text (owned), or NULL when answer is not an
 * object. With answer NULL (the handler did not run), the answer of a batch
 * that processed nothing. */
char *fault_unprocessed_answer(const struct fault_decision *d, const char *answer, size_t len,
                               size_t *out_len);

void fault_decision_clear(struct fault_decision *d);

#endif
