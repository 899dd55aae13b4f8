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
 * Error bodies are written with json_out (the same writer, escaping and
 * AttributeValue encoder as the success answers of the item operations);
 * success answers still built as json_t trees (table descriptions and the
 * other rare ones) are serialized here with json_dumps(JSON_COMPACT), which
 * prints the same bytes for the same values.
 *
 * The CRC32 is the reflected IEEE polynomial 0xEDB88320, folded sixteen
 * bytes at a time with carry-less multiplies where the CPU has them (x86-64
 * with PCLMULQDQ) and computed eight bytes at a time by tables otherwise and
 * for the last bytes; it matches zlib's crc32() and the x-amz-crc32 values
 * AWS sends.
 */
#include "api/http/response.h"

#include "api/wire/json_out.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/model/item.h"

#include <assert.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h> /* crc32_fold */
#endif

/* ---- CRC32 ---- */

/*
 * Slicing-by-8: crc32_tables[0] is the classic byte-at-a-time table of the
 * reflected polynomial; crc32_tables[k][b] is what byte b contributes to
 * the CRC register once k zero bytes follow it, so eight lookups fold eight
 * input bytes at once
 * (~4x faster than one byte per step on a 13 KB Query answer). The tables are
 * computed once, under pthread_once, and only read afterwards.
 */
static uint32_t crc32_tables[8][256];
static pthread_once_t crc32_tables_once = PTHREAD_ONCE_INIT;

static void crc32_init_tables(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int bit = 0; bit < 8; bit++)
            c = (c & 1) ? (c >> 1) ^ 0xEDB88320U : c >> 1;
        crc32_tables[0][b] = c;
    }
    for (int k = 1; k < 8; k++) {
        for (uint32_t b = 0; b < 256; b++) {
            uint32_t prev = crc32_tables[k - 1][b];
            crc32_tables[k][b] = (prev >> 8) ^ crc32_tables[0][prev & 0xFF];
        }
    }
}

/* Four bytes as a little-endian word (one load on x86 and ARM). */
static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t) p[0] | (uint32_t) p[1] << 8 | (uint32_t) p[2] << 16 | (uint32_t) p[3] << 24;
}

#if defined(__x86_64__) && defined(__GNUC__)
/*
 * The bulk of a long body folded sixteen bytes per carry-less multiply
 * (PCLMULQDQ), as Intel's "Fast CRC Computation for Generic Polynomials Using
 * PCLMULQDQ Instruction" (2009) describes and Chromium's zlib
 * (crc32_simd.c, crc32_sse42_simd_) implements for this polynomial: four
 * 128-bit lanes folded 64 bytes at a time, then folded into one, reduced to
 * 64 bits and Barrett-reduced to 32. crc is the CRC register (not inverted
 * between the steps); len is at least 64 and a multiple of 16. A Query page
 * of 13 KB costs ~3.8 instructions a byte with the tables, ~0.3 here
 * (bench/README.md "Request path at 1,000,000 items").
 */
#define CRC32_FOLD_MIN 64

/* Sixteen-byte blocks folded into x1, then x1 (the CRC register's 128-bit
 * remainder so far) reduced to 64 bits and Barrett-reduced to 32. */
__attribute__((target("pclmul,sse4.1"))) static uint32_t
crc32_fold_finish(__m128i x1, const unsigned char *buf, size_t len)
{
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = {0x01751997d0, 0x00ccaa009e};
    static const uint64_t k5k0[2] __attribute__((aligned(16))) = {0x0163cd6124, 0x0000000000};
    static const uint64_t poly[2] __attribute__((aligned(16))) = {0x01db710641, 0x01f7011641};
    __m128i x0 = _mm_load_si128((const __m128i *) k3k4), x2, x3, x5;

    /* The remaining sixteen-byte blocks. */
    while (len >= 16) {
        x2 = _mm_loadu_si128((const __m128i *) buf);
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
        buf += 16;
        len -= 16;
    }
    /* 128 bits to 64. */
    x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
    x3 = _mm_setr_epi32(~0, 0, ~0, 0);
    x1 = _mm_srli_si128(x1, 8);
    x1 = _mm_xor_si128(x1, x2);
    x0 = _mm_loadl_epi64((const __m128i *) k5k0);
    x2 = _mm_srli_si128(x1, 4);
    x1 = _mm_and_si128(x1, x3);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    /* Barrett reduction to 32 bits. */
    x0 = _mm_load_si128((const __m128i *) poly);
    x2 = _mm_and_si128(x1, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x10);
    x2 = _mm_and_si128(x2, x3);
    x2 = _mm_clmulepi64_si128(x2, x0, 0x00);
    x1 = _mm_xor_si128(x1, x2);
    return (uint32_t) _mm_extract_epi32(x1, 1);
}

