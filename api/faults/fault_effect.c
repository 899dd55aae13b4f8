/*
 * fault_effect.c - what a fired rule does to one call (fault_effect.h).
 *
 * A partial batch: the withheld requests are cut from the request before
 * the handler runs (so they are neither validated nor applied, exactly as
 * requests DynamoDB leaves unprocessed are not), and handed back in the
 * answer as DynamoDB writes them - UnprocessedItems as the same
 * PutRequest/DeleteRequest objects, UnprocessedKeys as the table's request
 * (its projection, names and ConsistentRead) with only the withheld Keys.
 * A cancellation: one reason per action, "None" everywhere but at the chosen
 * position, and the message naming them all, as storage/engine/transact.c
 * writes a real one.
 */
#include "api/faults/fault_effect.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <string.h>

/* The targets to withhold: those matching the rule's key, else the last
 * count (half, rounded up, by default). Fills chosen[] (t->n entries). */
static size_t choose_withheld(const struct fault_rule *r, const struct fault_targets *t,
                              bool *chosen)
{
    size_t count = 0;

    for (size_t i = 0; i < t->n; i++) {
        chosen[i] = r->key ? fault_key_matches(r->key, t->v[i].attrs) : false;
        count += chosen[i];
    }
    if (!r->key) {
        size_t want = r->unprocessed_count < 0 ? (t->n + 1) / 2 : (size_t) r->unprocessed_count;
        if (want > t->n) want = t->n;
        for (size_t i = t->n - want; i < t->n; i++)
            chosen[i] = true;
        count = want;
    }
    return count;
}

/* The action a cancellation names: the rule's position, else the first
 * action with the rule's key, else the first. -1 when there is none. */
static long cancel_position(const struct fault_rule *r, const struct fault_targets *t)
{
    if (r->position >= 0) return (size_t) r->position < t->action_count ? r->position : -1;
    if (!r->key) return t->action_count ? 0 : -1;
    for (size_t i = 0; i < t->n; i++)
        if (fault_key_matches(r->key, t->v[i].attrs)) return (long) t->v[i].action;
    return -1;
}

bool fault_effect_applies(const struct fault_rule *r, const char *operation,
                          const struct fault_targets *t)
{
    switch (r->action) {
    case FAULT_ACTION_UNPROCESSED: {
        bool *chosen;
        size_t n;
        if (!fault_is_batch(operation) || !t->n) return false;
        chosen = xcalloc(t->n, sizeof *chosen);
        n = choose_withheld(r, t, chosen);
        free(chosen);
        return n > 0;
    }
    case FAULT_ACTION_CANCEL: return fault_is_transaction(operation) && cancel_position(r, t) >= 0;
    default: return true;
    }
}

static bool is_chosen(const struct fault_targets *t, const bool *chosen, const json_t *entry)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].entry == entry) return chosen[i];
    return false;
}

/* Cuts the chosen requests out of RequestItems into d->withheld. */
static void withhold(const struct fault_rule *r, const struct fault_call *call,
                     const struct fault_targets *t, struct fault_decision *d)
{
    bool writes = strcmp(call->operation, "BatchWriteItem") == 0;
    json_t *items = json_object_get(call->body, "RequestItems");
    bool *chosen = xcalloc(t->n ? t->n : 1, sizeof *chosen);
    const char *table;
    json_t *request, *tmp;

    choose_withheld(r, t, chosen);
    d->kind = FAULT_UNPROCESSED;
    d->withheld = json_object();
    d->unprocessed_member = writes ? "UnprocessedItems" : "UnprocessedKeys";
    json_object_foreach_safe(items, tmp, table, request)
    {
        json_t *list = writes ? request : json_object_get(request, "Keys");
        json_t *keep = json_array(), *cut = json_array();
        size_t i;
        json_t *entry;

        json_array_foreach(list, i, entry)
            json_array_append(is_chosen(t, chosen, entry) ? cut : keep, entry);
        if (json_array_size(cut)) {
            if (writes) {
                json_object_set(d->withheld, table, cut);
            } else {
                json_t *unprocessed = json_copy(request);
                json_object_set(unprocessed, "Keys", cut);
                json_object_set_new(d->withheld, table, unprocessed);
            }
        }
        if (!json_array_size(keep))
            json_object_del(items, table);
        else if (writes)
            json_object_set(items, table, keep);
        else
            json_object_set(request, "Keys", keep);
        json_decref(keep);
        json_decref(cut);
    }
    d->request_emptied = json_object_size(items) == 0;
    free(chosen);
}

static void cancel(const struct fault_rule *r, const struct fault_targets *t,
                   struct fault_decision *d)
{
    long at = cancel_position(r, t);
    struct text_buf list = {0};
    size_t len;
    char *codes;

    d->kind = FAULT_CANCEL;
    d->failure.reasons = xcalloc(t->action_count, sizeof *d->failure.reasons);
    d->failure.reason_count = t->action_count;
    for (size_t i = 0; i < t->action_count; i++) {
        struct cancel_reason *reason = &d->failure.reasons[i];
        bool here = (long) i == at;
        reason->code = xstrdup(here ? r->reason : "None");
        if (here)
            reason->message = xstrdup(r->message ? r->message : fault_reason_message(r->reason));
        text_buf_printf(&list, "%s%s", i ? ", " : "", reason->code);
    }
    codes = text_buf_take(&list, &len);
    ddb_error_set(&d->err, DDB_TRANSACTION_CANCELED,
                  "Transaction cancelled, please refer cancellation reasons for specific reasons "
                  "[%s]",
                  codes ? codes : "");
    free(codes);
}

void fault_effect_decide(const struct fault_rule *r, const struct fault_call *call,
                         const struct fault_targets *t, struct fault_decision *d)
{
    snprintf(d->rule_id, sizeof d->rule_id, "%s", r->id);
    switch (r->action) {
    case FAULT_ACTION_ERROR:
        d->kind = FAULT_ERROR;
        ddb_error_set(&d->err, r->error_code, "%s",
                      r->message ? r->message : fault_error_message(r->error_code));
        break;
    case FAULT_ACTION_LATENCY:
        d->kind = FAULT_LATENCY;
        d->delay_ms = r->latency_ms;
        break;
    case FAULT_ACTION_UNPROCESSED: withhold(r, call, t, d); break;
    case FAULT_ACTION_CANCEL: cancel(r, t, d); break;
    case FAULT_ACTION_LOSE_ANSWER:
        d->kind = r->lose_reset ? FAULT_LOSE_RESET : FAULT_LOSE_500;
        if (!r->lose_reset)
            ddb_error_set(&d->err, DDB_INTERNAL_SERVER_ERROR, "%s",
                          r->message ? r->message : fault_error_message(DDB_INTERNAL_SERVER_ERROR));
        break;
    }
}
