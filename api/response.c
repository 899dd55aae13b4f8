/*
 * response.c - success and error answers, request ids and the CRC32 header.
 *
 * Error bodies follow what DynamoDB sends byte for byte: compact JSON with
 * "__type" first, then the message under the key the exception uses
 * ("message" or "Message", see error.h), or no message at all (AWS sends a
 * bare {"__type": ...} for SerializationException on malformed JSON and for
 * UnknownOperationException). ConditionalCheckFailedException carries the
 * old "Item" when the request asked for it, and TransactionCanceledException
 * its "CancellationReasons" (one {"Code", "Item"?, "Message"?} per action, in that key order).
 *
 * The CRC32 is the reflected IEEE polynomial 0xEDB88320 with a 256-entry
 * table (the table below is that polynomial's, generated once); it matches
 * zlib's crc32() and the x-amz-crc32 values AWS sends.
 */
#include "api/response.h"

#include "api/wire_value.h"
#include "storage/alloc.h"
#include "storage/item.h"

#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const uint32_t crc32_table[256] = {
    0x00000000U, 0x77073096U, 0xee0e612cU, 0x990951baU, 0x076dc419U, 0x706af48fU, 0xe963a535U,
    0x9e6495a3U, 0x0edb8832U, 0x79dcb8a4U, 0xe0d5e91eU, 0x97d2d988U, 0x09b64c2bU, 0x7eb17cbdU,
    0xe7b82d07U, 0x90bf1d91U, 0x1db71064U, 0x6ab020f2U, 0xf3b97148U, 0x84be41deU, 0x1adad47dU,
    0x6ddde4ebU, 0xf4d4b551U, 0x83d385c7U, 0x136c9856U, 0x646ba8c0U, 0xfd62f97aU, 0x8a65c9ecU,
    0x14015c4fU, 0x63066cd9U, 0xfa0f3d63U, 0x8d080df5U, 0x3b6e20c8U, 0x4c69105eU, 0xd56041e4U,
    0xa2677172U, 0x3c03e4d1U, 0x4b04d447U, 0xd20d85fdU, 0xa50ab56bU, 0x35b5a8faU, 0x42b2986cU,
    0xdbbbc9d6U, 0xacbcf940U, 0x32d86ce3U, 0x45df5c75U, 0xdcd60dcfU, 0xabd13d59U, 0x26d930acU,
    0x51de003aU, 0xc8d75180U, 0xbfd06116U, 0x21b4f4b5U, 0x56b3c423U, 0xcfba9599U, 0xb8bda50fU,
    0x2802b89eU, 0x5f058808U, 0xc60cd9b2U, 0xb10be924U, 0x2f6f7c87U, 0x58684c11U, 0xc1611dabU,
    0xb6662d3dU, 0x76dc4190U, 0x01db7106U, 0x98d220bcU, 0xefd5102aU, 0x71b18589U, 0x06b6b51fU,
    0x9fbfe4a5U, 0xe8b8d433U, 0x7807c9a2U, 0x0f00f934U, 0x9609a88eU, 0xe10e9818U, 0x7f6a0dbbU,
    0x086d3d2dU, 0x91646c97U, 0xe6635c01U, 0x6b6b51f4U, 0x1c6c6162U, 0x856530d8U, 0xf262004eU,
    0x6c0695edU, 0x1b01a57bU, 0x8208f4c1U, 0xf50fc457U, 0x65b0d9c6U, 0x12b7e950U, 0x8bbeb8eaU,
    0xfcb9887cU, 0x62dd1ddfU, 0x15da2d49U, 0x8cd37cf3U, 0xfbd44c65U, 0x4db26158U, 0x3ab551ceU,
    0xa3bc0074U, 0xd4bb30e2U, 0x4adfa541U, 0x3dd895d7U, 0xa4d1c46dU, 0xd3d6f4fbU, 0x4369e96aU,
    0x346ed9fcU, 0xad678846U, 0xda60b8d0U, 0x44042d73U, 0x33031de5U, 0xaa0a4c5fU, 0xdd0d7cc9U,
    0x5005713cU, 0x270241aaU, 0xbe0b1010U, 0xc90c2086U, 0x5768b525U, 0x206f85b3U, 0xb966d409U,
    0xce61e49fU, 0x5edef90eU, 0x29d9c998U, 0xb0d09822U, 0xc7d7a8b4U, 0x59b33d17U, 0x2eb40d81U,
    0xb7bd5c3bU, 0xc0ba6cadU, 0xedb88320U, 0x9abfb3b6U, 0x03b6e20cU, 0x74b1d29aU, 0xead54739U,
    0x9dd277afU, 0x04db2615U, 0x73dc1683U, 0xe3630b12U, 0x94643b84U, 0x0d6d6a3eU, 0x7a6a5aa8U,
    0xe40ecf0bU, 0x9309ff9dU, 0x0a00ae27U, 0x7d079eb1U, 0xf00f9344U, 0x8708a3d2U, 0x1e01f268U,
    0x6906c2feU, 0xf762575dU, 0x806567cbU, 0x196c3671U, 0x6e6b06e7U, 0xfed41b76U, 0x89d32be0U,
    0x10da7a5aU, 0x67dd4accU, 0xf9b9df6fU, 0x8ebeeff9U, 0x17b7be43U, 0x60b08ed5U, 0xd6d6a3e8U,
    0xa1d1937eU, 0x38d8c2c4U, 0x4fdff252U, 0xd1bb67f1U, 0xa6bc5767U, 0x3fb506ddU, 0x48b2364bU,
    0xd80d2bdaU, 0xaf0a1b4cU, 0x36034af6U, 0x41047a60U, 0xdf60efc3U, 0xa867df55U, 0x316e8eefU,
    0x4669be79U, 0xcb61b38cU, 0xbc66831aU, 0x256fd2a0U, 0x5268e236U, 0xcc0c7795U, 0xbb0b4703U,
    0x220216b9U, 0x5505262fU, 0xc5ba3bbeU, 0xb2bd0b28U, 0x2bb45a92U, 0x5cb36a04U, 0xc2d7ffa7U,
    0xb5d0cf31U, 0x2cd99e8bU, 0x5bdeae1dU, 0x9b64c2b0U, 0xec63f226U, 0x756aa39cU, 0x026d930aU,
    0x9c0906a9U, 0xeb0e363fU, 0x72076785U, 0x05005713U, 0x95bf4a82U, 0xe2b87a14U, 0x7bb12baeU,
    0x0cb61b38U, 0x92d28e9bU, 0xe5d5be0dU, 0x7cdcefb7U, 0x0bdbdf21U, 0x86d3d2d4U, 0xf1d4e242U,
    0x68ddb3f8U, 0x1fda836eU, 0x81be16cdU, 0xf6b9265bU, 0x6fb077e1U, 0x18b74777U, 0x88085ae6U,
    0xff0f6a70U, 0x66063bcaU, 0x11010b5cU, 0x8f659effU, 0xf862ae69U, 0x616bffd3U, 0x166ccf45U,
    0xa00ae278U, 0xd70dd2eeU, 0x4e048354U, 0x3903b3c2U, 0xa7672661U, 0xd06016f7U, 0x4969474dU,
    0x3e6e77dbU, 0xaed16a4aU, 0xd9d65adcU, 0x40df0b66U, 0x37d83bf0U, 0xa9bcae53U, 0xdebb9ec5U,
    0x47b2cf7fU, 0x30b5ffe9U, 0xbdbdf21cU, 0xcabac28aU, 0x53b39330U, 0x24b4a3a6U, 0xbad03605U,
    0xcdd70693U, 0x54de5729U, 0x23d967bfU, 0xb3667a2eU, 0xc4614ab8U, 0x5d681b02U, 0x2a6f2b94U,
    0xb40bbe37U, 0xc30c8ea1U, 0x5a05df1bU, 0x2d02ef8dU,
};