__attribute__((target("pclmul,sse4.1"))) static uint32_t crc32_fold(const unsigned char *buf,
                                                                    size_t len, uint32_t crc)
{
    static const uint64_t k1k2[2] __attribute__((aligned(16))) = {0x0154442bd4, 0x01c6e41596};
    static const uint64_t k3k4[2] __attribute__((aligned(16))) = {0x01751997d0, 0x00ccaa009e};
    __m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

    x1 = _mm_loadu_si128((const __m128i *) (buf + 0x00));
    x2 = _mm_loadu_si128((const __m128i *) (buf + 0x10));
    x3 = _mm_loadu_si128((const __m128i *) (buf + 0x20));
    x4 = _mm_loadu_si128((const __m128i *) (buf + 0x30));
    x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int) crc));
    x0 = _mm_load_si128((const __m128i *) k1k2);
    buf += 64;
    len -= 64;
    while (len >= 64) {
        x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
        x6 = _mm_clmulepi64_si128(x2, x0, 0x00);
        x7 = _mm_clmulepi64_si128(x3, x0, 0x00);
        x8 = _mm_clmulepi64_si128(x4, x0, 0x00);
        x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
        x2 = _mm_clmulepi64_si128(x2, x0, 0x11);
        x3 = _mm_clmulepi64_si128(x3, x0, 0x11);
        x4 = _mm_clmulepi64_si128(x4, x0, 0x11);
        x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *) (buf + 0x00)));
        x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128((const __m128i *) (buf + 0x10)));
        x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128((const __m128i *) (buf + 0x20)));
        x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128((const __m128i *) (buf + 0x30)));
        buf += 64;
        len -= 64;
    }
    /* The four lanes into one. */
    x0 = _mm_load_si128((const __m128i *) k3k4);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
    x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
    x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
    return crc32_fold_finish(x1, buf, len);
}

/*
 * The same folding 64 bytes per instruction where the CPU has VPCLMULQDQ and
 * AVX-512 (Intel since Ice Lake, AMD since Zen 4): four 512-bit registers
 * folded 256 bytes at a time, then into one, then its four 128-bit lanes into
 * one, and the rest as above. A 14 KB Query answer took ~1.2 us with the
 * 128-bit loop (12 GB/s, bound by the multiply's latency), 0.27 us with this
 * one (bench/README.md, "The answer's CRC 64 bytes a multiply"). The fold
 * constants are x^(D+32) and x^(D-32) mod P, bit-reflected and shifted left
 * once, for a distance of D = 2048 bits (the four registers) and 512 (one);
 * the existing 512- and 128-bit ones follow the same rule. len is at least
 * CRC32_FOLD512_MIN and a multiple of 16.
 */
#define CRC32_FOLD512_MIN 256

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1"))) static inline __m512i
fold512(__m512i x, __m512i k, __m512i next)
{
    return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00),
                                     _mm512_clmulepi64_epi128(x, k, 0x11), next, 0x96);
}

