/*
 * test_encoding.c - gzip/deflate request bodies in, gzip/deflate answers out, and CORS.
 *
 * Tables of cases without sockets: a request as headers and body, the
 * decoder's verdict; an answer, what Accept-Encoding makes of it.
 */
#include "api/http/cors.h"
#include "api/http/encoding.h"
#include "api/http/response.h"
#include "storage/base/alloc.h"
#include "storage/tests/check.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *header(const struct http_response *r, const char *name)
{
    for (size_t i = 0; i < r->header_count; i++)
        if (strcmp(r->headers[i].name, name) == 0) return r->headers[i].value;
    return NULL;
}

/* data compressed with zlib's window_bits (16 + 15: gzip, 15: zlib, -15: raw deflate); *len
 * gets its size. */
static unsigned char *compress_with(const char *data, size_t data_len, int window_bits, size_t *len)
{
    z_stream z;
    unsigned char *out;
    uLong bound;

    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
    bound = deflateBound(&z, (uLong) data_len);
    out = xmalloc(bound);
    z.next_in = (Bytef *) data;
    z.avail_in = (uInt) data_len;
    z.next_out = out;
    z.avail_out = (uInt) bound;
    deflate(&z, Z_FINISH);
    *len = z.total_out;
    deflateEnd(&z);
    return out;
}

static enum encoding_result decode(const char *encoding, const void *body, size_t len, size_t max,
                                   char **out, size_t *out_len)
{
    struct http_field h = {"Content-Encoding", encoding};
    struct http_request req = {.method = "POST",
                               .path = "/",
                               .headers = &h,
                               .header_count = encoding ? 1 : 0,
                               .body = body,
                               .body_len = len};
    *out = NULL;
    return encoding_decode_request(&req, max, out, out_len);
}