uint32_t response_crc32(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t crc = 0xFFFFFFFFU;

    for (size_t i = 0; i < len; i++)
        crc = crc32_table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFU;
}

/* ---- request ids ---- */

/* splitmix64: a tiny, good generator; each thread keeps its own state. */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static uint64_t random_seed(void)
{
    static atomic_uint_fast64_t counter;
    uint64_t seed = 0;
    struct timespec ts;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

    if (fd >= 0) {
        if (read(fd, &seed, sizeof seed) != (ssize_t) sizeof seed) seed = 0;
        close(fd);
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    seed ^= (uint64_t) ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t) ts.tv_sec;
    seed ^= atomic_fetch_add(&counter, 1) << 32;
    return seed;
}

void response_request_id(char out[53])
{
    static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    static _Thread_local uint64_t state;
    static _Thread_local int seeded;

    if (!seeded) {
        state = random_seed();
        seeded = 1;
    }
    for (int i = 0; i < 52; i++)
        out[i] = alphabet[splitmix64(&state) % 36];
    out[52] = '\0';
}

/* ---- bodies ---- */

void response_set_body(struct http_response *resp, int status, const char *content_type, char *body,
                       size_t len)
{
    char crc[16];

    resp->status = status;
    http_response_set_body(resp, body, len);
    if (content_type) http_response_add_header(resp, "Content-Type", content_type);
    snprintf(crc, sizeof crc, "%u", (unsigned) response_crc32(body, body ? len : 0));
    http_response_add_header(resp, "x-amz-crc32", crc);
}

