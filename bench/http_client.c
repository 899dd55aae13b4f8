/*
 * http_client.c - the benchmark's minimal HTTP/1.1 client; see http_client.h.
 *
 * Requests look signed, as an SDK's do: X-Amz-Date and an Authorization
 * header with an AWS4-HMAC-SHA256 credential scope, SignedHeaders and a
 * 64-hex-digit Signature. ddbemu checks the shape of these, never the
 * signature, so the signature is a fixed string.
 */
#include "bench/http_client.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define ACCESS_KEY "AKIDBENCHMARK0000000"
#define REGION     "us-east-1"
#define SIGNATURE  "4f1c9d2e8b7a6c5d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d"

uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000ULL + (uint64_t) ts.tv_nsec;
}

void die(const char *what)
{
    fprintf(stderr, "loadgen: %s: %s\n", what, strerror(errno));
    exit(1);
}

int http_connect(const struct http_target *opt)
{
    struct sockaddr_in addr;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;

    if (fd < 0) die("socket");
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(opt->port);
    if (inet_pton(AF_INET, opt->host, &addr.sin_addr) != 1) {
        fprintf(stderr, "loadgen: --host must be an IPv4 address: %s\n", opt->host);
        exit(2);
    }
    if (connect(fd, (struct sockaddr *) &addr, sizeof addr) != 0) {
        close(fd);
        return -1;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* The current time as X-Amz-Date wants it, and the date of the credential scope. */
static void amz_date(char date_time[17], char date[9])
{
    time_t t = time(NULL);
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(date_time, 17, "%Y%m%dT%H%M%SZ", &tm);
    strftime(date, 9, "%Y%m%d", &tm);
}

void http_build_request(struct text_buf *out, const struct http_target *opt, const char *target,
                        const char *body, size_t body_len)
{
    char date_time[17], date[9];

    amz_date(date_time, date);
    out->len = 0;
    text_buf_printf(out,
                    "POST / HTTP/1.1\r\n"
                    "Host: %s:%u\r\n"
                    "Accept-Encoding: identity\r\n"
                    "User-Agent: ddbemu-bench-loadgen/1\r\n"
                    "Content-Type: application/x-amz-json-1.0\r\n"
                    "X-Amz-Target: %s\r\n"
                    "X-Amz-Date: %s\r\n"
                    "Authorization: AWS4-HMAC-SHA256 Credential=" ACCESS_KEY "/%s/" REGION
                    "/dynamodb/aws4_request, "
                    "SignedHeaders=content-type;host;x-amz-date;x-amz-target, "
                    "Signature=" SIGNATURE "\r\n"
                    "Content-Length: %zu\r\n"
                    "\r\n",
                    opt->host, (unsigned) opt->port, target, date_time, date, body_len);
    text_buf_add(out, body, body_len);
}

/* Case-insensitive prefix test for header names. */
static bool has_prefix_ci(const char *s, size_t len, const char *prefix)
{
    size_t n = strlen(prefix);

    if (len < n) return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') c = (char) (c - 'A' + 'a');
        if (c != prefix[i]) return false;
    }
    return true;
}

const char *http_find_bytes(const char *hay, size_t hay_len, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = 0; n <= hay_len && i <= hay_len - n; i++)
        if (memcmp(hay + i, needle, n) == 0) return hay + i;
    return NULL;
}

/* Parses the chunked body at p; returns its encoded length, or 0 when incomplete. */
static size_t chunked_length(const char *p, size_t len)
{
    size_t at = 0;

    for (;;) {
        const char *eol = http_find_bytes(p + at, len - at, "\r\n");
        if (!eol) return 0;
        size_t size = (size_t) strtoul(p + at, NULL, 16);
        at = (size_t) (eol - p) + 2;
        if (size == 0) {
            /* No trailers are expected: the last chunk ends with an empty line. */
            return len - at >= 2 ? at + 2 : 0;
        }
        if (len - at < size + 2) return 0;
        at += size + 2;
    }
}

int http_parse_response(const char *data, size_t len, struct http_response *r)
{
    const char *end = http_find_bytes(data, len, "\r\n\r\n");
    const char *line;
    size_t header_len, content_length = 0;
    bool chunked = false, have_length = false;

    if (!end) return len > 65536 ? -1 : 0;
    if (len < 12 || memcmp(data, "HTTP/1.", 7) != 0) return -1;
    memset(r, 0, sizeof *r);
    r->status = atoi(data + 9);
    header_len = (size_t) (end - data) + 4;
    line = (const char *) memchr(data, '\n', header_len) + 1;
    while (line < end) {
        const char *eol = memchr(line, '\r', (size_t) (end + 2 - line));
        size_t n;
        if (!eol) return -1;
        n = (size_t) (eol - line);
        if (has_prefix_ci(line, n, "content-length:")) {
            content_length = (size_t) strtoull(line + 15, NULL, 10);
            have_length = true;
        } else if (has_prefix_ci(line, n, "transfer-encoding:")) {
            chunked = http_find_bytes(line, n, "chunked") != NULL;
        } else if (has_prefix_ci(line, n, "connection:")) {
            r->close = http_find_bytes(line, n, "close") != NULL;
        }
        line = eol + 2;
    }
    r->body = data + header_len;
    if (chunked) {
        size_t n = chunked_length(r->body, len - header_len);
        if (!n) return 0;
        r->body_len = n;
    } else if (have_length) {
        if (len - header_len < content_length) return 0;
        r->body_len = content_length;
    } else {
        r->body_len = 0; /* no body (204, 304...) or a close-delimited one we do not expect */
    }
    r->total_len = header_len + r->body_len;
    return 1;
}

int http_exchange(const struct http_target *opt, const struct text_buf *out, struct text_buf *in,
                  struct http_response *r)
{
    int fd = http_connect(opt);
    size_t sent = 0;
    int rc = -1;

    if (fd < 0) return -1;
    while (sent < out->len) {
        ssize_t n = write(fd, out->data + sent, out->len - sent);
        if (n <= 0) goto out;
        sent += (size_t) n;
    }
    in->len = 0;
    for (;;) {
        ssize_t n;
        int parsed;
        text_buf_reserve(in, HTTP_READ_CHUNK);
        n = read(fd, in->data + in->len, in->cap - in->len - 1);
        if (n <= 0) goto out;
        in->len += (size_t) n;
        in->data[in->len] = '\0';
        parsed = http_parse_response(in->data, in->len, r);
        if (parsed < 0) goto out;
        if (parsed > 0) break;
    }
    rc = 0;
out:
    close(fd);
    return rc;
}

bool http_get_root_ok(const struct http_target *opt)
{
    struct text_buf out = {0}, in = {0};
    struct http_response r;
    bool ok;

    text_buf_printf(&out, "GET / HTTP/1.1\r\nHost: %s:%u\r\n\r\n", opt->host, (unsigned) opt->port);
    ok = http_exchange(opt, &out, &in, &r) == 0 && r.status == 200;
    free(out.data);
    free(in.data);
    return ok;
}

uint16_t http_free_port(void)
{
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    uint16_t port = 0;

    if (fd < 0) return 0;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *) &addr, sizeof addr) == 0 &&
        getsockname(fd, (struct sockaddr *) &addr, &len) == 0)
        port = ntohs(addr.sin_port);
    close(fd);
    return port;
}
