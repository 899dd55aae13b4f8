/*
 * test_faults.c - fault rules without a server: what a rule accepts and
 * refuses, which calls it matches, its triggers (count, seeded probability,
 * engine-time window), and what it does to a batch or a transaction.
 */
#include "api/faults/faults.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>

static json_t *parse(const char *text)
{
    json_t *j = json_loads(text, 0, NULL);
    if (!j) abort();
    return j;
}

/* Adds rules from text; returns the rc and frees the message. */
static int add(struct fault_set *set, const char *text)
{
    json_t *doc = parse(text);
    char *why = NULL;
    int rc = fault_set_add(set, doc, NULL, &why);
    free(why);
    json_decref(doc);
    return rc;
}

/* The decision's kind for one call with that body. */
static enum fault_kind decide(struct fault_set *set, const char *operation, const char *key,
                              const char *body, int64_t now_ms)
{
    json_t *b = parse(body);
    struct fault_call call = {operation, key, b};
    struct fault_decision d;
    enum fault_kind kind;

    fault_set_decide(set, &call, now_ms, &d);
    kind = d.kind;
    fault_decision_clear(&d);
    json_decref(b);
    return kind;
}

static void test_refused_rules(void)
{
    static const char *const bad[] = {
        "{}",
        "{\"action\": {\"type\": \"error\", \"error\": \"NoSuchException\"}}",
        "{\"action\": {\"type\": \"error\", \"error\": \"ThrottlingException\"}, \"mach\": {}}",
        "{\"action\": {\"type\": \"latency\"}}",
        "{\"action\": {\"type\": \"cancel\", \"reason\": \"Nope\"}}",
        "{\"action\": {\"type\": \"lose_answer\", \"how\": \"later\"}}",
        "{\"action\": {\"type\": \"latency\", \"ms\": 5}, \"trigger\": {\"probability\": 2}}",
        "{\"action\": {\"type\": \"latency\", \"ms\": 5}, \"trigger\": {\"seed\": 2}}",
        "{\"action\": {\"type\": \"latency\", \"ms\": 5}, \"match\": {\"key\": {\"pk\": \"a\"}}}",
        "{\"action\": {\"type\": \"latency\", \"ms\": 5},"
        " \"trigger\": {\"from_ms\": 5, \"until_ms\": 5}}",
        /* all or nothing: the second rule is bad */
        "[{\"action\": {\"type\": \"latency\", \"ms\": 5}}, {\"action\": {}}]",
    };
    struct fault_set *set = fault_set_new();
    json_t *list;

    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_INT_EQ(add(set, bad[i]), -1);
    list = fault_set_list(set);
    CHECK_INT_EQ(json_array_size(json_object_get(list, "faults")), 0);
    json_decref(list);
    CHECK_INT_EQ(add(set, "{\"id\": \"a\", \"action\": {\"type\": \"latency\", \"ms\": 5}}"), 0);
    CHECK_INT_EQ(add(set, "{\"id\": \"a\", \"action\": {\"type\": \"latency\", \"ms\": 5}}"), -1);
    CHECK(fault_set_remove(set, "a"));
    CHECK(!fault_set_remove(set, "a"));
    fault_set_free(set);
}

