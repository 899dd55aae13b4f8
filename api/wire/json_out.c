/*
 * json_out.c - a small JSON writer into one growable buffer; see json_out.h.
 *
 * The buffer grows geometrically and always keeps one spare byte for the
 * '\0' that json_out_take promises. A plain ASCII string (almost every one)
 * is checked and copied in one pass, sixteen bytes at a time; from the first
 * byte that needs a look the rest is copied in runs: the scan stops only at
 * bytes that need an escape or at the start of a multi-byte UTF-8 sequence,
 * which text_utf8_decode validates by the same rules
 * jansson's parser applies (utf8_check_first/utf8_check_full in jansson's
 * utf.c), so exactly the strings jansson would have dumped come out raw.
 *
 * Reentrant: no static mutable state.
 */
#include "api/wire/json_out.h"

#include "storage/base/text.h"
#include "storage/base/thread_cache.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INITIAL_CAPACITY 1024

/* ---- the buffer ---- */

/* Makes room for n more bytes plus the final '\0'; returns where they go. */
char *json_out_grow(struct json_out *w, size_t n)
{
    size_t need = w->len + n + 1, cap;

    if (need > w->cap) {
        cap = w->cap ? w->cap : INITIAL_CAPACITY;
        while (cap < need)
            cap *= 2;
        w->data = thread_cache_grow(w->data, w->len, cap);
        w->cap = cap;
    }
    return w->data + w->len;
}

static void reserve(struct json_out *w, size_t n)
{
    (void) json_out_room(w, n);
}

/* Appends n bytes; the caller has reserved them. */
static void put(struct json_out *w, const void *bytes, size_t n)
{
    memcpy(w->data + w->len, bytes, n);
    w->len += n;
}

static void append(struct json_out *w, const void *bytes, size_t n)
{
    reserve(w, n);
    put(w, bytes, n);
}

static void append_char(struct json_out *w, char c)
{
    reserve(w, 1);
    w->data[w->len++] = c;
}

/* The ',' before a key or value that follows a sibling. */
static void separate(struct json_out *w)
{
    if (w->need_comma) append_char(w, ',');
}

/* ---- lifecycle ---- */

/* Makes w an empty writer; allocates nothing. */
void json_out_init(struct json_out *w)
{
    memset(w, 0, sizeof *w);
}

/* Frees w's buffer (whatever was written is discarded); w is empty again. */
void json_out_clear(struct json_out *w)
{
    thread_cache_free(w->data);
    json_out_init(w);
}

/* Returns the text, NUL-terminated (an empty string when nothing was
 * written); the caller frees it. The writer is left empty. */
char *json_out_take(struct json_out *w, size_t *len)
{
    char *text;

    assert(w->depth == 0);
    reserve(w, 0);
    w->data[w->len] = '\0';
    text = w->data;
    *len = w->len;
    json_out_init(w);
    return text;
}

/* ---- structure ---- */

static void open_container(struct json_out *w, char bracket)
{
    separate(w);
    append_char(w, bracket);
    w->need_comma = false;
    w->depth++;
}

static void close_container(struct json_out *w, char bracket)
{
    assert(w->depth > 0);
    append_char(w, bracket);
    w->need_comma = true;
    w->depth--;
}

/* '{' and '}', '[' and ']': a container opens as w's next value (after a ','
 * when it follows a sibling) and, once closed, counts as a written value. */
void json_out_object_begin(struct json_out *w)
{
    open_container(w, '{');
}

void json_out_object_end(struct json_out *w)
{
    close_container(w, '}');
}

void json_out_array_begin(struct json_out *w)
{
    open_container(w, '[');
}

void json_out_array_end(struct json_out *w)
{
    close_container(w, ']');
}

/* ---- strings ---- */

/* The escape of one byte below 0x20, '"' or '\\' (as jansson writes it). */
static void put_escape(struct json_out *w, unsigned char c)
{
    static const char hex[] = "0123456789ABCDEF";
    char seq[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF]};
    const char *two = NULL;

    switch (c) {
    case '"': two = "\\\""; break;
    case '\\': two = "\\\\"; break;
    case '\b': two = "\\b"; break;
    case '\f': two = "\\f"; break;
    case '\n': two = "\\n"; break;
    case '\r': two = "\\r"; break;
    case '\t': two = "\\t"; break;
    default: break;
    }
    if (two)
        append(w, two, 2);
    else
        append(w, seq, sizeof seq);
}

/* Bytes that go into a string as they are (0x20..0x7F but '"' and '\\'). */
static bool is_plain_byte(unsigned char c)
{
    return (unsigned char) (c - 0x20) < 0x60 && c != '"' && c != '\\';
}

/*
 * The escaping tail of json_out_raw_string: the string's bytes from p on, where one
 * needs a look (an escape, or UTF-8 to validate), and the closing quote.
 * Plain text is skipped eight bytes at a time and copied in runs; the last
 * few bytes of a string of eight or more are checked as the word that ends
 * the string (its first bytes, already passed, are checked again), so only
 * short strings and the bytes around a special one go byte by byte.
 */
__attribute__((noinline)) static void string_escaped_tail(struct json_out *w,
                                                          const unsigned char *p,
                                                          const unsigned char *end, size_t len)
{
    const unsigned char *run = p;

    while (p < end) {
        unsigned char c;
        size_t n;

        if (end - p >= 8) {
            if (json_out_plain_word(json_out_load_word(p))) {
                p += 8;
                continue;
            }
        } else if (len >= 8 && json_out_plain_word(json_out_load_word(end - 8))) {
            p = end;
            break;
        }
        c = *p;
        if (is_plain_byte(c)) {
            p++;
            continue;
        }
        if (c >= 0x80 && (n = text_utf8_decode((const char *) p, (size_t) (end - p), NULL)) != 0) {
            p += n; /* valid UTF-8 stays in the raw run */
            continue;
        }
        append(w, run, (size_t) (p - run));
        if (c >= 0x80)
            append(w, "\\uFFFD", 6);
        else
            put_escape(w, c);
        run = ++p;
    }
    append(w, run, (size_t) (p - run));
    append_char(w, '"');
}

