/*
 * fault_set.c - the rules in force and the decision for each call
 * (faults.h).
 *
 * Locking: one mutex guards the list, every rule's counters and generator;
 * a decision is taken whole under it, so two threads never draw the same
 * number or fire the last of a count twice. `count` mirrors the number of
 * rules as an atomic so that a call with no rules in force takes no lock.
 */
#include "api/faults/fault_call.h"
#include "api/faults/fault_effect.h"
#include "api/faults/fault_rule.h"
#include "api/faults/faults.h"
#include "storage/base/alloc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fault_set {
    pthread_mutex_t mu;
    struct fault_rule *rules; /* in the order added */
    atomic_size_t count;
    uint64_t next_id; /* for rules without an "id" */
};

struct fault_set *fault_set_new(void)
{
    struct fault_set *set = xcalloc(1, sizeof *set);

    pthread_mutex_init(&set->mu, NULL);
    return set;
}

void fault_set_free(struct fault_set *set)
{
    if (!set) return;
    fault_set_clear(set);
    pthread_mutex_destroy(&set->mu);
    free(set);
}

bool fault_set_active(struct fault_set *set)
{
    return set && atomic_load(&set->count) > 0;
}

static struct fault_rule **find(struct fault_set *set, const char *id)
{
    struct fault_rule **p = &set->rules;

    while (*p && strcmp((*p)->id, id) != 0)
        p = &(*p)->next;
    return p;
}

int fault_set_add(struct fault_set *set, const json_t *doc, json_t *ids, char **why)
{
    const json_t *list = json_is_object(doc) && json_object_get(doc, "faults")
                             ? json_object_get(doc, "faults")
                             : doc;
    size_t n = json_is_array(list) ? json_array_size(list) : 1;
    struct fault_rule **parsed = xcalloc(n ? n : 1, sizeof *parsed);
    int rc = 0;

    if (json_is_object(doc) && json_object_get(doc, "faults") && !json_is_array(list)) {
        *why = xstrdup("\"faults\" must be a list of rules");
        free(parsed);
        return -1;
    }
    pthread_mutex_lock(&set->mu);
    for (size_t i = 0; i < n && rc == 0; i++) {
        char id[32];
        snprintf(id, sizeof id, "fault-%llu", (unsigned long long) (set->next_id + i + 1));
        parsed[i] = fault_rule_parse(json_is_array(list) ? json_array_get(list, i) : list, id, why);
        if (!parsed[i]) {
            rc = -1;
            break;
        }
        for (size_t j = 0; j < i && rc == 0; j++)
            if (strcmp(parsed[j]->id, parsed[i]->id) == 0) rc = -1;
        if (rc == 0 && *find(set, parsed[i]->id)) rc = -1;
        if (rc != 0) {
            char msg[128];
            snprintf(msg, sizeof msg, "fault %s: a rule with that id exists", parsed[i]->id);
            *why = xstrdup(msg);
        }
    }
    if (rc == 0) {
        struct fault_rule **tail = &set->rules;
        while (*tail)
            tail = &(*tail)->next;
        for (size_t i = 0; i < n; i++) {
            *tail = parsed[i];
            tail = &parsed[i]->next;
            if (ids) json_array_append_new(ids, json_string(parsed[i]->id));
        }
        set->next_id += n;
        atomic_fetch_add(&set->count, n);
    } else {
        for (size_t i = 0; i < n; i++)
            fault_rule_free(parsed[i]);
    }
    pthread_mutex_unlock(&set->mu);
    free(parsed);
    return rc;
}

bool fault_set_remove(struct fault_set *set, const char *id)
{
    struct fault_rule **p, *gone;

    pthread_mutex_lock(&set->mu);
    p = find(set, id);
    gone = *p;
    if (gone) {
        *p = gone->next;
        atomic_fetch_sub(&set->count, 1);
    }
    pthread_mutex_unlock(&set->mu);
    fault_rule_free(gone);
    return gone != NULL;
}

size_t fault_set_clear(struct fault_set *set)
{
    struct fault_rule *r;
    size_t n = 0;

    pthread_mutex_lock(&set->mu);
    r = set->rules;
    set->rules = NULL;
    atomic_store(&set->count, 0);
    pthread_mutex_unlock(&set->mu);
    while (r) {
        struct fault_rule *next = r->next;
        fault_rule_free(r);
        r = next;
        n++;
    }
    return n;
}

