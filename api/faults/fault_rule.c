/*
 * fault_rule.c - one fault rule from its JSON, and back (fault_rule.h).
 *
 * Every member is checked: an unknown one is refused (a rule with a typo
 * would otherwise match everything), and so is a value of the wrong type or
 * out of range, with the member named. The catalogues below are the errors
 * and cancellation reasons as DynamoDB writes them (developerguide
 * Programming.Errors, "Error messages and codes", and the API reference's
 * Errors sections; the throughput texts are those storage/table/throttle.c
 * raises, as AWS words them on the wire).
 */
#include "api/faults/fault_rule.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The errors a fault can answer: the name a rule gives (the __type's last
 * part) and DynamoDB's message. HTTP status and __type come from
 * storage/base/error.h. */
static const struct {
    const char *name;
    enum ddb_error_code code;
    const char *message;
} errors[] = {
    {"ThrottlingException", DDB_THROTTLING, "Rate of requests exceeds the allowed throughput."},
    {"ProvisionedThroughputExceededException", DDB_PROVISIONED_THROUGHPUT_EXCEEDED,
     "The level of configured provisioned throughput for the table was exceeded. Consider "
     "increasing your provisioning level with the UpdateTable API."},
    {"RequestLimitExceeded", DDB_REQUEST_LIMIT_EXCEEDED,
     "Throughput exceeds the current throughput limit for your account. To request a limit "
     "increase, contact AWS Support at https://aws.amazon.com/support."},
    {"InternalServerError", DDB_INTERNAL_SERVER_ERROR, "Internal server error"},
    {"ServiceUnavailable", DDB_SERVICE_UNAVAILABLE,
     "DynamoDB is currently unavailable. (This should be a temporary state.)"},
    {"TransactionConflictException", DDB_TRANSACTION_CONFLICT,
     "Transaction is ongoing for the item"},
    {"TransactionInProgressException", DDB_TRANSACTION_IN_PROGRESS,
     "The transaction with the given request token is already in progress."},
    {"ItemCollectionSizeLimitExceededException", DDB_ITEM_COLLECTION_SIZE_LIMIT_EXCEEDED,
     "Collection size exceeded."},
    {"LimitExceededException", DDB_LIMIT_EXCEEDED, "Too many operations for a given subscriber."},
};

/* The Codes of CancellationReasons a fault can set, with their Message. */
static const struct {
    const char *code;
    const char *message;
} reasons[] = {
    {"ConditionalCheckFailed", "The conditional request failed"},
    {"TransactionConflict", "Transaction is ongoing for the item"},
    {"ItemCollectionSizeLimitExceeded", "Collection size exceeded."},
    {"ProvisionedThroughputExceeded",
     "The level of configured provisioned throughput for the table was exceeded. Consider "
     "increasing your provisioning level with the UpdateTable API."},
    {"ThrottlingError",
     "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically "
     "scaling your table or index so please try again shortly. If exceptions persist, check if "
     "you have a hot key: "
     "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/"
     "bp-partition-key-design.html"},
    {"ValidationError", "One or more parameter values were invalid"},
};

const char *fault_error_message(enum ddb_error_code code)
{
    for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
        if (errors[i].code == code) return errors[i].message;
    return "";
}

const char *fault_reason_message(const char *reason)
{
    for (size_t i = 0; i < sizeof reasons / sizeof *reasons; i++)
        if (strcmp(reasons[i].code, reason) == 0) return reasons[i].message;
    return NULL;
}

__attribute__((format(printf, 3, 4))) static struct fault_rule *
refuse(struct fault_rule *r, char **why, const char *fmt, ...)
{
    struct text_buf b = {0};
    va_list ap;
    size_t len;

    text_buf_printf(&b, "fault %s: ", r->id);
    va_start(ap, fmt);
    {
        char line[512];
        vsnprintf(line, sizeof line, fmt, ap);
        text_buf_puts(&b, line);
    }
    va_end(ap);
    *why = text_buf_take(&b, &len);
    fault_rule_free(r);
    return NULL;
}

