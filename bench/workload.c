/*
 * workload.c - the chat data set's request bodies; see workload.h.
 */
#include "bench/workload.h"

#include "api/client/http_client.h"

#include <string.h>

#define BASE_EPOCH_MS 1700000000000ULL

const struct op_info op_info[] = {
    [OP_GET] = {"get", "DynamoDB_20120810.GetItem"},
    [OP_PUT] = {"put", "DynamoDB_20120810.PutItem"},
    [OP_QUERY] = {"query", "DynamoDB_20120810.Query"},
    [OP_TRANSACT] = {"transact", "DynamoDB_20120810.TransactWriteItems"},
    [OP_UPDATE] = {"update", "DynamoDB_20120810.UpdateItem"},
    [OP_DELETE] = {"delete", "DynamoDB_20120810.DeleteItem"},
    [OP_BATCH_WRITE] = {"batchwrite", "DynamoDB_20120810.BatchWriteItem"},
    [OP_BATCH_GET] = {"batchget", "DynamoDB_20120810.BatchGetItem"},
    [OP_QUERY_PROJ] = {"queryproj", "DynamoDB_20120810.Query"},
    [OP_GET_PROJ] = {"getproj", "DynamoDB_20120810.GetItem"},
    [OP_LOAD_BATCH] = {"batch", "DynamoDB_20120810.BatchWriteItem"},
    [OP_LOAD_PUT] = {"put", "DynamoDB_20120810.PutItem"},
};

uint64_t rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ULL;
}

uint64_t rng_below(uint64_t *state, uint64_t n)
{
    return n ? rng_next(state) % n : 0;
}

/* A prime: k * PICK_PRIME mod n visits every k in [0, n) once unless n is a multiple of it. */
#define PICK_PRIME 2654435761ULL

uint64_t workload_pick(uint64_t k, uint64_t n)
{
    if (!n) return k;
    if (n % PICK_PRIME == 0) return k % n;
    return (k % n) * PICK_PRIME % n;
}

unsigned workload_items_per_request(enum op op)
{
    switch (op) {
    case OP_BATCH_WRITE:
    case OP_LOAD_BATCH: return BATCH_MAX;
    case OP_BATCH_GET: return BATCH_GET_MAX;
    case OP_TRANSACT: return 2;
    default: return 1;
    }
}

/* The key attributes of item i, as a JSON object's members. */
static void add_key(struct text_buf *b, uint64_t i)
{
    text_buf_printf(b, "\"PK\":{\"S\":\"room#%07llu\"},\"SK\":{\"S\":\"MESSAGE#%013llu#%08x\"}",
                    (unsigned long long) (i / PARTITION_ITEMS),
                    (unsigned long long) (BASE_EPOCH_MS + i), (unsigned) (i * 2654435761U));
}

/* Item i of the chat data set, about 250 bytes, as a JSON object. */
static void add_item(struct text_buf *b, uint64_t i)
{
    text_buf_puts(b, "{");
    add_key(b, i);
    text_buf_printf(b,
                    ",\"senderId\":{\"S\":\"user#%05llu\"},\"content\":{\"S\":\"%s\"},"
                    "\"messageType\":{\"S\":\"TEXT\"},\"createdAt\":{\"N\":\"%llu\"}}",
                    (unsigned long long) (i % 997),
                    "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod "
                    "tempor incididunt ut labore",
                    (unsigned long long) (BASE_EPOCH_MS + i));
}

/* The k-th PutRequest of a BatchWriteItem body, for item i. */
static void add_put_request(struct text_buf *b, uint64_t k, uint64_t i)
{
    text_buf_puts(b, k ? ",{\"PutRequest\":{\"Item\":" : "{\"PutRequest\":{\"Item\":");
    add_item(b, i);
    text_buf_puts(b, "}}");
}

/* The k-th of n items spread evenly over a table of `items` items from item i:
 * distinct for k < n as long as items >= n. */
static uint64_t spread(uint64_t i, uint64_t k, uint64_t n, uint64_t items)
{
    uint64_t stride = items / n ? items / n : 1;

    return (i + k * stride) % items;
}

/* The projected reads' member: three of the chat item's six attributes (a
 * list view), top-level names, so answered from the stored encoding. */
#define PROJECTION "\"ProjectionExpression\":\"senderId, content, createdAt\""

