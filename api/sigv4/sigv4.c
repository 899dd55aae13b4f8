/*
 * sigv4.c - AWS Signature Version 4 mechanics (see sigv4.h).
 */
#include "api/sigv4/sigv4.h"

#include "storage/base/alloc.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char hex_digits[] = "0123456789abcdef";

static void to_hex(const unsigned char *bytes, size_t len, char *out)
{
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = hex_digits[bytes[i] >> 4];
        out[2 * i + 1] = hex_digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

void sigv4_sha256_hex(const void *data, size_t len, char out[SIGV4_HEX_SIZE])
{
    unsigned char digest[SHA256_DIGEST_LENGTH];

    SHA256(data, len, digest);
    to_hex(digest, sizeof digest, out);
}

bool sigv4_equal(const char *a, const char *b)
{
    size_t len = strlen(a);

    return len == strlen(b) && CRYPTO_memcmp(a, b, len) == 0;
}

static bool is_unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

void sigv4_uri_encode(const char *s, bool keep_slash, struct text_buf *out)
{
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (is_unreserved(*p) || (keep_slash && *p == '/')) {
            text_buf_add(out, (const char *) p, 1);
        } else {
            char esc[4] = {'%', "0123456789ABCDEF"[*p >> 4], "0123456789ABCDEF"[*p & 15], 0};
            text_buf_add(out, esc, 3);
        }
    }
}

/* ---- canonical request ---- */

struct encoded_pair {
    char *name;  /* owned */
    char *value; /* owned */
};

static int compare_pairs(const void *a, const void *b)
{
    const struct encoded_pair *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : strcmp(x->value, y->value);
}

static char *encoded(const char *s)
{
    struct text_buf b = {0};

    sigv4_uri_encode(s ? s : "", false, &b);
    return text_buf_take(&b, NULL);
}

static void canonical_query(const struct sigv4_message *m, struct text_buf *out)
{
    struct encoded_pair *pairs = xcalloc(m->query_count ? m->query_count : 1, sizeof *pairs);
    size_t n = 0;

    for (size_t i = 0; i < m->query_count; i++) {
        if (m->skip_query && strcmp(m->query[i].name, m->skip_query) == 0) continue;
        pairs[n].name = encoded(m->query[i].name);
        pairs[n].value = encoded(m->query[i].value);
        n++;
    }
    qsort(pairs, n, sizeof *pairs, compare_pairs);
    for (size_t i = 0; i < n; i++) {
        text_buf_printf(out, "%s%s=%s", i ? "&" : "", pairs[i].name, pairs[i].value);
        free(pairs[i].name);
        free(pairs[i].value);
    }
    free(pairs);
}

/* Appends value trimmed, with inner runs of blanks as one space. */
static void add_trimmed(const char *value, struct text_buf *out)
{
    const char *p = value;
    bool blank = false, started = false;

    for (; *p; p++) {
        if (*p == ' ' || *p == '\t') {
            blank = started;
            continue;
        }
        if (blank) text_buf_add(out, " ", 1);
        text_buf_add(out, p, 1);
        blank = false;
        started = true;
    }
}

static void canonical_headers(const struct sigv4_message *m, struct text_buf *out)
{
    const char *p = m->signed_headers;

    while (*p) {
        size_t len = strcspn(p, ";");
        bool first = true;

        for (size_t i = 0; i < len; i++) {
            char c = p[i];
            if (c >= 'A' && c <= 'Z') c = (char) (c - 'A' + 'a');
            text_buf_add(out, &c, 1);
        }
        text_buf_add(out, ":", 1);
        for (size_t i = 0; i < m->header_count; i++) {
            if (strlen(m->headers[i].name) != len || strncasecmp(m->headers[i].name, p, len) != 0)
                continue;
            if (!first) text_buf_add(out, ",", 1);
            add_trimmed(m->headers[i].value ? m->headers[i].value : "", out);
            first = false;
        }
        text_buf_add(out, "\n", 1);
        p += len;
        if (*p == ';') p++;
    }
}

void sigv4_canonical_request(const struct sigv4_message *m, struct text_buf *out)
{
    struct text_buf once = {0};

    text_buf_printf(out, "%s\n", m->method);
    /* The client encoded the path once to send it, then once more to sign it. */
    sigv4_uri_encode(m->path && m->path[0] ? m->path : "/", true, &once);
    sigv4_uri_encode(once.data, true, out);
    text_buf_clear(&once);
    text_buf_add(out, "\n", 1);
    canonical_query(m, out);
    text_buf_add(out, "\n", 1);
    canonical_headers(m, out);
    text_buf_printf(out, "\n%s\n%s", m->signed_headers, m->payload_hash);
}

void sigv4_string_to_sign(const char *amz_date, const char *scope, const char *canonical,
                          struct text_buf *out)
{
    char hash[SIGV4_HEX_SIZE];

    sigv4_sha256_hex(canonical, strlen(canonical), hash);
    text_buf_printf(out, SIGV4_ALGORITHM "\n%s\n%s\n%s", amz_date, scope, hash);
}

/* out = HMAC-SHA256(key, data). */
static void hmac(const unsigned char *key, size_t key_len, const char *data,
                 unsigned char out[SHA256_DIGEST_LENGTH])
{
    unsigned int len = SHA256_DIGEST_LENGTH;

    HMAC(EVP_sha256(), key, (int) key_len, (const unsigned char *) data, strlen(data), out, &len);
}

void sigv4_signature(const char *secret, const char *date, const char *region, const char *service,
                     const char *string_to_sign, char out[SIGV4_HEX_SIZE])
{
    size_t secret_len = strlen(secret);
    unsigned char *first = xmalloc(secret_len + 4);
    unsigned char k[SHA256_DIGEST_LENGTH], sig[SHA256_DIGEST_LENGTH];

    /* kDate = HMAC("AWS4" + secret, date); kRegion; kService; kSigning. */
    memcpy(first, "AWS4", 4);
    memcpy(first + 4, secret, secret_len);
    hmac(first, secret_len + 4, date, k);
    OPENSSL_cleanse(first, secret_len + 4);
    free(first);
    hmac(k, sizeof k, region, k);
    hmac(k, sizeof k, service, k);
    hmac(k, sizeof k, SIGV4_TERMINATOR, k);
    hmac(k, sizeof k, string_to_sign, sig);
    OPENSSL_cleanse(k, sizeof k);
    to_hex(sig, sizeof sig, out);
}

/* ---- dates ---- */

static bool digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

static int number(const char *s, size_t n)
{
    int v = 0;

    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's algorithm). */
static long long days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int sigv4_parse_date(const char *s, time_t *out)
{
    static const int month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, sec;

    if (strlen(s) != 16 || !digits(s, 8) || s[8] != 'T' || !digits(s + 9, 6) || s[15] != 'Z')
        return -1;
    y = number(s, 4);
    mo = number(s + 4, 2);
    d = number(s + 6, 2);
    h = number(s + 9, 2);
    mi = number(s + 11, 2);
    sec = number(s + 13, 2);
    if (mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 || sec > 60)
        return -1;
    *out = (time_t) (days_from_civil(y, mo, d) * 86400LL + h * 3600 + mi * 60 + sec);
    return 0;
}

void sigv4_format_date(time_t t, char out[17])
{
    struct tm tm;

    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}