/* Whether every member of obj is one of the NULL-terminated names. */
static const char *unknown_member(const json_t *obj, const char *const *names)
{
    const char *k;
    json_t *v;

    json_object_foreach((json_t *) obj, k, v)
    {
        size_t i = 0;
        while (names[i] && strcmp(names[i], k) != 0)
            i++;
        if (!names[i]) return k;
    }
    return NULL;
}

/* An optional string member: 0 and *out (owned, or NULL when absent), -1 when
 * present and not a non-empty string. */
static int opt_string(const json_t *obj, const char *key, char **out)
{
    const json_t *v = json_object_get(obj, key);

    *out = NULL;
    if (!v) return 0;
    if (!json_is_string(v) || !json_string_length(v)) return -1;
    *out = xstrdup(json_string_value(v));
    return 0;
}

/* An optional non-negative integer member: 1 when present, 0 when absent,
 * -1 when not an integer in [0, max]. */
static int opt_count(const json_t *obj, const char *key, long long max, long long *out)
{
    const json_t *v = json_object_get(obj, key);

    if (!v) return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max) return -1;
    *out = json_integer_value(v);
    return 1;
}

static struct fault_rule *parse_match(struct fault_rule *r, const json_t *m, char **why)
{
    static const char *const names[] = {"operation", "table", "index", "access_key", "key", NULL};
    const json_t *ops = json_object_get(m, "operation");
    const char *bad;

    if (!json_is_object(m)) return refuse(r, why, "\"match\" must be an object");
    if ((bad = unknown_member(m, names)))
        return refuse(r, why,
                      "\"match\" has no member \"%s\" (operation, table, index, "
                      "access_key, key)",
                      bad);
    if (json_is_string(ops)) {
        r->operations = xmalloc(sizeof *r->operations);
        r->operations[r->operation_count++] = xstrdup(json_string_value(ops));
    } else if (json_is_array(ops) && json_array_size(ops)) {
        r->operations = xcalloc(json_array_size(ops), sizeof *r->operations);
        for (size_t i = 0; i < json_array_size(ops); i++) {
            if (!json_is_string(json_array_get(ops, i)))
                return refuse(r, why, "\"match.operation\" must be a name or a list of names");
            r->operations[r->operation_count++] =
                xstrdup(json_string_value(json_array_get(ops, i)));
        }
    } else if (ops) {
        return refuse(r, why, "\"match.operation\" must be a name or a list of names");
    }
    if (opt_string(m, "table", &r->table) || opt_string(m, "index", &r->index) ||
        opt_string(m, "access_key", &r->access_key))
        return refuse(r, why,
                      "\"match.table\", \"match.index\" and \"match.access_key\" are "
                      "non-empty strings");
    if (json_object_get(m, "key")) {
        const char *name;
        json_t *v;
        r->key = json_deep_copy(json_object_get(m, "key"));
        if (!json_is_object(r->key) || !json_object_size(r->key))
            return refuse(r, why,
                          "\"match.key\" must be attributes in DynamoDB JSON, like "
                          "{\"pk\": {\"S\": \"a\"}}");
        json_object_foreach(r->key, name, v)
        {
            if (!json_is_object(v) || json_object_size(v) != 1)
                return refuse(r, why,
                              "\"match.key.%s\" must be one attribute value, like "
                              "{\"S\": \"a\"}",
                              name);
        }
    }
    return r;
}

static struct fault_rule *parse_error(struct fault_rule *r, const json_t *a, char **why)
{
    const char *name = json_string_value(json_object_get(a, "error"));

