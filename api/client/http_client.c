/*
 * http_client.c - a minimal blocking HTTP/1.1 client; see http_client.h.
 */
#include "api/client/http_client.h"

#include "api/sigv4/sigv4.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ACCESS_KEY "AKIDBENCHMARK0000000"
#define DEFAULT_REGION     "us-east-1"
#define SIGNATURE          "4f1c9d2e8b7a6c5d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d"

int http_parse_url(const char *url, struct http_target *t)
{
    const char *host, *end, *colon;
    size_t host_len;
    unsigned long port = 80;

    if (strncmp(url, "http://", 7) != 0) return -1;
    host = url + 7;
    end = host + strcspn(host, "/");
    if (end[0] == '/' && end[1] != '\0') return -1;
    if (host[0] == '[') { /* [IPv6]:port */
        const char *close_bracket = memchr(host, ']', (size_t) (end - host));
        if (!close_bracket) return -1;
        colon = close_bracket[1] == ':' ? close_bracket + 1 : NULL;
        if (!colon && close_bracket + 1 != end) return -1;
        host++;
        host_len = (size_t) (close_bracket - host);
    } else {
        colon = memchr(host, ':', (size_t) (end - host));
        host_len = (size_t) ((colon ? colon : end) - host);
    }
    if (colon) {
        char *stop;
        port = strtoul(colon + 1, &stop, 10);
        if (stop != end || stop == colon + 1 || port == 0 || port > 65535) return -1;
    }
    if (host_len == 0 || host_len >= sizeof t->host) return -1;
    memcpy(t->host, host, host_len);
    t->host[host_len] = '\0';
    t->port = (uint16_t) port;
    return 0;
}