static void test_matching_and_count(void)
{
    struct fault_set *set = fault_set_new();
    const char *put =
        "{\"TableName\": \"T\", \"Item\": {\"pk\": {\"S\": \"a\"}, \"n\": {\"N\": \"1\"}}}";
    json_t *list;

    CHECK_INT_EQ(add(set,
                     "{\"id\": \"t\", \"match\": {\"operation\": \"PutItem\", \"table\": \"T\","
                     " \"access_key\": \"k1\", \"key\": {\"pk\": {\"S\": \"a\"}}},"
                     " \"action\": {\"type\": \"error\", \"error\": \"ThrottlingException\"},"
                     " \"trigger\": {\"times\": 2}}"),
                 0);
    CHECK_INT_EQ(decide(set, "GetItem", "k1", put, 0), FAULT_NONE);
    CHECK_INT_EQ(decide(set, "PutItem", "k2", put, 0), FAULT_NONE);
    CHECK_INT_EQ(decide(set, "PutItem", "k1",
                        "{\"TableName\": \"U\", \"Item\": {\"pk\": {\"S\": \"a\"}}}", 0),
                 FAULT_NONE);
    CHECK_INT_EQ(decide(set, "PutItem", "k1",
                        "{\"TableName\": \"T\", \"Item\": {\"pk\": {\"S\": \"b\"}}}", 0),
                 FAULT_NONE);
    CHECK_INT_EQ(decide(set, "PutItem", "k1", put, 0), FAULT_ERROR);
    CHECK_INT_EQ(decide(set, "PutItem", "k1", put, 0), FAULT_ERROR);
    CHECK_INT_EQ(decide(set, "PutItem", "k1", put, 0), FAULT_NONE);
    list = fault_set_list(set);
    {
        json_t *r = json_array_get(json_object_get(list, "faults"), 0);
        CHECK_INT_EQ(json_integer_value(json_object_get(r, "fired")), 2);
        CHECK_INT_EQ(json_integer_value(json_object_get(r, "matched")), 3);
        CHECK_INT_EQ(json_integer_value(json_object_get(r, "remaining")), 0);
    }
    json_decref(list);
    CHECK_INT_EQ(fault_set_clear(set), 1);
    CHECK(!fault_set_active(set));
    fault_set_free(set);
}

/* The same seed, the same sequence; another seed, another. */
static void test_probability_and_window(void)
{
#define RULE                                                                                       \
    "{\"action\": {\"type\": \"error\", \"error\": \"InternalServerError\"},"                      \
    " \"trigger\": {\"probability\": 0.5, \"seed\": %d}}"
    char text[256], seq[3][65];
    int fired = 0;

    for (int run = 0; run < 3; run++) {
        struct fault_set *set = fault_set_new();
        snprintf(text, sizeof text, RULE, run == 2 ? 8 : 7);
        CHECK_INT_EQ(add(set, text), 0);
        for (int i = 0; i < 64; i++)
            seq[run][i] =
                decide(set, "Scan", "k", "{\"TableName\": \"T\"}", 0) == FAULT_ERROR ? '1' : '0';
        seq[run][64] = '\0';
        fault_set_free(set);
    }
    CHECK_STR_EQ(seq[0], seq[1]);
    CHECK(strcmp(seq[0], seq[2]) != 0);
    for (int i = 0; i < 64; i++)
        fired += seq[0][i] == '1';
    CHECK(fired > 10 && fired < 54); /* 0.5 of 64: far from both ends */

    {
        struct fault_set *set = fault_set_new();
        CHECK_INT_EQ(add(set, "{\"action\": {\"type\": \"latency\", \"ms\": 7},"
                              " \"trigger\": {\"from_ms\": 1000, \"until_ms\": 2000}}"),
                     0);
        CHECK_INT_EQ(decide(set, "Scan", "k", "{\"TableName\": \"T\"}", 999), FAULT_NONE);
        CHECK_INT_EQ(decide(set, "Scan", "k", "{\"TableName\": \"T\"}", 1000), FAULT_LATENCY);
        CHECK_INT_EQ(decide(set, "Scan", "k", "{\"TableName\": \"T\"}", 1999), FAULT_LATENCY);
        CHECK_INT_EQ(decide(set, "Scan", "k", "{\"TableName\": \"T\"}", 2000), FAULT_NONE);
        fault_set_free(set);
    }
}