__attribute__((target("pclmul,sse4.1"))) static inline __m128i fold128(__m128i x, __m128i k,
                                                                       __m128i next)
{
    return _mm_xor_si128(
        _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

__attribute__((target("avx512f,vpclmulqdq,pclmul,sse4.1"))) static uint32_t
crc32_fold512(const unsigned char *buf, size_t len, uint32_t crc)
{
    const __m512i k2048 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01322d1430, 0x011542778a));
    const __m512i k512 = _mm512_broadcast_i32x4(_mm_set_epi64x(0x01c6e41596, 0x0154442bd4));
    const __m128i k128 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
    __m512i x0 = _mm512_loadu_si512(buf), x1 = _mm512_loadu_si512(buf + 64);
    __m512i x2 = _mm512_loadu_si512(buf + 128), x3 = _mm512_loadu_si512(buf + 192);
    __m128i lane;

    x0 = _mm512_xor_si512(x0, _mm512_zextsi128_si512(_mm_cvtsi32_si128((int) crc)));
    buf += 256;
    len -= 256;
    while (len >= 256) {
        x0 = fold512(x0, k2048, _mm512_loadu_si512(buf));
        x1 = fold512(x1, k2048, _mm512_loadu_si512(buf + 64));
        x2 = fold512(x2, k2048, _mm512_loadu_si512(buf + 128));
        x3 = fold512(x3, k2048, _mm512_loadu_si512(buf + 192));
        buf += 256;
        len -= 256;
    }
    /* The four registers into one, then the 64-byte blocks left. */
    x0 = fold512(x0, k512, x1);
    x0 = fold512(x0, k512, x2);
    x0 = fold512(x0, k512, x3);
    while (len >= 64) {
        x0 = fold512(x0, k512, _mm512_loadu_si512(buf));
        buf += 64;
        len -= 64;
    }
    /* Its four lanes, first to last, into one. */
    lane = _mm512_extracti32x4_epi32(x0, 0);
    lane = fold128(lane, k128, _mm512_extracti32x4_epi32(x0, 1));
    lane = fold128(lane, k128, _mm512_extracti32x4_epi32(x0, 2));
    lane = fold128(lane, k128, _mm512_extracti32x4_epi32(x0, 3));
    return crc32_fold_finish(lane, buf, len);
}

static bool crc32_has_fold, crc32_has_fold512;

static void crc32_init(void)
{
    crc32_init_tables();
    __builtin_cpu_init();
    crc32_has_fold = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    /* libgcc reports AVX-512 only where the OS saves its registers too. */
    crc32_has_fold512 =
        crc32_has_fold && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq");
}
#else
#define CRC32_FOLD_MIN    SIZE_MAX
#define CRC32_FOLD512_MIN SIZE_MAX
static const bool crc32_has_fold = false, crc32_has_fold512 = false;

static uint32_t crc32_fold(const unsigned char *buf, size_t len, uint32_t crc)
{
    (void) buf;
    (void) len;
    return crc;
}

static uint32_t crc32_fold512(const unsigned char *buf, size_t len, uint32_t crc)
{
    (void) buf;
    (void) len;
    return crc;
}

static void crc32_init(void)
{
    crc32_init_tables();
}
#endif

uint32_t response_crc32(const void *data, size_t len)
{
    return response_crc32_update(0, data, len);
}

uint32_t response_crc32_update(uint32_t crc32, const void *data, size_t len)
{
    const uint32_t(*t)[256] = (const uint32_t(*)[256]) crc32_tables;
    const unsigned char *p = data;
    uint32_t crc = crc32 ^ 0xFFFFFFFFU;

    pthread_once(&crc32_tables_once, crc32_init);
    if (crc32_has_fold512 && len >= CRC32_FOLD512_MIN) {
        size_t bulk = len & ~(size_t) 15;
        crc = crc32_fold512(p, bulk, crc);
        p += bulk;
        len -= bulk;
    } else if (crc32_has_fold && len >= CRC32_FOLD_MIN) {
        size_t bulk = len & ~(size_t) 15;
        crc = crc32_fold(p, bulk, crc);
        p += bulk;
        len -= bulk;
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint32_t lo = crc ^ load_le32(p), hi = load_le32(p + 4);
        crc = t[7][lo & 0xFF] ^ t[6][(lo >> 8) & 0xFF] ^ t[5][(lo >> 16) & 0xFF] ^ t[4][lo >> 24] ^
              t[3][hi & 0xFF] ^ t[2][(hi >> 8) & 0xFF] ^ t[1][(hi >> 16) & 0xFF] ^ t[0][hi >> 24];
    }
    for (; len > 0; p++, len--)
        crc = t[0][(crc ^ *p) & 0xFF] ^ (crc >> 8);
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
    uint64_t r = 0;

    if (!seeded) {
        state = random_seed();
        seeded = 1;
    }
    /* Twelve characters from each 64-bit draw (36^12 < 2^64, so each is
     * uniform but for a bias under 2^-58): 5 draws instead of 52, each ~25
     * instructions. */
    for (int i = 0; i < 52; i++) {
        if (i % 12 == 0) r = splitmix64(&state);
        out[i] = alphabet[r % 36];
        r /= 36;
    }
    out[52] = '\0';
}

