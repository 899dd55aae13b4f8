/*
 * fault_rule.h - one fault rule, parsed from its JSON (faults.h gives the
 * shape), and the catalogues of what a rule may ask for: DynamoDB's errors a
 * fault can answer, and the reasons a canceled transaction can carry.
 *
 * Internal to api/faults/. A rule owns every string and JSON value it holds
 * (fault_rule_free). Its counters and generator are guarded by the set's
 * mutex (fault_set.c); nothing here locks.
 */
#ifndef DDB_API_FAULT_RULE_H
#define DDB_API_FAULT_RULE_H

#include "storage/base/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

enum fault_action {
    FAULT_ACTION_ERROR,
    FAULT_ACTION_LATENCY,
    FAULT_ACTION_UNPROCESSED,
    FAULT_ACTION_CANCEL,
    FAULT_ACTION_LOSE_ANSWER,
};

struct fault_rule {
    char id[64];
    json_t *spec; /* the rule as given, with its id: what the list shows */

    /* match: NULL / 0 means any */
    char **operations;
    size_t operation_count;
    char *table, *index, *access_key;
    json_t *key; /* attributes (DynamoDB JSON) an item or key must carry */

    /* action */
    enum fault_action action;
    enum ddb_error_code error_code; /* FAULT_ACTION_ERROR */
    char *message;                  /* the error's or the reason's text */
    unsigned latency_ms;            /* FAULT_ACTION_LATENCY */
    long unprocessed_count;         /* FAULT_ACTION_UNPROCESSED; -1: half, rounded up */
    char *reason;                   /* FAULT_ACTION_CANCEL: the reason's Code */
    long position;                  /* FAULT_ACTION_CANCEL; -1: the first matching key, or 0 */
    bool lose_reset;                /* FAULT_ACTION_LOSE_ANSWER: reset, else answer 500 */

    /* trigger: every given condition must hold */
    bool has_times;
    uint64_t remaining;
    bool has_probability;
    double probability;
    uint64_t rng; /* the generator's state, from the seed */
    bool has_window;
    int64_t from_ms, until_ms; /* engine time, from inclusive, until exclusive */

    uint64_t matched, fired;
    struct fault_rule *next;
};

/* Parses one rule. NULL with *why (owned) set when it is malformed. default_id
 * names a rule that gives no "id". */
struct fault_rule *fault_rule_parse(const json_t *spec, const char *default_id, char **why);
void fault_rule_free(struct fault_rule *r);

/* The rule's listing entry: its spec with "matched", "fired", "remaining". New. */
json_t *fault_rule_describe(const struct fault_rule *r);

/* The __type's last part of an error code a fault may answer, and its text
 * as DynamoDB writes it. */
const char *fault_error_message(enum ddb_error_code code);
/* The Message DynamoDB writes with a cancellation reason's Code. */
const char *fault_reason_message(const char *reason);

/* The next number in [0, 1) from the rule's generator (splitmix64). */
double fault_rule_draw(struct fault_rule *r);

#endif