static void test_decoding(void)
{
    static const char json[] = "{\"TableName\":\"t\"}";
    size_t gz_len, zl_len, out_len = 0;
    unsigned char *gz = compress_with(json, sizeof json - 1, 16 + MAX_WBITS, &gz_len);
    unsigned char *zl = compress_with(json, sizeof json - 1, MAX_WBITS, &zl_len);
    unsigned char two[256];
    char *out;

    CHECK_INT_EQ(decode(NULL, json, sizeof json - 1, 100, &out, &out_len), ENCODING_NONE);
    CHECK_INT_EQ(decode(" identity ", json, sizeof json - 1, 100, &out, &out_len), ENCODING_NONE);
    CHECK_INT_EQ(decode("GZIP", gz, gz_len, 100, &out, &out_len), ENCODING_DECODED);
    CHECK(out && out_len == sizeof json - 1 && memcmp(out, json, out_len) == 0);
    free(out);
    /* Two members make one body (RFC 1952). */
    memcpy(two, gz, gz_len);
    memcpy(two + gz_len, gz, gz_len);
    CHECK_INT_EQ(decode("gzip", two, 2 * gz_len, 100, &out, &out_len), ENCODING_DECODED);
    CHECK_INT_EQ(out_len, 2 * (sizeof json - 1));
    free(out);
    /* What DynamoDB answers 500: not gzip, cut short, junk after, empty, another coding. */
    CHECK_INT_EQ(decode("gzip", json, sizeof json - 1, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("gzip", gz, gz_len - 1, 100, &out, &out_len), ENCODING_BAD);
    memcpy(two + gz_len, "junk", 4);
    CHECK_INT_EQ(decode("gzip", two, gz_len + 4, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("gzip", "", 0, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("br", json, sizeof json - 1, 100, &out, &out_len), ENCODING_BAD);
    /* Past the cap, however small the compressed body. */
    CHECK_INT_EQ(decode("gzip", gz, gz_len, sizeof json - 2, &out, &out_len), ENCODING_TOO_LARGE);
    CHECK_INT_EQ(decode("gzip", gz, gz_len, sizeof json - 1, &out, &out_len), ENCODING_DECODED);
    free(out);
    free(gz);
    free(zl);
}

static void test_decoding_deflate(void)
{
    static const char json[] = "{\"TableName\":\"t\"}";
    size_t zl_len, raw_len, out_len = 0;
    unsigned char *zl = compress_with(json, sizeof json - 1, MAX_WBITS, &zl_len);
    unsigned char *raw = compress_with(json, sizeof json - 1, -MAX_WBITS, &raw_len);
    unsigned char two[256];
    char *out;

    /* The zlib format (RFC 9110's "deflate"), and raw deflate as some clients send it. */
    CHECK_INT_EQ(decode("deflate", zl, zl_len, 100, &out, &out_len), ENCODING_DECODED);
    CHECK(out && out_len == sizeof json - 1 && memcmp(out, json, out_len) == 0);
    free(out);
    CHECK_INT_EQ(decode(" Deflate", raw, raw_len, 100, &out, &out_len), ENCODING_DECODED);
    CHECK(out && out_len == sizeof json - 1 && memcmp(out, json, out_len) == 0);
    free(out);
    /* What DynamoDB answers 500: not deflated, cut short, empty, and two
     * streams one after the other (one stream only, unlike gzip's members). */
    CHECK_INT_EQ(decode("deflate", json, sizeof json - 1, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("deflate", zl, zl_len - 1, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("deflate", raw, raw_len - 1, 100, &out, &out_len), ENCODING_BAD);
    CHECK_INT_EQ(decode("deflate", "", 0, 100, &out, &out_len), ENCODING_BAD);
    memcpy(two, zl, zl_len);
    memcpy(two + zl_len, zl, zl_len);
    CHECK_INT_EQ(decode("deflate", two, 2 * zl_len, 100, &out, &out_len), ENCODING_BAD);
    memcpy(two + zl_len, "junk", 4);
    CHECK_INT_EQ(decode("deflate", two, zl_len + 4, 100, &out, &out_len), ENCODING_BAD);
    /* Past the cap, however small the compressed body. */
    CHECK_INT_EQ(decode("deflate", zl, zl_len, sizeof json - 2, &out, &out_len),
                 ENCODING_TOO_LARGE);
    CHECK_INT_EQ(decode("deflate", raw, raw_len, sizeof json - 2, &out, &out_len),
                 ENCODING_TOO_LARGE);
    free(zl);
    free(raw);
}

/* An answer of n bytes of JSON-ish text, as response_set_body makes it. */
static void make_answer(struct http_response *r, size_t n)
{
    char *body = xmalloc(n);
    for (size_t i = 0; i < n; i++)
        body[i] = "{\"Items\":[]} "[i % 13];
    memset(r, 0, sizeof *r);
    response_set_body(r, 200, RESPONSE_CONTENT_TYPE_AMZ_JSON, body, n);
}

static void test_compressing(void)
{
    static const struct {
        const char *accept;
        size_t size;
        const char *encoding; /* NULL: sent as it is */
    } cases[] = {
        {NULL, 5000, NULL},
        {"gzip", 5000, "gzip"},
        {"deflate", 5000, "deflate"},
        {"br, deflate;q=0.5, gzip", 5000, "gzip"},
        {"gzip;q=0, deflate", 5000, "deflate"},
        {"gzip;q=0", 5000, NULL},
        {"*", 5000, "gzip"},
        {"identity", 5000, NULL},
        {"gzip", 2048, NULL}, /* DynamoDB's threshold is 4 KB (encoding.h) */
        {"gzip", 4095, NULL},
        {"gzip", 4096, "gzip"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct http_field h = {"Accept-Encoding", cases[i].accept};
        struct http_request req = {.method = "POST",
                                   .path = "/",
                                   .headers = &h,
                                   .header_count = cases[i].accept ? 1 : 0,
                                   .body = ""};
        struct http_response r;
        char crc[16];
        make_answer(&r, cases[i].size);
        encoding_compress_response(&req, &r);
        if (!cases[i].encoding) {
            CHECK(header(&r, "Content-Encoding") == NULL);
            CHECK_INT_EQ(r.body_len, cases[i].size);
        } else {
            CHECK_STR_EQ(header(&r, "Content-Encoding"), cases[i].encoding);
            CHECK(r.body_len < cases[i].size);
        }
        /* The CRC always covers the bytes sent. */
        snprintf(crc, sizeof crc, "%u",
                 (unsigned) crc32(0, (const Bytef *) r.body, (uInt) r.body_len));
        CHECK_STR_EQ(header(&r, "x-amz-crc32"), crc);
        http_response_clear(&r);
    }
}

static void test_cors(void)
{
    struct http_field h[3] = {{"Origin", "https://a.example"},
                              {"Access-Control-Request-Method", "POST"},
                              {"Access-Control-Request-Headers", "x-amz-target"}};
    struct http_request get = {.method = "GET", .path = "/", .headers = h, .header_count = 1};
    struct http_request preflight = {
        .method = "OPTIONS", .path = "/", .headers = h, .header_count = 3};
    struct http_request no_origin = {
        .method = "OPTIONS", .path = "/", .headers = h + 1, .header_count = 2};
    struct http_response r;

    memset(&r, 0, sizeof r);
    CHECK(!cors_apply("*", &get, &r));
    CHECK_STR_EQ(header(&r, "Access-Control-Allow-Origin"), "*");
    CHECK_STR_EQ(header(&r, "Access-Control-Expose-Headers"), CORS_EXPOSE_HEADERS);
    CHECK(header(&r, "Access-Control-Max-Age") == NULL);
    http_response_clear(&r);

    CHECK(cors_apply(NULL, &preflight, &r));
    CHECK_INT_EQ(r.status, 200);
    CHECK_STR_EQ(header(&r, "Access-Control-Allow-Methods"), "POST");
    CHECK_STR_EQ(header(&r, "Access-Control-Allow-Headers"), "x-amz-target");
    CHECK_STR_EQ(header(&r, "Access-Control-Max-Age"), CORS_MAX_AGE_SECONDS);
    http_response_clear(&r);

    CHECK(cors_apply("https://b.example, https://a.example", &preflight, &r));
    CHECK_STR_EQ(header(&r, "Access-Control-Allow-Origin"), "https://a.example");
    CHECK_STR_EQ(header(&r, "Vary"), "Origin");
    http_response_clear(&r);

    /* Not listed (a prefix is not a match), or no Origin: no CORS header at all. */
    CHECK(!cors_apply("https://a.example.evil,https://a.exampl", &preflight, &r));
    CHECK_INT_EQ(r.header_count, 0);
    CHECK(!cors_apply("*", &no_origin, &r));
    CHECK_INT_EQ(r.header_count, 0);
    http_response_clear(&r);
}

int main(void)
{
    RUN(test_decoding);
    RUN(test_decoding_deflate);
    RUN(test_compressing);
    RUN(test_cors);
    return check_report();
}
