/*
 * text.c - Java lengths, UTF-8, base64 and a growable string buffer; see
 * text.h.
 */
#include "storage/base/text.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lengths ---- */

size_t text_u64(uint64_t v, char out[TEXT_U64_MAX])
{
    char rev[TEXT_U64_MAX];
    size_t n = 0;

    do {
        rev[n++] = (char) ('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = rev[n - 1 - i];
    out[n] = '\0';
    return n;
}

size_t text_utf16_length(const char *s, size_t len)
{
    size_t units = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        if ((c & 0xC0) == 0x80) continue; /* a continuation byte */
        units += c >= 0xF0 ? 2 : 1;
    }
    return units;
}

/* ---- UTF-8 ---- */

size_t text_utf8_decode(const char *s, size_t avail, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *) s;
    uint32_t c;
    size_t n;

    if (avail == 0) return 0;
    if (u[0] < 0x80) {
        n = 1;
        c = u[0];
    } else if (u[0] >= 0xC2 && u[0] <= 0xDF) {
        n = 2;
        c = u[0] & 0x1FU;
    } else if (u[0] >= 0xE0 && u[0] <= 0xEF) {
        n = 3;
        c = u[0] & 0x0FU;
    } else if (u[0] >= 0xF0 && u[0] <= 0xF4) {
        n = 4;
        c = u[0] & 0x07U;
    } else {
        return 0; /* a continuation byte, or a lead byte no sequence starts with */
    }
    if (n > avail) return 0;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0) != 0x80) return 0;
        c = (c << 6) | (u[i] & 0x3FU);
    }
    /* C0 and C1 were refused above; E0 and F0 can still start an overlong
     * form, ED a surrogate, F4 a value past U+10FFFF. */
    if ((n == 3 && c < 0x800) || (n == 4 && c < 0x10000)) return 0;
    if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF) return 0;
    if (cp) *cp = c;
    return n;
}

bool text_utf8_is_valid(const char *s, size_t len)
{
    size_t i = 0;

    while (i < len) {
        size_t n = (unsigned char) s[i] < 0x80 ? 1 : text_utf8_decode(s + i, len - i, NULL);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

bool text_json_plain(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        if (c < 0x20 || c >= 0x80 || c == '"' || c == '\\') return false;
    }
    return true;
}

size_t text_utf8_encode(uint32_t cp, char out[TEXT_UTF8_MAX_BYTES])
{
    assert(cp <= 0x10FFFF);
    if (cp < 0x80) {
        out[0] = (char) cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char) (0xC0 | (cp >> 6));
        out[1] = (char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char) (0xE0 | (cp >> 12));
        out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char) (0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char) (0xF0 | (cp >> 18));
    out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char) (0x80 | (cp & 0x3F));
    return 4;
}

/* ---- base64 ---- */

static const char base64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* 0..63, or -1 for a character outside the alphabet. */
static int base64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

size_t text_base64_encoded_length(size_t len)
{
    return (len + 2) / 3 * 4;
}

void text_base64_encode(const void *data, size_t len, char *out)
{
    const unsigned char *in = data;

    for (size_t i = 0; i < len; i += 3) {
        uint32_t chunk = (uint32_t) in[i] << 16;
        if (i + 1 < len) chunk |= (uint32_t) in[i + 1] << 8;
        if (i + 2 < len) chunk |= in[i + 2];
        *out++ = base64_alphabet[(chunk >> 18) & 63];
        *out++ = base64_alphabet[(chunk >> 12) & 63];
        *out++ = i + 1 < len ? base64_alphabet[(chunk >> 6) & 63] : '=';
        *out++ = i + 2 < len ? base64_alphabet[chunk & 63] : '=';
    }
    *out = '\0';
}

char *text_base64_encode_new(const void *data, size_t len)
{
    char *out = xmalloc(text_base64_encoded_length(len) + 1);
    text_base64_encode(data, len, out);
    return out;
}

/* The trailing pads of s (at most two). */
static size_t base64_pads(const char *s, size_t len)
{
    size_t pad = 0;
    while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
        pad++;
    return pad;
}

/* The alphabet and padding rules of text_base64_valid, without the length. */
static bool base64_digits_valid(const char *s, size_t len)
{
    size_t pad = base64_pads(s, len);

    for (size_t i = 0; i < len - pad; i++) {
        if (base64_digit((unsigned char) s[i]) < 0) return false;
    }
    /* The bits of the last digit that fall past the final byte must be zero
     * ("+/+=" is refused: its '+' carries two stray bits). */
    if (pad && len > pad &&
        (base64_digit((unsigned char) s[len - 1 - pad]) & (pad == 1 ? 0x3 : 0xF)))
        return false;
    return true;
}

bool text_base64_valid(const char *s, size_t len)
{
    return text_utf16_length(s, len) % 4 == 0 && base64_digits_valid(s, len);
}

int text_base64_check(const char *s, size_t len, struct ddb_error *err)
{
    size_t units = text_utf16_length(s, len);

    if (units % 4 != 0)
        return ddb_error_set(err, DDB_SERIALIZATION,
                             "Base64 encoded length is expected a multiple of 4 bytes but found: "
                             "%zu",
                             units);
    if (!base64_digits_valid(s, len))
        /* AWS's text, misspelling included (dynalite test helpers, Blob). */
        return ddb_error_set(err, DDB_SERIALIZATION,
                             "Invalid last non-pad Base64 character dectected");
    return 0;
}

size_t text_base64_decoded_length(const char *s, size_t len)
{
    size_t whole = len / 4 * 3, pad = base64_pads(s, len);
    return whole >= pad ? whole - pad : 0;
}

char *text_base64_decode(const char *s, size_t len, size_t *out_len)
{
    char *out = xmalloc(len / 4 * 3 + 1);
    size_t n = 0;
    uint32_t acc = 0;
    int bits = 0;

    for (size_t i = 0; i < len && s[i] != '='; i++) {
        acc = (acc << 6) | (uint32_t) base64_digit((unsigned char) s[i]);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[n++] = (char) ((acc >> bits) & 0xFF);
        }
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

/* ---- a growable string buffer ---- */

void text_buf_init(struct text_buf *b)
{
    memset(b, 0, sizeof *b);
}

void text_buf_clear(struct text_buf *b)
{
    free(b->data);
    text_buf_init(b);
}

void text_buf_reserve(struct text_buf *b, size_t extra)
{
    size_t cap;

    if (b->len + extra + 1 <= b->cap) return;
    cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void text_buf_add(struct text_buf *b, const char *s, size_t len)
{
    text_buf_reserve(b, len);
    if (len) memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void text_buf_puts(struct text_buf *b, const char *s)
{
    text_buf_add(b, s, strlen(s));
}

void text_buf_printf(struct text_buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    /* Format straight into the free space; only text longer than it is
     * formatted a second time, after growing once. */
    text_buf_reserve(b, 256);
    va_start(ap, fmt);
    n = vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->data[b->len] = '\0';
        return;
    }
    if ((size_t) n >= b->cap - b->len) {
        text_buf_reserve(b, (size_t) n);
        va_start(ap, fmt);
        vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t) n;
}

char *text_buf_take(struct text_buf *b, size_t *len)
{
    char *data = b->data ? b->data : xstrdup("");

    if (len) *len = b->len;
    text_buf_init(b);
    return data;
}
