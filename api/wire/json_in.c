/*
 * json_in.c - reading a JSON text into jansson values, NUL characters included;
 * see json_in.h.
 *
 * Every request body is read here, so the reader is built for speed: a run of
 * plain string bytes is found in one pass and handed to jansson's
 * constructors as it stands in the text (no copy unless the string has an
 * escape), and the common number - a short integer - is decoded in place.
 * (jansson's own decoder reads a byte at a time through a stream and a
 * growing buffer: 170-210 instructions a byte, the largest part of a write
 * request's cost; bench/README.md.)
 *
 * It accepts exactly what jansson's json_loadb(JSON_ALLOW_NUL |
 * JSON_DECODE_ANY) accepts, and reads it the same, except that it also reads
 * object keys holding NUL, which jansson refuses: strings are checked as
 * UTF-8 by jansson's own constructors (json_stringn, json_object_setn_new;
 * a string whose bytes are all ASCII is valid as it is, and goes to their
 * _nocheck forms, which differ only in not checking),
 * lone surrogate escapes and raw control characters are refused, any number
 * but a short integer is handed to jansson's decoder token by token (so
 * integer and real limits are jansson's), duplicate keys keep the last value
 * in the first one's place, nesting stops at jansson's JSON_PARSER_MAX_DEPTH
 * (2048), and nothing but white space may follow the value. One more
 * difference: a raw NUL byte (never JSON) is refused wherever it stands,
 * where jansson drops one that directly follows a number ("[1<NUL>]" reads
 * as [1] there). fuzz_wire_decode compares the two readers on every input.
 *
 * Everything here is reentrant: no static mutable state.
 */
#include "api/wire/json_in.h"

#include "api/wire/json_alloc.h"
#include "storage/base/alloc.h"
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
    struct text_buf scratch; /* the unescaped text of the last string with an escape */
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

/*
 * True when none of the eight bytes in x ends a run of plain string bytes:
 * none is '"', '\\' or a control character below 0x20 (bytes from 0x80 stay
 * in the run: jansson checks the UTF-8). The "has a zero byte" and "has a
 * byte less than n" word tricks are exact about whether such a byte exists,
 * which is all that is asked.
 */
static bool is_plain_word(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL, highs = ones * 0x80;
    uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    uint64_t flags =
        ((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash);

    return (flags & highs) == 0;
}

/* Moves r->p past plain string bytes: eight at a time while a whole word is
 * plain (most of a request body's strings), then byte by byte. Returns the
 * OR of the bytes passed: no 0x80 bit in it means they are ASCII. */
static uint64_t skip_plain(struct reader *r)
{
    uint64_t seen = 0;

    while (r->end - r->p >= 8) {
        uint64_t word;
        memcpy(&word, r->p, sizeof word);
        if (!is_plain_word(word)) break;
        seen |= word;
        r->p += 8;
    }
    while (r->p < r->end && *r->p != '"' && *r->p != '\\' && (unsigned char) *r->p >= 0x20)
        seen |= (unsigned char) *r->p++;
    return seen;
}

/* The body of a string whose opening quote was just read: on success *out
 * and *len give its unescaped bytes, in the text itself when it has no
 * escape, else in r->scratch until the next string, and *ascii whether they
 * are known to be ASCII (then valid UTF-8; otherwise not yet checked).
 * False on a syntax error. */
static bool read_string(struct reader *r, const char **out, size_t *len, bool *ascii)
{
    const char *run = r->p;
    struct text_buf *b = &r->scratch;
    uint64_t seen;

    /* The common case: plain bytes up to the closing quote. */
    seen = skip_plain(r);
    if (r->p == r->end || (unsigned char) *r->p < 0x20) return false;
    if (*r->p == '"') {
        *out = run;
        *len = (size_t) (r->p++ - run);
        *ascii = (seen & 0x8080808080808080ULL) == 0;
        return true;
    }
    *ascii = false; /* with escapes: left to jansson's check */
    b->len = 0;
    text_buf_reserve(b, 0); /* "" has data, so an empty key is not NULL */
    for (;;) {
        unsigned char c;
        int32_t cp, low;
        char utf8[TEXT_UTF8_MAX_BYTES];

        text_buf_add(b, run, (size_t) (r->p - run));
        if (r->p == r->end) return false;
        c = (unsigned char) *r->p++;
        if (c == '"') break;
        if (c < 0x20 || r->p == r->end) return false;
        /* c is a backslash. */
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
            text_buf_add(b, utf8, text_utf8_encode((uint32_t) cp, utf8));
            break;
        default: return false;
        }
        run = r->p;
        skip_plain(r);
    }
    *out = b->data;
    *len = b->len;
    return true;
}

static json_t *read_value(struct reader *r);

static json_t *read_object(struct reader *r)
{
    json_t *obj = json_object();
    if (take(r, '}')) return obj;
    for (;;) {
        const char *key;
        size_t key_len;
        char *key_copy;
        json_t *v;
        bool ascii, ok;

        if (!take(r, '"') || !read_string(r, &key, &key_len, &ascii)) break;
        /* The value's strings may reuse the scratch buffer the key is in. */
        key_copy = key == r->scratch.data ? xmemdup(key, key_len) : NULL;
        v = take(r, ':') ? read_value(r) : NULL;
        /* json_object_setn_new checks the key as UTF-8 (not needed for an
         * ASCII one: the _nocheck form is the same but for that) and steals
         * v either way. */
        if (!v)
            ok = false;
        else if (ascii)
            ok = json_object_setn_new_nocheck(obj, key_copy ? key_copy : key, key_len, v) == 0;
        else
            ok = json_object_setn_new(obj, key_copy ? key_copy : key, key_len, v) == 0;
        free(key_copy);
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

static bool is_number_char(char c)
{
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E';
}

/* A number token. A short integer in JSON's form (-?(0|[1-9][0-9]*), at most
 * 18 digits, so it cannot overflow) is decoded here; any other token is
 * decoded by jansson itself, so that its grammar and limits apply. */
static json_t *read_number(struct reader *r)
{
    const char *start = r->p, *q = r->p;
    bool negative = q < r->end && *q == '-';
    json_int_t n = 0;
    json_t *v;

    if (negative) q++;
    if (q < r->end && *q >= '1' && *q <= '9') {
        const char *digits = q;
        while (q < r->end && *q >= '0' && *q <= '9' && q - digits < 18)
            n = n * 10 + (*q++ - '0');
    } else if (q < r->end && *q == '0') {
        q++;
    }
    if (q > start + negative && (q == r->end || !is_number_char(*q))) {
        r->p = q;
        return json_integer(negative ? -n : n);
    }
    while (r->p < r->end && is_number_char(*r->p))
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
        const char *s;
        size_t len;
        bool ascii;
        r->p++;
        if (!read_string(r, &s, &len, &ascii)) return NULL;
        return ascii ? json_stringn_nocheck(s, len) : json_stringn(s, len);
    }
    case 't': return take_word(r, "true") ? json_true() : NULL;
    case 'f': return take_word(r, "false") ? json_false() : NULL;
    case 'n': return take_word(r, "null") ? json_null() : NULL;
    default: return read_number(r);
    }
}

json_t *json_in_load(const char *text, size_t len)
{
    struct reader r = {text, text + len, 0, {0}};
    json_t *v;

    json_alloc_install(); /* the tree's blocks come from the thread's cache */
    v = read_value(&r);

    skip_space(&r);
    if (v && r.p != r.end) {
        json_decref(v);
        v = NULL;
    }
    text_buf_clear(&r.scratch);
    return v;
}
