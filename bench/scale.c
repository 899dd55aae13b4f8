/*
 * scale.c - how the cost of one request grows with the size of its item.
 *
 * Every operation on maps, lists, sets, expression-attribute tables,
 * projections and update actions must be near-linear in its input: the CPU
 * time per attribute (or element) must be about the same for an item of
 * 1,000 attributes as for one of 40,000 (issue 18; a quadratic step shows up
 * as a 40x difference). This program drives the real request path in
 * process - api_handle() with raw bodies, as the server calls it, minus the
 * socket - so JSON parsing, shape checks, decoding, storage, expression
 * checks, evaluation and encoding are all measured, and prints, per
 * workload, the CPU time per attribute at two sizes and their ratio.
 *
 *   scale                 sizes 1,000 and 40,000; each timed call repeated
 *                         until it has used at least 0.2 s of CPU
 *   scale --smoke         sizes 100 and 2,000, one call each: checks that
 *                         every workload runs and answers correctly (the
 *                         test command runs this; no timing is asserted)
 *   scale --one W N       workload number W (0-based, in the table's order)
 *                         at size N, once: for a profiler or callgrind
 *
 * Time is the calling thread's CPU time (CLOCK_THREAD_CPUTIME_ID), which a
 * busy machine disturbs far less than wall time. Only the measured call is
 * timed; resetting the item between calls is not. Every answer is checked
 * (status, and the number of attributes or elements it carries), in both
 * modes; a wrong answer exits non-zero.
 *
 * Ownership: bodies are text_bufs freed where built; answers are parsed with
 * jansson and released at once.
 */
#include "api/http/dispatch.h"
#include "api/ops/ops.h"
#include "api/ops/request.h"
#include "storage/base/text.h"
#include "storage/engine/db.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define AUTH                                                                                       \
    "AWS4-HMAC-SHA256 Credential=scale/20260101/us-east-1/dynamodb/aws4_request, "                 \
    "SignedHeaders=host;x-amz-date, Signature=0"

/* DynamoDB's expression length limit, less room for the clause keyword. */
#define EXPRESSION_ROOM 4000

static struct api_context ctx;
static struct api_config config;
static bool failed;

/* What a measured call cost: CPU seconds. */
struct cost {
    double cpu;
};

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* The measured calls go through here and set-up calls do not, so that
 * callgrind can count only them: --toggle-collect=measured_handle (see
 * bench/scale-instructions). */
__attribute__((noinline)) static void measured_handle(const struct http_request *req,
                                                      struct http_response *resp)
{
    api_handle(&ctx, req, resp);
}

/* One request; returns the parsed answer (caller decrefs) and adds the CPU
 * cost of api_handle to *cost when cost is not NULL. Exits on a non-200. */
static json_t *call(const char *op, const struct text_buf *body, struct cost *cost)
{
    char target[64];
    struct http_field headers[4];
    struct http_request req;
    struct http_response resp;
    json_t *answer;
    double start;

    snprintf(target, sizeof target, "DynamoDB_20120810.%s", op);
    headers[0] = (struct http_field){"Content-Type", "application/x-amz-json-1.0"};
    headers[1] = (struct http_field){"X-Amz-Target", target};
    headers[2] = (struct http_field){"Authorization", AUTH};
    headers[3] = (struct http_field){"X-Amz-Date", "20260101T000000Z"};
    memset(&req, 0, sizeof req);
    memset(&resp, 0, sizeof resp);
    req.method = "POST";
    req.path = "/";
    req.headers = headers;
    req.header_count = 4;
    req.body = body->data;
    req.body_len = body->len;
    if (!cost) {
        api_handle(&ctx, &req, &resp);
    } else {
        start = cpu_seconds();
        measured_handle(&req, &resp);
        cost->cpu += cpu_seconds() - start;
    }
    if (resp.status != 200) {
        fprintf(stderr, "scale: %s answered %d: %.*s\n", op, resp.status,
                (int) (resp.body_len > 400 ? 400 : resp.body_len), resp.body ? resp.body : "");
        exit(1);
    }
    answer = json_loadb(resp.body ? resp.body : "{}", resp.body_len, 0, NULL);
    http_response_clear(&resp);
    return answer;
}

/* Runs the request and throws the answer away (set-up steps, not timed). */
static void call_untimed(const char *op, const struct text_buf *body)
{
    json_decref(call(op, body, NULL));
}

static void expect(bool ok, const char *workload, size_t n, const char *what)
{
    if (ok) return;
    fprintf(stderr, "scale: %s at %zu: wrong answer (%s)\n", workload, n, what);
    failed = true;
}

/* ---- request bodies ---- */

/* {"TableName":"scale","Item":{"pk":{"S":"k"}, <attrs>}} with n attributes
 * a0..a(n-1) of {"N":"1"} (8 bytes each on average: 40,000 fit in 400 KB). */
static void item_body(struct text_buf *b, size_t n)
{
    text_buf_puts(b, "{\"TableName\":\"scale\",\"Item\":{\"pk\":{\"S\":\"k\"}");
    for (size_t i = 0; i < n; i++)
        text_buf_printf(b, ",\"a%zu\":{\"N\":\"1\"}", i);
    text_buf_puts(b, "}}");
}

