/*
 * encoding.c - gzip/deflate request bodies in, gzip/deflate answers out (see encoding.h).
 *
 * zlib does the work: inflate with a gzip wrapper (windowBits 16 + 15),
 * restarted after each member so that concatenated members make one body,
 * or with a zlib wrapper (15) and, failing that, none (-15) for one deflate
 * stream, into a buffer that never grows past the cap; deflate in one pass
 * into a buffer of deflateBound's size.
 */
#include "api/http/encoding.h"

#include "api/http/response.h"
#include "storage/base/alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* The token at s (len bytes) equals name, ignoring case. */
static bool token_is(const char *s, size_t len, const char *name)
{
    return strlen(name) == len && strncasecmp(s, name, len) == 0;
}

/* s without leading and trailing blanks, as (start, length). */
static size_t trim(const char *s, size_t len, const char **start)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    *start = s;
    return len;
}

/*
 * Inflates in (in_len bytes) with zlib's window_bits (16 + 15: gzip, 15:
 * zlib, -15: raw deflate) into a malloc'ed buffer that never grows past
 * max + 1 bytes. members: another stream may follow the first one's end
 * (gzip's members, RFC 1952 2.2); otherwise bytes after it make the body bad.
 */
static enum encoding_result inflate_body(const char *in, size_t in_len, int window_bits,
                                         bool members, size_t max, char **out, size_t *out_len)
{
    size_t cap = 4096, len = 0;
    z_stream z;
    char *buf;
    int zrc = Z_OK;

    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, window_bits) != Z_OK) return ENCODING_BAD;
    buf = xmalloc(cap + 1);
    z.next_in = (Bytef *) in;
    z.avail_in = (uInt) in_len;
    for (;;) {
        if (len == cap) {
            if (cap > max) break; /* already past the cap */
            cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            buf = xrealloc(buf, cap + 1);
        }
        z.next_out = (Bytef *) buf + len;
        z.avail_out = (uInt) (cap - len);
        zrc = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        if (zrc == Z_STREAM_END) {
            if (z.avail_in == 0) break;
            if (!members || inflateReset(&z) != Z_OK) {
                zrc = Z_DATA_ERROR; /* bytes after the end */
                break;
            }
            zrc = Z_OK;
            continue;
        }
        if (zrc != Z_OK && zrc != Z_BUF_ERROR) break;
        if (zrc == Z_BUF_ERROR && z.avail_out != 0) break; /* input ended mid-stream */
    }
    inflateEnd(&z);
    if (len > max) {
        free(buf);
        return ENCODING_TOO_LARGE;
    }
    if (zrc != Z_STREAM_END) {
        free(buf);
        return ENCODING_BAD;
    }
    buf[len] = '\0';
    *out = buf;
    *out_len = len;
    return ENCODING_DECODED;
}

enum encoding_result encoding_decode_request(const struct http_request *req, size_t max, char **out,
                                             size_t *out_len)
{
    const char *header = http_request_header(req, "Content-Encoding"), *coding;
    size_t coding_len;
    enum encoding_result rc;

    if (!header) return ENCODING_NONE;
    coding_len = trim(header, strlen(header), &coding);
    if (coding_len == 0 || token_is(coding, coding_len, "identity")) return ENCODING_NONE;
    /* An empty body is a stream of neither kind. */
    if (req->body_len == 0) return ENCODING_BAD;
    if (token_is(coding, coding_len, "gzip"))
        return inflate_body(req->body, req->body_len, 16 + MAX_WBITS, true, max, out, out_len);
    if (!token_is(coding, coding_len, "deflate")) return ENCODING_BAD;
    /* The zlib format first (RFC 9110 8.4.1.2), then raw deflate, which
     * some clients send under the same name (encoding.h). */
    rc = inflate_body(req->body, req->body_len, MAX_WBITS, false, max, out, out_len);
    if (rc == ENCODING_BAD)
        rc = inflate_body(req->body, req->body_len, -MAX_WBITS, false, max, out, out_len);
    return rc;
}

/* The q-value the Accept-Encoding header gives coding: its own entry, else
 * "*"'s, else 0 (RFC 9110 12.5.3). */
static double accepted_q(const char *header, const char *coding)
{
    double own = -1, any = 0;
    const char *p = header;

    while (*p) {
        size_t item_len = strcspn(p, ","), name_len;
        const char *item, *semi;
        double q = 1;
        item_len = trim(p, item_len, &item);
        semi = memchr(item, ';', item_len);
        name_len = trim(item, semi ? (size_t) (semi - item) : item_len, &item);
        if (semi) {
            const char *qs = strstr(semi, "q=");
            if (qs && qs < p + strcspn(p, ",")) q = strtod(qs + 2, NULL);
        }
        if (token_is(item, name_len, coding)) own = q;
        if (token_is(item, name_len, "*")) any = q;
        p += strcspn(p, ",");
        if (*p == ',') p++;
    }
    return own >= 0 ? own : any;
}

void encoding_compress_response(const struct http_request *req, struct http_response *resp)
{
    const char *accept = http_request_header(req, "Accept-Encoding");
    const char *name;
    int window_bits;
    z_stream z;
    uLong bound;
    char *out, crc[16];

    if (!accept || !resp->body || resp->body_len < ENCODING_MIN_COMPRESS_BYTES) return;
    if (accepted_q(accept, "gzip") > 0) {
        name = "gzip";
        window_bits = 16 + MAX_WBITS;
    } else if (accepted_q(accept, "deflate") > 0) {
        name = "deflate";
        window_bits = MAX_WBITS;
    } else {
        return;
    }
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK)
        return;
    bound = deflateBound(&z, (uLong) resp->body_len);
    out = xmalloc(bound);
    z.next_in = (Bytef *) resp->body;
    z.avail_in = (uInt) resp->body_len;
    z.next_out = (Bytef *) out;
    z.avail_out = (uInt) bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&z);
        free(out);
        return; /* cannot happen with deflateBound's room; the answer goes out plain */
    }
    http_response_set_body(resp, out, (size_t) z.total_out);
    deflateEnd(&z);
    http_response_set_header(resp, "Content-Encoding", name);
    snprintf(crc, sizeof crc, "%u", (unsigned) response_crc32(resp->body, resp->body_len));
    http_response_set_header(resp, "x-amz-crc32", crc);
}
