/*
 * fault_effect.h - a fired rule turned into its decision for one call: the
 * error to answer, the cancellation reasons, the part of a batch to
 * withhold (cut from the request here), the delay, the lost answer.
 *
 * Internal to api/faults/; called by fault_set.c under the set's mutex,
 * touching only the rule (read) and the call's body.
 */
#ifndef DDB_API_FAULT_EFFECT_H
#define DDB_API_FAULT_EFFECT_H

#include "api/faults/fault_call.h"
#include "api/faults/fault_rule.h"
#include "api/faults/faults.h"

/* Whether the rule can act on this call at all (a partial batch needs a
 * batch, a cancellation a transaction with the chosen position). */
bool fault_effect_applies(const struct fault_rule *r, const char *operation,
                          const struct fault_targets *t);

/* Fills *d for the fired rule r; may cut call->body (partial batches). */
void fault_effect_decide(const struct fault_rule *r, const struct fault_call *call,
                         const struct fault_targets *t, struct fault_decision *d);

#endif