    for (size_t i = 0; name && i < sizeof errors / sizeof *errors; i++) {
        if (strcmp(errors[i].name, name) == 0) {
            r->error_code = errors[i].code;
            return r;
        }
    }
    return refuse(r, why,
                  "\"action.error\" must be one of ThrottlingException, "
                  "ProvisionedThroughputExceededException, RequestLimitExceeded, "
                  "InternalServerError, ServiceUnavailable, TransactionConflictException, "
                  "TransactionInProgressException, ItemCollectionSizeLimitExceededException, "
                  "LimitExceededException");
}

static struct fault_rule *parse_action(struct fault_rule *r, const json_t *a, char **why)
{
    static const char *const names[] = {"type",     "error",  "message", "ms", "count",
                                        "position", "reason", "how",     NULL};
    const char *type = json_string_value(json_object_get(a, "type"));
    const char *bad;
    long long n = 0;

    if (!json_is_object(a) || !type)
        return refuse(r, why,
                      "\"action\" must be an object with a \"type\" (error, latency, "
                      "unprocessed, cancel, lose_answer)");
    if ((bad = unknown_member(a, names)))
        return refuse(r, why, "\"action\" has no member \"%s\"", bad);
    if (opt_string(a, "message", &r->message))
        return refuse(r, why, "\"action.message\" must be a non-empty string");
    if (strcmp(type, "error") == 0) {
        r->action = FAULT_ACTION_ERROR;
        return parse_error(r, a, why);
    }
    if (strcmp(type, "latency") == 0) {
        r->action = FAULT_ACTION_LATENCY;
        if (opt_count(a, "ms", 600000, &n) != 1)
            return refuse(r, why, "\"action.ms\" must be an integer from 0 to 600000");
        r->latency_ms = (unsigned) n;
        return r;
    }
    if (strcmp(type, "unprocessed") == 0) {
        r->action = FAULT_ACTION_UNPROCESSED;
        r->unprocessed_count = -1;
        switch (opt_count(a, "count", 100, &n)) {
        case -1: return refuse(r, why, "\"action.count\" must be an integer from 0 to 100");
        case 1: r->unprocessed_count = (long) n; break;
        default: break;
        }
        return r;
    }
    if (strcmp(type, "cancel") == 0) {
        r->action = FAULT_ACTION_CANCEL;
        r->position = -1;
        if (opt_string(a, "reason", &r->reason) || !r->reason || !fault_reason_message(r->reason))
            return refuse(r, why,
                          "\"action.reason\" must be one of ConditionalCheckFailed, "
                          "TransactionConflict, ItemCollectionSizeLimitExceeded, "
                          "ProvisionedThroughputExceeded, ThrottlingError, ValidationError");
        switch (opt_count(a, "position", 99, &n)) {
        case -1: return refuse(r, why, "\"action.position\" must be an integer from 0 to 99");
        case 1: r->position = (long) n; break;
        default: break;
        }
        return r;
    }
    if (strcmp(type, "lose_answer") == 0) {
        const char *how = json_string_value(json_object_get(a, "how"));
        r->action = FAULT_ACTION_LOSE_ANSWER;
        if (json_object_get(a, "how") && (!how || (strcmp(how, "reset") && strcmp(how, "500"))))
            return refuse(r, why, "\"action.how\" must be \"reset\" or \"500\"");
        r->lose_reset = !how || strcmp(how, "reset") == 0;
        return r;
    }
    return refuse(r, why,
                  "\"action.type\" must be error, latency, unprocessed, cancel or lose_answer");
}

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double fault_rule_draw(struct fault_rule *r)
{
    return (double) (splitmix64(&r->rng) >> 11) / 9007199254740992.0; /* 2^53 */
}

static struct fault_rule *parse_trigger(struct fault_rule *r, const json_t *t, char **why)
{
    static const char *const names[] = {"times",   "probability", "seed",
                                        "from_ms", "until_ms",    NULL};
    const json_t *p = json_object_get(t, "probability"), *seed = json_object_get(t, "seed");
    const json_t *from = json_object_get(t, "from_ms"), *until = json_object_get(t, "until_ms");
    const char *bad;
    long long n;