/* An item holding one string set (or list) of n elements. */
static void collection_body(struct text_buf *b, size_t n, bool list)
{
    text_buf_printf(b, "{\"TableName\":\"scale\",\"Item\":{\"pk\":{\"S\":\"k\"},\"c\":{\"%s\":[",
                    list ? "L" : "SS");
    for (size_t i = 0; i < n; i++) {
        if (list)
            text_buf_printf(b, "%s{\"N\":\"%zu\"}", i ? "," : "", i);
        else
            text_buf_printf(b, "%s\"s%zu\"", i ? "," : "", i);
    }
    text_buf_puts(b, "]}}}");
}

static const char KEY[] = "\"TableName\":\"scale\",\"Key\":{\"pk\":{\"S\":\"k\"}}";

static size_t answer_attr_count(json_t *answer, const char *member)
{
    return json_object_size(json_object_get(answer, member));
}

/* ---- workloads: each measures one call at size n; returns CPU seconds ---- */

typedef struct cost workload_fn(size_t n);

/* Puts the item of n attributes; measured when cost is not NULL. */
static void put_item(size_t n, struct cost *cost)
{
    struct text_buf b = {0};
    item_body(&b, n);
    json_decref(call("PutItem", &b, cost));
    text_buf_clear(&b);
}

static struct cost w_put(size_t n)
{
    struct cost cpu = {0};
    put_item(n, &cpu);
    return cpu;
}

