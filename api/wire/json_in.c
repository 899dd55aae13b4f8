/*
 * json_in.c - reading a JSON text into jansson values, NUL characters included;
 * see json_in.h.
 *
 * The common case costs nothing extra: jansson reads the text. Only when it
 * refuses the text for a NUL in an object key (json_error_null_byte_in_key)
 * does the small reader below read it again. The reader accepts exactly what
 * jansson accepts otherwise, so both paths agree on every other text: strings
 * are checked as UTF-8 by jansson's own constructors (json_stringn,
 * json_object_setn_new), lone surrogate escapes and raw control characters
 * are refused, numbers are handed to jansson's decoder token by token (so
 * integer and real limits are jansson's), duplicate keys keep the last value,
 * nesting stops at jansson's JSON_PARSER_MAX_DEPTH (2048), and nothing but
 * white space may follow the value.
 *
 * Everything here is reentrant: no static mutable state.
 */
#include "api/wire/json_in.h"

#include "storage/base/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 2048 /* jansson's JSON_PARSER_MAX_DEPTH */

struct reader {
    const char *p;
    const char *end;
    int depth;
};

static void skip_space(struct reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r'))
        r->p++;
}

static bool take(struct reader *r, char c)
{
    skip_space(r);
    if (r->p < r->end && *r->p == c) {
        r->p++;
        return true;
    }
    return false;
}

/* Four hex digits of a \u escape, or -1. */
static int32_t hex4(struct reader *r)
{
    int32_t v = 0;
    if (r->end - r->p < 4) return -1;
    for (int i = 0; i < 4; i++) {
        char c = *r->p++;
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            v |= c - 'A' + 10;
        else
            return -1;
    }
    return v;
}

static void add_utf8(struct text_buf *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char) cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char) (0xC0 | (cp >> 6));
        out[1] = (char) (0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char) (0xE0 | (cp >> 12));
        out[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char) (0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char) (0xF0 | (cp >> 18));
        out[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char) (0x80 | (cp & 0x3F));
        n = 4;
    }
    text_buf_add(b, out, n);
}

/* The body of a string whose opening quote was just read, unescaped into b
 * (not yet checked as UTF-8). False on a syntax error. */
static bool read_string(struct reader *r, struct text_buf *b)
{
    text_buf_reserve(b, 0); /* "" has data, so an empty key is not NULL */
    while (r->p < r->end) {
        unsigned char c = (unsigned char) *r->p++;
        int32_t cp, low;
        if (c == '"') return true;
        if (c < 0x20) return false;
        if (c != '\\') {
            text_buf_add(b, (const char *) &c, 1);
            continue;
        }
        if (r->p == r->end) return false;
        switch (*r->p++) {
        case '"': text_buf_add(b, "\"", 1); break;
        case '\\': text_buf_add(b, "\\", 1); break;
        case '/': text_buf_add(b, "/", 1); break;
        case 'b': text_buf_add(b, "\b", 1); break;
        case 'f': text_buf_add(b, "\f", 1); break;
        case 'n': text_buf_add(b, "\n", 1); break;
        case 'r': text_buf_add(b, "\r", 1); break;
        case 't': text_buf_add(b, "\t", 1); break;
        case 'u':
            cp = hex4(r);
            if (cp < 0 || (cp >= 0xDC00 && cp <= 0xDFFF)) return false;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (r->end - r->p < 2 || r->p[0] != '\\' || r->p[1] != 'u') return false;
                r->p += 2;
                low = hex4(r);
                if (low < 0xDC00 || low > 0xDFFF) return false;
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            }
            add_utf8(b, (uint32_t) cp);
            break;
        default: return false;
        }
    }
    return false;
}

static json_t *read_value(struct reader *r);

static json_t *read_object(struct reader *r)
{
    json_t *obj = json_object();
    if (take(r, '}')) return obj;
    for (;;) {
        struct text_buf key = {0};
        json_t *v;
        bool ok = take(r, '"') && read_string(r, &key) && take(r, ':');
        v = ok ? read_value(r) : NULL;
        /* json_object_setn_new checks the key as UTF-8 and steals v either way. */
        ok = v && json_object_setn_new(obj, key.data, key.len, v) == 0;
        text_buf_clear(&key);
        if (!ok) break;
        if (take(r, '}')) return obj;
        if (!take(r, ',')) break;
    }
    json_decref(obj);
    return NULL;
}

static json_t *read_array(struct reader *r)
{
    json_t *arr = json_array();
    if (take(r, ']')) return arr;
    for (;;) {
        json_t *v = read_value(r);
        if (!v || json_array_append_new(arr, v) != 0) break;
        if (take(r, ']')) return arr;
        if (!take(r, ',')) break;
    }
    json_decref(arr);
    return NULL;
}

static bool take_word(struct reader *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t) (r->end - r->p) < n || memcmp(r->p, word, n) != 0) return false;
    r->p += n;
    return true;
}

/* A number token, decoded by jansson itself so that its limits apply. */
static json_t *read_number(struct reader *r)
{
    const char *start = r->p;
    json_t *v;
    while (r->p < r->end && (strchr("0123456789+-.eE", *r->p) != NULL) && *r->p)
        r->p++;
    v = json_loadb(start, (size_t) (r->p - start), JSON_DECODE_ANY, NULL);
    if (v && !json_is_number(v)) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

static json_t *read_value(struct reader *r)
{
    json_t *v = NULL;
    skip_space(r);
    if (r->p == r->end) return NULL;
    switch (*r->p) {
    case '{':
    case '[':
        if (++r->depth > MAX_DEPTH) return NULL;
        v = *r->p++ == '{' ? read_object(r) : read_array(r);
        r->depth--;
        return v;
    case '"': {
        struct text_buf s = {0};
        r->p++;
        if (read_string(r, &s)) v = json_stringn(s.data, s.len);
        text_buf_clear(&s);
        return v;
    }
    case 't': return take_word(r, "true") ? json_true() : NULL;
    case 'f': return take_word(r, "false") ? json_false() : NULL;
    case 'n': return take_word(r, "null") ? json_null() : NULL;
    default: return read_number(r);
    }
}

json_t *json_in_load(const char *text, size_t len)
{
    json_error_t jerr;
    json_t *v = json_loadb(text, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &jerr);
    struct reader r = {text, text + len, 0};

    if (v || json_error_code(&jerr) != json_error_null_byte_in_key) return v;
    v = read_value(&r);
    skip_space(&r);
    if (v && r.p != r.end) {
        json_decref(v);
        v = NULL;
    }
    return v;
}