void workload_body(struct text_buf *b, const char *table, uint64_t items, enum op op, uint64_t i,
                   uint64_t n, bool scramble)
{
    b->len = 0;
    switch (op) {
    case OP_GET:
    case OP_GET_PROJ:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Key\":{", table);
        add_key(b, i);
        text_buf_puts(b, op == OP_GET_PROJ ? "}," PROJECTION "}" : "}}");
        break;
    case OP_PUT:
    case OP_LOAD_PUT:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Item\":", table);
        add_item(b, op == OP_LOAD_PUT && scramble ? workload_pick(i, items) : i);
        text_buf_puts(b, "}");
        break;
    case OP_QUERY:
    case OP_QUERY_PROJ:
        text_buf_printf(b,
                        "{\"TableName\":\"%s\",\"KeyConditionExpression\":\"PK = :pk AND "
                        "begins_with(SK, :p)\",\"ExpressionAttributeValues\":{\":pk\":{\"S\":"
                        "\"room#%07llu\"},\":p\":{\"S\":\"MESSAGE#\"}},\"ScanIndexForward\":false,"
                        "\"Limit\":%d%s}",
                        table, (unsigned long long) (i / PARTITION_ITEMS), PARTITION_ITEMS,
                        op == OP_QUERY_PROJ ? "," PROJECTION : "");
        break;
    case OP_TRANSACT: {
        /* Two items half the table apart: never the same item, never the same room. */
        uint64_t j = (i + items / 2) % items;
        text_buf_printf(b, "{\"TransactItems\":[{\"Put\":{\"TableName\":\"%s\",\"Item\":", table);
        add_item(b, i);
        text_buf_printf(b, "}},{\"Put\":{\"TableName\":\"%s\",\"Item\":", table);
        add_item(b, j);
        text_buf_puts(b, ",\"ConditionExpression\":\"attribute_exists(PK)\"}}]}");
        break;
    }
    case OP_UPDATE:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Key\":{", table);
        add_key(b, i);
        text_buf_puts(b, "},\"UpdateExpression\":\"ADD #c :one\",\"ExpressionAttributeNames\":"
                         "{\"#c\":\"readCount\"},\"ExpressionAttributeValues\":{\":one\":{\"N\":"
                         "\"1\"}}}");
        break;
    case OP_DELETE:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Key\":{", table);
        add_key(b, i);
        text_buf_puts(b, "}}");
        break;
    case OP_BATCH_WRITE:
        text_buf_printf(b, "{\"RequestItems\":{\"%s\":[", table);
        for (uint64_t k = 0; k < BATCH_MAX; k++)
            add_put_request(b, k, spread(i, k, BATCH_MAX, items));
        text_buf_puts(b, "]}}");
        break;
    case OP_BATCH_GET:
        text_buf_printf(b, "{\"RequestItems\":{\"%s\":{\"Keys\":[", table);
        for (uint64_t k = 0; k < BATCH_GET_MAX; k++) {
            text_buf_puts(b, k ? ",{" : "{");
            add_key(b, spread(i, k, BATCH_GET_MAX, items));
            text_buf_puts(b, "}");
        }
        text_buf_puts(b, "]}}}");
        break;
    case OP_LOAD_BATCH:
        text_buf_printf(b, "{\"RequestItems\":{\"%s\":[", table);
        for (uint64_t k = 0; k < n; k++)
            add_put_request(b, k, scramble ? workload_pick(i + k, items) : i + k);
        text_buf_puts(b, "]}}");
        break;
    }
}

void workload_scan_body(struct text_buf *b, const char *table, unsigned seg, unsigned segments,
                        const char *start_key, size_t start_key_len)
{
    b->len = 0;
    text_buf_printf(b, "{\"TableName\":\"%s\"", table);
    if (segments) text_buf_printf(b, ",\"Segment\":%u,\"TotalSegments\":%u", seg, segments);
    if (start_key) {
        text_buf_puts(b, ",\"ExclusiveStartKey\":");
        text_buf_add(b, start_key, start_key_len);
    }
    text_buf_puts(b, "}");
}

bool workload_has_unprocessed(const char *body, size_t len)
{
    const char *p = http_find_bytes(body, len, "\"UnprocessedItems\"");
    const char *end = body + len;

    if (!p) return false;
    p += 18;
    while (p < end && (*p == ' ' || *p == ':' || *p == '\n' || *p == '\t'))
        p++;
    if (p >= end || *p != '{') return true;
    p++;
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\t'))
        p++;
    return p >= end || *p != '}';
}