/* ---- bodies ---- */

void response_set_body(struct http_response *resp, int status, const char *content_type, char *body,
                       size_t len)
{
    char crc[TEXT_U64_MAX];

    resp->status = status;
    http_response_set_body(resp, body, len);
    if (content_type) http_response_add_header(resp, "Content-Type", content_type);
    text_u64(response_crc32(body, body ? len : 0), crc);
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
 * Writes key: message, unless message is NULL or not valid UTF-8: such a
 * message was always left out (jansson's json_string refuses it), and only
 * request headers (the Authorization text some messages quote) can bring
 * one in.
 */
static void write_message(struct json_out *w, const char *key, const char *message)
{
    if (!message || !text_utf8_is_valid(message, strlen(message))) return;
    json_out_key(w, key);
    json_out_string(w, message);
}

/*
 * [{"Code": ..., "Item": ..., "Message": ...}, ...] in AWS's key order, as a
 * raw AWS answer shows it (boto/boto3#2657):
 * {"Code":"ConditionalCheckFailed","Item":{...},"Message":"The conditional
 * request failed"}; a "None" reason is {"Code":"None"} alone.
 */
static void write_cancellation_reasons(struct json_out *w, const struct failure_details *failure)
{
    json_out_array_begin(w);
    for (size_t i = 0; failure && i < failure->reason_count; i++) {
        const struct cancel_reason *r = &failure->reasons[i];
        json_out_object_begin(w);
        write_message(w, "Code", r->code ? r->code : "None");
        if (r->item) {
            json_out_key(w, "Item");
            wire_write_stored_item(w, r->item);
        }
        write_message(w, "Message", r->message);
        json_out_object_end(w);
    }
    json_out_array_end(w);
}

void response_error(struct http_response *resp, const char *content_type,
                    const struct ddb_error *err, const struct failure_details *failure)
{
    struct json_out w;
    char *body;
    size_t len;

    assert(err->code != DDB_OK);
    json_out_init(&w);
    json_out_object_begin(&w);
    json_out_key(&w, "__type");
    json_out_string(&w, ddb_error_type(err->code));
    if (err->code == DDB_TRANSACTION_CANCELED) {
        json_out_key(&w, "CancellationReasons");
        write_cancellation_reasons(&w, failure);
    }
    write_message(&w, ddb_error_message_key(err->code), err->message);
    if (failure && failure->item) {
        json_out_key(&w, "Item");
        wire_write_stored_item(&w, failure->item);
    }
    json_out_object_end(&w);
    body = json_out_take(&w, &len);
    response_set_body(resp, ddb_error_http_status(err->code), content_type, body, len);
}

void response_dynamodb_local_unsigned(struct http_response *resp)
{
    static const char body[] =
        "{\"__type\":\"com.amazonaws.dynamodb.v20120810#MissingAuthenticationToken\","
        "\"message\":\"Request must contain either a valid (registered) AWS access key ID or "
        "X.509 certificate.\"}";

    response_set_body(resp, 400, RESPONSE_CONTENT_TYPE_AMZ_JSON, xmemdup(body, sizeof body - 1),
                      sizeof body - 1);
}