int http_connect(const struct http_target *opt)
{
    struct addrinfo hints, *found = NULL;
    char port[8];
    int fd = -1, one = 1;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    snprintf(port, sizeof port, "%u", (unsigned) opt->port);
    if (getaddrinfo(opt->host, port, &hints, &found) != 0) {
        errno = EHOSTUNREACH;
        return -1;
    }
    for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (fd < 0) continue;
        if (opt->timeout_s > 0) {
            struct timeval tv = {opt->timeout_s, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            int saved = errno;
            close(fd);
            fd = -1;
            errno = saved;
        }
    }
    freeaddrinfo(found);
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static int copy_env(char *out, size_t size, const char *name)
{
    const char *v = getenv(name);

    if (!v || !v[0]) return 0;
    if (strlen(v) >= size) return -1;
    snprintf(out, size, "%s", v);
    return 0;
}

int http_target_sign_from_env(struct http_target *t)
{
    if (t->secret_key[0] || !getenv("AWS_SECRET_ACCESS_KEY")) return 0;
    if (copy_env(t->secret_key, sizeof t->secret_key, "AWS_SECRET_ACCESS_KEY") != 0 ||
        copy_env(t->session_token, sizeof t->session_token, "AWS_SESSION_TOKEN") != 0)
        return -1;
    if (!t->access_key[0] && copy_env(t->access_key, sizeof t->access_key, "AWS_ACCESS_KEY_ID"))
        return -1;
    return 0;
}

/*
 * Appends the request line and headers of a request, signed (the headers
 * below, all signed; a real signature when t has a secret key), then the
 * body. extra: one more header ("Name: value"), or NULL; content_type NULL:
 * none.
 */
static void build(struct text_buf *out, const struct http_target *t, const char *method,
                  const char *path, const char *content_type, const char *target, const char *body,
                  size_t body_len)
{
    const char *access_key = t->access_key[0] ? t->access_key : DEFAULT_ACCESS_KEY;
    const char *region = t->region[0] ? t->region : DEFAULT_REGION;
    bool ipv6 = strchr(t->host, ':') != NULL;
    char host[300], date_time[17], date[9], signature[SIGV4_HEX_SIZE] = SIGNATURE;
    struct sigv4_field headers[5], query[16];
    char path_only[1024], query_text[1024] = "";
    struct text_buf signed_names = {0};
    size_t n = 0, nq = 0;

    snprintf(host, sizeof host, "%s%s%s:%u", ipv6 ? "[" : "", t->host, ipv6 ? "]" : "",
             (unsigned) t->port);
    sigv4_format_date(time(NULL), date_time);
    memcpy(date, date_time, 8);
    date[8] = '\0';
    /* In sorted order: SignedHeaders lists them so. */
    if (content_type) headers[n++] = (struct sigv4_field){"content-type", content_type};
    headers[n++] = (struct sigv4_field){"host", host};
    headers[n++] = (struct sigv4_field){"x-amz-date", date_time};
    if (t->session_token[0])
        headers[n++] = (struct sigv4_field){"x-amz-security-token", t->session_token};
    if (target) headers[n++] = (struct sigv4_field){"x-amz-target", target};
    for (size_t i = 0; i < n; i++)
        text_buf_printf(&signed_names, "%s%s", i ? ";" : "", headers[i].name);
    /* The path is one of ours, sent as is: its query arguments need no
     * percent-decoding to be signed. */
    snprintf(path_only, sizeof path_only, "%.*s", (int) strcspn(path, "?"), path);
    if (path[strcspn(path, "?")] == '?')
        snprintf(query_text, sizeof query_text, "%s", path + strcspn(path, "?") + 1);
    for (char *p = query_text, *next; *p && nq < sizeof query / sizeof *query; p = next) {
        char *eq;
        next = p + strcspn(p, "&");
        if (*next) *next++ = '\0';
        eq = strchr(p, '=');
        if (eq) *eq = '\0';
        query[nq++] = (struct sigv4_field){p, eq ? eq + 1 : NULL};
    }
    if (t->secret_key[0]) {
        char payload[SIGV4_HEX_SIZE], scope[256];
        struct text_buf canonical = {0}, to_sign = {0};
        struct sigv4_message m = {.method = method,
                                  .path = path_only,
                                  .query = query,
                                  .query_count = nq,
                                  .headers = headers,
                                  .header_count = n,
                                  .signed_headers = signed_names.data,
                                  .payload_hash = payload};
        sigv4_sha256_hex(body ? body : "", body_len, payload);
        sigv4_canonical_request(&m, &canonical);
        snprintf(scope, sizeof scope, "%s/%s/dynamodb/aws4_request", date, region);
        sigv4_string_to_sign(date_time, scope, canonical.data, &to_sign);
        sigv4_signature(t->secret_key, date, region, "dynamodb", to_sign.data, signature);
        text_buf_clear(&canonical);
        text_buf_clear(&to_sign);
    }
    out->len = 0;
    text_buf_printf(out, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, path, host);
    text_buf_puts(out, "Accept-Encoding: identity\r\nUser-Agent: ddbemu-http-client/1\r\n");
    if (content_type) text_buf_printf(out, "Content-Type: %s\r\n", content_type);
    if (target) text_buf_printf(out, "X-Amz-Target: %s\r\n", target);
    text_buf_printf(out, "X-Amz-Date: %s\r\n", date_time);
    if (t->session_token[0]) text_buf_printf(out, "X-Amz-Security-Token: %s\r\n", t->session_token);
    text_buf_printf(out,
                    "Authorization: AWS4-HMAC-SHA256 Credential=%s/%s/%s/dynamodb/aws4_request, "
                    "SignedHeaders=%s, Signature=%s\r\n",
                    access_key, date, region, signed_names.data, signature);
    if (body) text_buf_printf(out, "Content-Length: %zu\r\n", body_len);
    text_buf_puts(out, "\r\n");
    if (body) text_buf_add(out, body, body_len);
    text_buf_clear(&signed_names);
}

void http_build_request(struct text_buf *out, const struct http_target *opt, const char *target,
                        const char *body, size_t body_len)
{
    build(out, opt, "POST", "/", "application/x-amz-json-1.0", target, body, body_len);
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
    r->chunked = chunked;
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

/* Appends the data of a chunked body (its length checked by chunked_length). */
static void dechunk(const char *p, size_t len, struct text_buf *out)
{
    size_t at = 0;

    while (at < len) {
        const char *eol = http_find_bytes(p + at, len - at, "\r\n");
        size_t size;
        if (!eol) return;
        size = (size_t) strtoul(p + at, NULL, 16);
        at = (size_t) (eol - p) + 2;
        if (size == 0 || len - at < size) return;
        text_buf_add(out, p + at, size);
        at += size + 2;
    }
}

/* Sends out on a new connection; the answer's status, and its body
 * (de-chunked, NUL-terminated) into answer. */
static int exchange_into(const struct http_target *t, struct text_buf *out, int *status,
                         struct text_buf *answer)
{
    struct text_buf in = {0};
    struct http_response r;
    int rc = http_exchange(t, out, &in, &r);

    answer->len = 0;
    if (rc == 0) {
        *status = r.status;
        if (r.chunked)
            dechunk(r.body, r.body_len, answer);
        else
            text_buf_add(answer, r.body, r.body_len);
        text_buf_reserve(answer, 1);
        answer->data[answer->len] = '\0';
    }
    free(out->data);
    free(in.data);
    return rc;
}

int http_call(const struct http_target *t, const char *target, const char *body, size_t body_len,
              int *status, struct text_buf *answer)
{
    struct text_buf out = {0};

    http_build_request(&out, t, target, body, body_len);
    return exchange_into(t, &out, status, answer);
}

int http_fetch(const struct http_target *t, const char *method, const char *path, const char *body,
               int *status, struct text_buf *answer)
{
    struct text_buf out = {0};

    /* Signed like a DynamoDB request: a control interface off loopback
     * with --credentials asks for that (README, control interface). */
    build(&out, t, method, path, body ? "application/json" : NULL, NULL, body,
          body ? strlen(body) : 0);
    return exchange_into(t, &out, status, answer);
}

bool http_get_root_ok(const struct http_target *t)
{
    struct text_buf answer = {0};
    int status = 0;
    bool ok = http_fetch(t, "GET", "/", NULL, &status, &answer) == 0 && status == 200;

    free(answer.data);
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