/* Serializes json compactly (as AWS does) and sets it as the body. */
static void set_json_body(struct http_response *resp, int status, const char *content_type,
                          json_t *json)
{
    char *text = json_dumps(json, JSON_COMPACT);

    /* json_dumps fails only on allocation failure or invalid UTF-8 we put there ourselves. */
    if (!text) abort();
    response_set_body(resp, status, content_type, text, strlen(text));
}

void response_success(struct http_response *resp, const char *content_type, json_t *reply)
{
    if (!reply) {
        json_t *empty = json_object();
        set_json_body(resp, 200, content_type, empty);
        json_decref(empty);
        return;
    }
    set_json_body(resp, 200, content_type, reply);
}

/*
 * [{"Code": ..., "Item": ..., "Message": ...}, ...] in AWS's key order, as a
 * raw AWS answer shows it (boto/boto3#2657):
 * {"Code":"ConditionalCheckFailed","Item":{...},"Message":"The conditional
 * request failed"}; a "None" reason is {"Code":"None"} alone.
 */
static json_t *cancellation_reasons(const struct ddb_error *err)
{
    json_t *list = json_array();

    for (size_t i = 0; i < err->reason_count; i++) {
        const struct cancel_reason *r = &err->reasons[i];
        json_t *entry = json_object();
        json_object_set_new(entry, "Code", json_string(r->code ? r->code : "None"));
        if (r->item) json_object_set_new(entry, "Item", wire_value_map_to_json(&r->item->attrs));
        if (r->message) json_object_set_new(entry, "Message", json_string(r->message));
        json_array_append_new(list, entry);
    }
    return list;
}

void response_error(struct http_response *resp, const char *content_type,
                    const struct ddb_error *err)
{
    json_t *body = json_object();

    assert(err->code != DDB_OK);
    json_object_set_new(body, "__type", json_string(ddb_error_type(err->code)));
    if (err->code == DDB_TRANSACTION_CANCELED)
        json_object_set_new(body, "CancellationReasons", cancellation_reasons(err));
    if (err->message)
        json_object_set_new(body, ddb_error_message_key(err->code), json_string(err->message));
    if (err->item) json_object_set_new(body, "Item", wire_value_map_to_json(&err->item->attrs));
    set_json_body(resp, ddb_error_http_status(err->code), content_type, body);
    json_decref(body);
}