    if (!json_is_object(t)) return refuse(r, why, "\"trigger\" must be an object");
    if ((bad = unknown_member(t, names)))
        return refuse(r, why,
                      "\"trigger\" has no member \"%s\" (times, probability, seed, "
                      "from_ms, until_ms)",
                      bad);
    switch (opt_count(t, "times", INT64_MAX, &n)) {
    case -1: return refuse(r, why, "\"trigger.times\" must be a non-negative integer");
    case 1:
        r->has_times = true;
        r->remaining = (uint64_t) n;
        break;
    default: break;
    }
    if (p) {
        if (!json_is_number(p) || json_number_value(p) < 0 || json_number_value(p) > 1)
            return refuse(r, why, "\"trigger.probability\" must be a number from 0 to 1");
        r->has_probability = true;
        r->probability = json_number_value(p);
    }
    if (seed && !json_is_integer(seed))
        return refuse(r, why, "\"trigger.seed\" must be an integer");
    if (seed && !p) return refuse(r, why, "\"trigger.seed\" goes with \"trigger.probability\"");
    r->rng = seed ? (uint64_t) json_integer_value(seed) : 0;
    if ((from && !json_is_integer(from)) || (until && !json_is_integer(until)))
        return refuse(r, why,
                      "\"trigger.from_ms\" and \"trigger.until_ms\" are engine times in "
                      "milliseconds (GET /ddbemu/clock)");
    if (from || until) {
        r->has_window = true;
        r->from_ms = from ? (int64_t) json_integer_value(from) : INT64_MIN;
        r->until_ms = until ? (int64_t) json_integer_value(until) : INT64_MAX;
        if (r->from_ms >= r->until_ms)
            return refuse(r, why, "\"trigger.from_ms\" must be before \"trigger.until_ms\"");
    }
    return r;
}

struct fault_rule *fault_rule_parse(const json_t *spec, const char *default_id, char **why)
{
    static const char *const names[] = {"id", "match", "action", "trigger", NULL};
    struct fault_rule *r = xcalloc(1, sizeof *r);
    const json_t *id = json_object_get(spec, "id");
    const char *bad;

    snprintf(r->id, sizeof r->id, "%s", default_id);
    if (!json_is_object(spec)) return refuse(r, why, "a rule is a JSON object");
    if (id && (!json_is_string(id) || !json_string_length(id) || json_string_length(id) >= 64 ||
               strchr(json_string_value(id), '/')))
        return refuse(r, why, "\"id\" must be a string of 1 to 63 characters without '/'");
    if (id) snprintf(r->id, sizeof r->id, "%s", json_string_value(id));
    if ((bad = unknown_member(spec, names)))
        return refuse(r, why, "a rule has no member \"%s\" (id, match, action, trigger)", bad);
    if (json_object_get(spec, "match") && !parse_match(r, json_object_get(spec, "match"), why))
        return NULL;
    if (!parse_action(r, json_object_get(spec, "action"), why)) return NULL;
    if (json_object_get(spec, "trigger") &&
        !parse_trigger(r, json_object_get(spec, "trigger"), why))
        return NULL;
    r->spec = json_deep_copy(spec);
    json_object_set_new(r->spec, "id", json_string(r->id));
    return r;
}

void fault_rule_free(struct fault_rule *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->operation_count; i++)
        free(r->operations[i]);
    free(r->operations);
    free(r->table);
    free(r->index);
    free(r->access_key);
    json_decref(r->key);
    free(r->message);
    free(r->reason);
    json_decref(r->spec);
    free(r);
}

json_t *fault_rule_describe(const struct fault_rule *r)
{
    json_t *d = json_deep_copy(r->spec);

    json_object_set_new(d, "matched", json_integer((json_int_t) r->matched));
    json_object_set_new(d, "fired", json_integer((json_int_t) r->fired));
    if (r->has_times) json_object_set_new(d, "remaining", json_integer((json_int_t) r->remaining));
    return d;
}