json_t *fault_set_list(struct fault_set *set)
{
    json_t *list = json_array();

    pthread_mutex_lock(&set->mu);
    for (struct fault_rule *r = set->rules; r; r = r->next)
        json_array_append_new(list, fault_rule_describe(r));
    pthread_mutex_unlock(&set->mu);
    return json_pack("{s:o}", "faults", list);
}

static bool names_operation(const struct fault_rule *r, const char *operation)
{
    if (!r->operation_count) return true;
    for (size_t i = 0; i < r->operation_count; i++)
        if (strcmp(r->operations[i], operation) == 0) return true;
    return false;
}

static bool names_table(const struct fault_targets *t, const char *table)
{
    for (size_t i = 0; i < t->table_count; i++)
        if (strcmp(t->tables[i], table) == 0) return true;
    return false;
}

static bool has_key(const struct fault_targets *t, const json_t *key)
{
    for (size_t i = 0; i < t->n; i++)
        if (fault_key_matches(key, t->v[i].attrs)) return true;
    return false;
}

/* Whether r's match and window hold for the call (the trigger's count and
 * probability are judged after, only for rules that match). */
static bool matches(const struct fault_rule *r, const struct fault_call *call,
                    const struct fault_targets *t, int64_t now_ms)
{
    if (!names_operation(r, call->operation)) return false;
    if (r->access_key && (!call->access_key || strcmp(r->access_key, call->access_key) != 0))
        return false;
    if (r->table && !names_table(t, r->table)) return false;
    if (r->index && (!t->index || strcmp(r->index, t->index) != 0)) return false;
    if (r->key && !has_key(t, r->key)) return false;
    if (r->has_window && (now_ms < r->from_ms || now_ms >= r->until_ms)) return false;
    return fault_effect_applies(r, call->operation, t);
}

void fault_set_decide(struct fault_set *set, const struct fault_call *call, int64_t now_ms,
                      struct fault_decision *out)
{
    struct fault_targets t;

    memset(out, 0, sizeof *out);
    if (!set || atomic_load(&set->count) == 0) return;
    fault_targets_collect(call->operation, call->body, &t);
    pthread_mutex_lock(&set->mu);
    for (struct fault_rule *r = set->rules; r; r = r->next) {
        if (!matches(r, call, &t, now_ms)) continue;
        r->matched++;
        if (r->has_times && r->remaining == 0) continue;
        if (r->has_probability && !(fault_rule_draw(r) < r->probability)) continue;
        if (r->has_times) r->remaining--;
        r->fired++;
        fault_effect_decide(r, call, &t, out);
        break;
    }
    pthread_mutex_unlock(&set->mu);
    fault_targets_clear(&t);
}

void fault_decision_clear(struct fault_decision *d)
{
    ddb_error_clear(&d->err);
    failure_details_clear(&d->failure);
    json_decref(d->withheld);
    memset(d, 0, sizeof *d);
}

char *fault_unprocessed_answer(const struct fault_decision *d, const char *answer, size_t len,
                               size_t *out_len)
{
    json_t *doc = answer ? json_loadb(answer, len, 0, NULL) : json_object();
    json_t *unprocessed;
    const char *table;
    json_t *entry;
    char *text;

    if (!json_is_object(doc)) {
        json_decref(doc);
        return NULL;
    }
    if (!answer && strcmp(d->unprocessed_member, "UnprocessedKeys") == 0)
        json_object_set_new(doc, "Responses", json_object());
    unprocessed = json_object_get(doc, d->unprocessed_member);
    if (!json_is_object(unprocessed)) {
        unprocessed = json_object();
        json_object_set_new(doc, d->unprocessed_member, unprocessed);
    }
    json_object_foreach(d->withheld, table, entry)
    {
        json_t *have = json_object_get(unprocessed, table);
        if (!have) {
            json_object_set(unprocessed, table, entry);
        } else if (json_is_array(have)) {
            json_array_extend(have, entry);
        } else {
            json_array_extend(json_object_get(have, "Keys"), json_object_get(entry, "Keys"));
        }
    }
    text = json_dumps(doc, JSON_COMPACT);
    json_decref(doc);
    *out_len = text ? strlen(text) : 0;
    return text;
}