static struct cost w_get(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;
    put_item(n, NULL); /* untimed: the item of this size */
    text_buf_printf(&b, "{%s}", KEY);
    a = call("GetItem", &b, &cpu);
    expect(answer_attr_count(a, "Item") == n + 1, "get", n, "attribute count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

/* AttributesToGet naming every other attribute (no length limit, unlike a
 * ProjectionExpression): the path tree, its duplicate check and the lookups. */
static struct cost w_projection(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;
    put_item(n, NULL); /* untimed: the item of this size */
    text_buf_printf(&b, "{%s,\"AttributesToGet\":[", KEY);
    for (size_t i = 0; i < n; i += 2)
        text_buf_printf(&b, "%s\"a%zu\"", i ? "," : "", i);
    text_buf_puts(&b, "]}");
    a = call("GetItem", &b, &cpu);
    expect(answer_attr_count(a, "Item") == (n + 1) / 2, "projection", n, "attribute count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

/* An UpdateExpression as long as DynamoDB allows (about 360 SET actions
 * through #names), spread over the whole item. */
static struct cost w_update_expression(size_t n)
{
    struct text_buf b = {0}, expr = {0}, names = {0};
    size_t touched = 0, step;
    struct cost cpu = {0};
    json_t *a;

    put_item(n, NULL); /* untimed: the item of this size */
    step = n / 360 ? n / 360 : 1;
    text_buf_puts(&expr, "SET ");
    for (size_t i = 0; i < n && expr.len < EXPRESSION_ROOM - 20; i += step, touched++) {
        text_buf_printf(&expr, "%s#%zu = :v", touched ? ", " : "", touched);
        text_buf_printf(&names, "%s\"#%zu\":\"a%zu\"", touched ? "," : "", touched, i);
    }
    text_buf_printf(&b,
                    "{%s,\"UpdateExpression\":\"%s\",\"ExpressionAttributeNames\":{%s},"
                    "\"ExpressionAttributeValues\":{\":v\":{\"N\":\"2\"}},"
                    "\"ReturnValues\":\"UPDATED_NEW\"}",
                    KEY, expr.data, names.data);
    a = call("UpdateItem", &b, &cpu);
    expect(answer_attr_count(a, "Attributes") == touched, "update expression", n, "updated count");
    json_decref(a);
    text_buf_clear(&b);
    text_buf_clear(&expr);
    text_buf_clear(&names);
    return cpu;
}

/* Legacy AttributeUpdates putting every other attribute: update actions
 * without the expression length limit. */
static struct cost w_attribute_updates(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;

    put_item(n, NULL); /* untimed: the item of this size */
    text_buf_printf(&b, "{%s,\"ReturnValues\":\"UPDATED_NEW\",\"AttributeUpdates\":{", KEY);
    for (size_t i = 0; i < n; i += 2)
        text_buf_printf(&b, "%s\"a%zu\":{\"Action\":\"PUT\",\"Value\":{\"N\":\"2\"}}", i ? "," : "",
                        i);
    text_buf_puts(&b, "}}");
    a = call("UpdateItem", &b, &cpu);
    expect(answer_attr_count(a, "Attributes") == (n + 1) / 2, "AttributeUpdates", n,
           "updated count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

static size_t collection_count(json_t *answer, const char *member, const char *type)
{
    return json_array_size(
        json_object_get(json_object_get(json_object_get(answer, member), "c"), type));
}

/* PutItem and GetItem of a string set of n members (the duplicate check on
 * input, then the encoding). */
static struct cost w_string_set(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;

    collection_body(&b, n, false);
    json_decref(call("PutItem", &b, &cpu));
    text_buf_clear(&b);
    text_buf_printf(&b, "{%s}", KEY);
    a = call("GetItem", &b, &cpu);
    expect(collection_count(a, "Item", "SS") == n, "string set", n, "member count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

/* ADD of n/2 members, half of them new, to a set of n: set union. */
static struct cost w_string_set_add(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;

    collection_body(&b, n, false);
    call_untimed("PutItem", &b);
    text_buf_clear(&b);
    text_buf_printf(&b,
                    "{%s,\"UpdateExpression\":\"ADD c :s\",\"ReturnValues\":\"UPDATED_NEW\","
                    "\"ExpressionAttributeValues\":{\":s\":{\"SS\":[",
                    KEY);
    for (size_t i = 0; i < n / 2; i++)
        text_buf_printf(&b, "%s\"s%zu\"", i ? "," : "", n - n / 4 + i);
    text_buf_puts(&b, "]}}}");
    a = call("UpdateItem", &b, &cpu);
    expect(collection_count(a, "Attributes", "SS") == n - n / 4 + n / 2, "string set ADD", n,
           "member count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

/* PutItem and GetItem of a list of n numbers. */
static struct cost w_list(size_t n)
{
    struct text_buf b = {0};
    struct cost cpu = {0};
    json_t *a;

    collection_body(&b, n, true);
    json_decref(call("PutItem", &b, &cpu));
    text_buf_clear(&b);
    text_buf_printf(&b, "{%s}", KEY);
    a = call("GetItem", &b, &cpu);
    expect(collection_count(a, "Item", "L") == n, "list", n, "element count");
    json_decref(a);
    text_buf_clear(&b);
    return cpu;
}

static const struct {
    const char *name;
    workload_fn *fn;
} workloads[] = {
    {"PutItem, n attributes (decode)", w_put},
    {"GetItem, n attributes (encode)", w_get},
    {"GetItem, AttributesToGet of n/2", w_projection},
    {"UpdateExpression, ~360 SETs on n", w_update_expression},
    {"AttributeUpdates, n/2 PUTs on n", w_attribute_updates},
    {"string set of n: put + get", w_string_set},
    {"string set of n: ADD n/2", w_string_set_add},
    {"list of n: put + get", w_list},
};

/* CPU nanoseconds per attribute of one call at size n, the call repeated
 * until min_cpu seconds have been used (at least once). */
static double per_attribute_ns(workload_fn *fn, size_t n, double min_cpu)
{
    double total = 0;
    size_t reps = 0;
    do {
        total += fn(n).cpu;
        reps++;
    } while (total < min_cpu && reps < 1000);
    return total / (double) reps / (double) n * 1e9;
}

int main(int argc, char **argv)
{
    bool smoke = argc > 1 && strcmp(argv[1], "--smoke") == 0;
    size_t small = smoke ? 100 : 1000, large = smoke ? 2000 : 40000;
    double min_cpu = smoke ? 0 : 0.2;
    struct text_buf create = {0};

    bool one = argc == 4 && strcmp(argv[1], "--one") == 0;
    size_t one_workload = one ? strtoul(argv[2], NULL, 10) : 0;

    if ((argc > 1 && !smoke && !one) ||
        (one && one_workload >= sizeof workloads / sizeof workloads[0])) {
        fprintf(stderr, "usage: scale [--smoke | --one WORKLOAD N]\n");
        return 2;
    }
    ctx.db = db_new();
    ctx.config = &config;
    ctx.operations = api_operations;
    text_buf_puts(&create, "{\"TableName\":\"scale\",\"BillingMode\":\"PAY_PER_REQUEST\","
                           "\"AttributeDefinitions\":[{\"AttributeName\":\"pk\","
                           "\"AttributeType\":\"S\"}],"
                           "\"KeySchema\":[{\"AttributeName\":\"pk\",\"KeyType\":\"HASH\"}]}");
    call_untimed("CreateTable", &create);
    text_buf_clear(&create);

    if (one) {
        size_t n = strtoul(argv[3], NULL, 10);
        struct cost c = workloads[one_workload].fn(n);
        printf("%s at %zu: %.1f ns per attribute\n", workloads[one_workload].name, n,
               c.cpu / (double) n * 1e9);
        db_free(ctx.db);
        return failed;
    }
    printf("%-36s %10s %10s %7s\n", "CPU ns per attribute, n =", "small", "large", "ratio");
    printf("%-36s %10zu %10zu\n", "", small, large);
    for (size_t w = 0; w < sizeof workloads / sizeof workloads[0]; w++) {
        double a = per_attribute_ns(workloads[w].fn, small, min_cpu);
        double b = per_attribute_ns(workloads[w].fn, large, min_cpu);
        printf("%-36s %10.0f %10.0f %7.2f\n", workloads[w].name, a, b, b / a);
        fflush(stdout);
    }
    db_free(ctx.db);
    if (failed) return 1;
    return 0;
}
