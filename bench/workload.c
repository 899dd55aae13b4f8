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

void workload_body(struct text_buf *b, const char *table, uint64_t items, enum op op, uint64_t i,
                   uint64_t n)
{
    b->len = 0;
    switch (op) {
    case OP_GET:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Key\":{", table);
        add_key(b, i);
        text_buf_puts(b, "}}");
        break;
    case OP_PUT:
    case OP_LOAD_PUT:
        text_buf_printf(b, "{\"TableName\":\"%s\",\"Item\":", table);
        add_item(b, i);
        text_buf_puts(b, "}");
        break;
    case OP_QUERY:
        text_buf_printf(b,
                        "{\"TableName\":\"%s\",\"KeyConditionExpression\":\"PK = :pk AND "
                        "begins_with(SK, :p)\",\"ExpressionAttributeValues\":{\":pk\":{\"S\":"
                        "\"room#%07llu\"},\":p\":{\"S\":\"MESSAGE#\"}},\"ScanIndexForward\":false,"
                        "\"Limit\":%d}",
                        table, (unsigned long long) (i / PARTITION_ITEMS), PARTITION_ITEMS);
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
    case OP_LOAD_BATCH:
        text_buf_printf(b, "{\"RequestItems\":{\"%s\":[", table);
        for (uint64_t k = 0; k < n; k++) {
            text_buf_puts(b, k ? ",{\"PutRequest\":{\"Item\":" : "{\"PutRequest\":{\"Item\":");
            add_item(b, i + k);
            text_buf_puts(b, "}}");
        }
        text_buf_puts(b, "]}}");
        break;
    }
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