/*
 * A quoted, escaped string; see the file comment. Almost every string an
 * answer holds (names, keys, text) is plain ASCII: json_out_plain_copy
 * checks and copies it in one pass into room reserved once. When it finds
 * a byte that needs a look, string_escaped_tail writes the string from its
 * start (the bytes already copied are overwritten).
 */
void json_out_raw_string(struct json_out *w, const char *s, size_t len)
{
    char *o = json_out_room(w, len + 2 + 16);
    char *end;

    *o = '"';
    end = json_out_plain_copy(o + 1, s, len);
    if (end) {
        *end++ = '"';
        w->len = (size_t) (end - w->data);
        return;
    }
    w->len = (size_t) (o + 1 - w->data);
    string_escaped_tail(w, (const unsigned char *) s, (const unsigned char *) s + len, len);
}

/* Writes "key": (escaped like any string); the member's value comes next. */
void json_out_keyn(struct json_out *w, const char *key, size_t len)
{
    separate(w);
    json_out_raw_string(w, key, len);
    append_char(w, ':');
    w->need_comma = false;
}

/* json_out_keyn for a NUL-terminated name. */
void json_out_key(struct json_out *w, const char *key)
{
    json_out_keyn(w, key, strlen(key));
}

/* Writes len bytes (NUL allowed) as a JSON string value; see json_out_raw_string. */
void json_out_stringn(struct json_out *w, const char *s, size_t len)
{
    separate(w);
    json_out_raw_string(w, s, len);
    w->need_comma = true;
}

/* json_out_stringn for a NUL-terminated string. */
void json_out_string(struct json_out *w, const char *s)
{
    json_out_stringn(w, s, strlen(s));
}

/* Writes the standard padded base64 (RFC 4648) of len bytes as a string
 * value: how B and BS values travel. Nothing in base64 needs an escape. */
void json_out_base64(struct json_out *w, const void *data, size_t len)
{
    separate(w);
    json_out_raw_base64(w, data, len);
    w->need_comma = true;
}

/* ---- values laid out by their writer ---- */

/* The ',' before a value written raw, when it follows a sibling. */
void json_out_raw_begin(struct json_out *w)
{
    separate(w);
}

/* The raw value is complete: the next key or value follows a sibling. */
void json_out_raw_end(struct json_out *w)
{
    w->need_comma = true;
}

/* json_out_base64 without the separator. */
void json_out_raw_base64(struct json_out *w, const void *data, size_t len)
{
    size_t encoded = text_base64_encoded_length(len);
    char *o = json_out_room(w, encoded + 3); /* the quotes and text_base64_encode's NUL */

    o[0] = '"';
    text_base64_encode(data, len, o + 1);
    o[encoded + 1] = '"';
    w->len += encoded + 2;
}

/* ---- other values ---- */

/* Writes a scalar's text (already formatted) as the next value. */
static void put_scalar(struct json_out *w, const char *text, size_t len)
{
    separate(w);
    append(w, text, len);
    w->need_comma = true;
}

/* Writes v as a JSON integer, as jansson prints json_integer ("%lld"). */
void json_out_integer(struct json_out *w, long long v)
{
    char buf[TEXT_U64_MAX + 1];
    size_t n = 0;

    if (v < 0) buf[n++] = '-';
    /* -v as unsigned: well defined for LLONG_MIN too. */
    n += text_u64(v < 0 ? 0 - (unsigned long long) v : (unsigned long long) v, buf + n);
    put_scalar(w, buf, n);
}

/* Writes a finite v as jansson's jsonp_dtostr prints it (see json_out.h),
 * without its locale dance: ddbemu never calls setlocale, so "%g" writes '.'. */
void json_out_real(struct json_out *w, double v)
{
    char buf[40];
    int n;
    char *e;

    assert(isfinite(v));
    n = snprintf(buf, sizeof buf, "%.17g", v);
    assert(n > 0 && (size_t) n < sizeof buf - 2);
    if (!strchr(buf, '.') && !strchr(buf, 'e')) {
        buf[n++] = '.';
        buf[n++] = '0';
        buf[n] = '\0';
    }
    e = strchr(buf, 'e');
    if (e) {
        char *start = e + 1, *digits = e + 2;
        if (*start == '-') start++;
        while (*digits == '0')
            digits++;
        if (digits != start) {
            memmove(start, digits, (size_t) (buf + n + 1 - digits));
            n -= (int) (digits - start);
        }
    }
    put_scalar(w, buf, (size_t) n);
}

/* Writes true or false. */
void json_out_bool(struct json_out *w, bool v)
{
    if (v)
        put_scalar(w, "true", 4);
    else
        put_scalar(w, "false", 5);
}

/* Writes null. */
void json_out_null(struct json_out *w)
{
    put_scalar(w, "null", 4);
}

static int dump_callback(const char *bytes, size_t size, void *data)
{
    append(data, bytes, size);
    return 0;
}

/* Writes a borrowed jansson value as json_dumps(JSON_COMPACT) prints it. */
void json_out_json(struct json_out *w, const json_t *value)
{
    separate(w);
    /* Fails only on invalid UTF-8, which a parsed request cannot hold. */
    if (json_dump_callback(value, dump_callback, w, JSON_COMPACT | JSON_ENCODE_ANY) != 0) abort();
    w->need_comma = true;
}
