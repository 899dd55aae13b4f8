/*
 * http_fetch.c - a minimal blocking HTTP/1.1 client; see http_fetch.h.
 *
 * Small on purpose: the subcommands that use it talk to a ddbemu on a
 * trusted, usually loopback, address; no TLS, no redirects, no keep-alive.
 */
#include "emulator/http_fetch.h"

#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

void http_fetch_result_clear(struct http_fetch_result *r)
{
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Splits "http://host[:port][/base]" into its parts; false when it is not one. */
static bool parse_url(const char *url, char *host, size_t host_size, char *port, size_t port_size,
                      const char **base)
{
    const char *p, *end, *colon;
    size_t len;

    if (strncmp(url, "http://", 7) != 0) return false;
    p = url + 7;
    end = strchr(p, '/');
    if (!end) end = p + strlen(p);
    *base = end;
    if (*p == '[') { /* [IPv6]:port */
        const char *close = memchr(p, ']', (size_t) (end - p));
        if (!close) return false;
        len = (size_t) (close - p - 1);
        if (len == 0 || len >= host_size) return false;
        memcpy(host, p + 1, len);
        host[len] = '\0';
        colon = close + 1 < end && close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = memchr(p, ':', (size_t) (end - p));
        len = (size_t) ((colon ? colon : end) - p);
        if (len == 0 || len >= host_size) return false;
        memcpy(host, p, len);
        host[len] = '\0';
    }
    if (colon) {
        len = (size_t) (end - colon - 1);
        if (len == 0 || len >= port_size) return false;
        memcpy(port, colon + 1, len);
        port[len] = '\0';
    } else {
        snprintf(port, port_size, "80");
    }
    return true;
}

static int connect_to(const char *host, const char *port, const char **why)
{
    struct addrinfo hints, *res, *ai;
    int fd = -1;

    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, port, &hints, &res) != 0) {
        *why = "cannot resolve the endpoint's host";
        return -1;
    }
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) *why = "cannot connect to the endpoint (is ddbemu running there?)";
    return fd;
}

static bool send_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        data += n;
        len -= (size_t) n;
    }
    return true;
}

/* Everything the server sends until it closes, NUL-terminated; NULL on error. */
static char *read_all(int fd, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);

    for (;;) {
        ssize_t got;
        if (!buf) return NULL;
        if (cap - n < 4096) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger) break;
            buf = bigger;
            cap *= 2;
        }
        got = recv(fd, buf + n, cap - n - 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        if (got == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        n += (size_t) got;
    }
    free(buf);
    return NULL;
}

/* Decodes a chunked body in place; returns its length. */
static size_t unchunk(char *body, size_t len)
{
    size_t in = 0, out = 0;

    while (in < len) {
        char *end;
        unsigned long size = strtoul(body + in, &end, 16);
        char *line_end = strstr(end, "\r\n");
        if (!line_end || size == 0) break;
        in = (size_t) (line_end - body) + 2;
        if (size > len - in) size = len - in;
        memmove(body + out, body + in, size);
        out += size;
        in += size + 2;
    }
    body[out] = '\0';
    return out;
}

/* Whether the headers (NUL-terminated) say Transfer-Encoding: chunked. */
static bool is_chunked(const char *head)
{
    static const char name[] = "\r\ntransfer-encoding:";
    for (const char *p = head; (p = strchr(p, '\r')) != NULL; p++) {
        if (strncasecmp(p, name, sizeof name - 1) == 0) {
            const char *v = p + sizeof name - 1;
            while (*v == ' ')
                v++;
            return strncasecmp(v, "chunked", 7) == 0;
        }
    }
    return false;
}

int http_fetch(const char *method, const char *url, const char *path, const char *body,
               struct http_fetch_result *out, const char **why)
{
    char host[256], port[16], *request, *raw, *head_end;
    const char *base;
    size_t raw_len, body_len = body ? strlen(body) : 0, req_len;
    bool chunked;
    int fd, len;

    memset(out, 0, sizeof *out);
    if (!parse_url(url, host, sizeof host, port, sizeof port, &base)) {
        *why = "the endpoint must look like http://host:port";
        return -1;
    }
    fd = connect_to(host, port, why);
    if (fd < 0) return -1;
    len = snprintf(NULL, 0,
                   "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n"
                   "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
                   method, base[0] == '/' && base[1] ? base : "", path, host, port, body_len);
    req_len = (size_t) len + body_len;
    request = malloc(req_len + 1);
    if (!request) {
        close(fd);
        *why = "out of memory";
        return -1;
    }
    snprintf(request, (size_t) len + 1,
             "%s %s%s HTTP/1.1\r\nHost: %s:%s\r\nConnection: close\r\n"
             "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n",
             method, base[0] == '/' && base[1] ? base : "", path, host, port, body_len);
    if (body_len) memcpy(request + len, body, body_len);
    if (!send_all(fd, request, req_len)) {
        free(request);
        close(fd);
        *why = "the endpoint closed the connection";
        return -1;
    }
    free(request);
    raw = read_all(fd, &raw_len);
    close(fd);
    if (!raw || sscanf(raw, "HTTP/1.%*d %d", &out->status) != 1 ||
        !(head_end = strstr(raw, "\r\n\r\n"))) {
        free(raw);
        *why = "the endpoint's answer is not HTTP";
        return -1;
    }
    *head_end = '\0';
    chunked = is_chunked(raw);
    out->body_len = raw_len - (size_t) (head_end + 4 - raw);
    memmove(raw, head_end + 4, out->body_len + 1);
    if (chunked) out->body_len = unchunk(raw, out->body_len);
    out->body = raw;
    return 0;
}