static void test_unprocessed(void)
{
    struct fault_set *set = fault_set_new();
    json_t *body = parse("{\"RequestItems\": {\"T\": ["
                         "{\"PutRequest\": {\"Item\": {\"pk\": {\"S\": \"1\"}}}},"
                         "{\"PutRequest\": {\"Item\": {\"pk\": {\"S\": \"2\"}}}},"
                         "{\"DeleteRequest\": {\"Key\": {\"pk\": {\"S\": \"3\"}}}}]}}");
    struct fault_call call = {"BatchWriteItem", "k", body};
    struct fault_decision d;
    size_t len;
    char *answer;
    json_t *a;

    /* Not a batch: the rule does not apply. */
    CHECK_INT_EQ(add(set, "{\"action\": {\"type\": \"unprocessed\", \"count\": 2}}"), 0);
    CHECK_INT_EQ(decide(set, "PutItem", "k", "{\"TableName\": \"T\", \"Item\": {}}", 0),
                 FAULT_NONE);
    fault_set_decide(set, &call, 0, &d);
    CHECK_INT_EQ(d.kind, FAULT_UNPROCESSED);
    CHECK(!d.request_emptied);
    CHECK_INT_EQ(json_array_size(json_object_get(json_object_get(body, "RequestItems"), "T")), 1);
    answer = fault_unprocessed_answer(&d, "{\"UnprocessedItems\":{}}", 23, &len);
    a = parse(answer);
    CHECK_INT_EQ(json_array_size(json_object_get(json_object_get(a, "UnprocessedItems"), "T")), 2);
    json_decref(a);
    free(answer);
    fault_decision_clear(&d);
    json_decref(body);

    /* A key: only its requests; every one withheld empties the request. */
    fault_set_clear(set);
    CHECK_INT_EQ(add(set, "{\"match\": {\"key\": {\"pk\": {\"S\": \"9\"}}},"
                          " \"action\": {\"type\": \"unprocessed\"}}"),
                 0);
    body = parse("{\"RequestItems\": {\"T\": {\"Keys\": [{\"pk\": {\"S\": \"9\"}}],"
                 " \"ConsistentRead\": true}}}");
    call = (struct fault_call){"BatchGetItem", "k", body};
    fault_set_decide(set, &call, 0, &d);
    CHECK_INT_EQ(d.kind, FAULT_UNPROCESSED);
    CHECK(d.request_emptied);
    answer = fault_unprocessed_answer(&d, NULL, 0, &len);
    CHECK_STR_EQ(answer, "{\"Responses\":{},\"UnprocessedKeys\":{\"T\":{\"Keys\":[{\"pk\":{\"S\":"
                         "\"9\"}}],\"ConsistentRead\":true}}}");
    free(answer);
    fault_decision_clear(&d);
    json_decref(body);
    fault_set_free(set);
}

static void test_cancel(void)
{
    struct fault_set *set = fault_set_new();
    json_t *body =
        parse("{\"TransactItems\": ["
              "{\"Put\": {\"TableName\": \"T\", \"Item\": {\"pk\": {\"S\": \"1\"}}}},"
              "{\"Delete\": {\"TableName\": \"T\", \"Key\": {\"pk\": {\"S\": \"2\"}}}}]}");
    struct fault_call call = {"TransactWriteItems", "k", body};
    struct fault_decision d;

    CHECK_INT_EQ(add(set,
                     "{\"match\": {\"key\": {\"pk\": {\"S\": \"2\"}}},"
                     " \"action\": {\"type\": \"cancel\", \"reason\": \"TransactionConflict\"}}"),
                 0);
    fault_set_decide(set, &call, 0, &d);
    CHECK_INT_EQ(d.kind, FAULT_CANCEL);
    CHECK_INT_EQ(d.err.code, DDB_TRANSACTION_CANCELED);
    CHECK_STR_EQ(d.err.message, "Transaction cancelled, please refer cancellation reasons for "
                                "specific reasons [None, TransactionConflict]");
    CHECK_INT_EQ(d.failure.reason_count, 2);
    CHECK_STR_EQ(d.failure.reasons[1].message, "Transaction is ongoing for the item");
    CHECK(d.failure.reasons[0].message == NULL);
    fault_decision_clear(&d);
    /* A position past the last action: the rule does not apply. */
    fault_set_clear(set);
    CHECK_INT_EQ(add(set, "{\"action\": {\"type\": \"cancel\", \"reason\": \"ThrottlingError\","
                          " \"position\": 2}}"),
                 0);
    fault_set_decide(set, &call, 0, &d);
    CHECK_INT_EQ(d.kind, FAULT_NONE);
    fault_decision_clear(&d);
    json_decref(body);
    fault_set_free(set);
}

int main(void)
{
    RUN(test_refused_rules);
    RUN(test_matching_and_count);
    RUN(test_probability_and_window);
    RUN(test_unprocessed);
    RUN(test_cancel);
    return check_report();
}
