/*
 * json_out.h - a small JSON writer into one growable buffer.
 *
 * Answers are written straight from C data, token by token, into one buffer
 * that becomes the HTTP body as is: no json_t tree to build, walk and free,
 * no per-token callback, no final copy (bench/README.md measured jansson's
 * tree + json_dumps at 86% of a Query's instructions). The output is compact
 * and byte-identical to what json_dumps(JSON_COMPACT) printed for the same
 * values, so switching an encoder to the writer changes no answer (and no
 * x-amz-crc32):
 *   - strings: '"' and '\\' escaped, control characters below 0x20 as
 *     \b \f \n \r \t or \u00XX (uppercase hex), everything else - '/', DEL,
 *     non-ASCII UTF-8 - written raw, as AWS and jansson (without
 *     JSON_ENSURE_ASCII) do; raw UTF-8 is also the smallest output. Bytes
 *     that are not valid UTF-8 (never produced by the api, whose strings all
 *     passed the JSON parser) come out as \uFFFD, so the output is always
 *     valid JSON where json_dumps would have failed;
 *   - integers as "%lld"; reals as jansson prints them: "%.17g", with ".0"
 *     added when that has neither '.' nor 'e', and the exponent's '+' and
 *     leading zeros dropped (1.0, 0.5, 1e21, 1.0000000000000001e-5).
 *
 * Commas are placed by the writer: one flag says whether the next value or
 * key follows a sibling. Keys and values must alternate inside objects and
 * containers must balance; that is the caller's logic, asserted in debug
 * builds, never request-dependent.
 *
 * Ownership: struct json_out is caller-owned (json_out_init/json_out_clear;
 * a zeroed struct is a valid empty writer). json_out_take hands the buffer
 * over. Out of memory aborts (xmalloc), so no call fails.
 */
#ifndef DDB_API_JSON_OUT_H
#define DDB_API_JSON_OUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* json_out_plain_copy's plain-text test */
#endif

struct json_out {
    char *data;      /* owned; data[len] is '\0' whenever data is not NULL */
    size_t len;      /* bytes written */
    size_t cap;      /* bytes allocated */
    bool need_comma; /* the next key or value follows a sibling */
    int depth;       /* open containers, for the balance asserts */
};

/* ---- lifecycle ---- */

/* An empty writer (allocates nothing until the first write). */
void json_out_init(struct json_out *w);
/* Frees the buffer; leaves an empty writer. */
void json_out_clear(struct json_out *w);
/* Returns the NUL-terminated text (a malloc block, owned by the caller from now
 * on: free() or thread_cache_free()) and its length in *len; leaves an empty
 * writer. Containers must be closed. */
char *json_out_take(struct json_out *w, size_t *len);

/* ---- structure ---- */

void json_out_object_begin(struct json_out *w);
void json_out_object_end(struct json_out *w);
void json_out_array_begin(struct json_out *w);
void json_out_array_end(struct json_out *w);
/* An object member's name (len bytes, may hold NUL), escaped like a string. */
void json_out_keyn(struct json_out *w, const char *key, size_t len);
/* The same for a NUL-terminated name. */
void json_out_key(struct json_out *w, const char *key);

/* ---- values ---- */

void json_out_stringn(struct json_out *w, const char *s, size_t len);
void json_out_string(struct json_out *w, const char *s);
/* A string holding the standard padded base64 of len bytes (B and BS values). */
void json_out_base64(struct json_out *w, const void *data, size_t len);
void json_out_integer(struct json_out *w, long long v);
/* A JSON number from a finite double, printed as jansson prints json_real. */
void json_out_real(struct json_out *w, double v);
void json_out_bool(struct json_out *w, bool v);
void json_out_null(struct json_out *w);
/* Any jansson value (borrowed), dumped compactly in its own key order: for
 * answers that echo a piece of the request. */
void json_out_json(struct json_out *w, const json_t *value);

/* ---- values laid out by their writer ----
 *
 * A writer that knows a whole value's shape (wire_encoded.c: an item from
 * its encoding) writes its text itself instead of token by token: one call
 * per token costs more than the token. json_out_raw_begin places the ','
 * when the value follows a sibling; the writer then puts bytes at
 * json_out_room(w, n) (room for n, counted with w->len += k, k <= n),
 * strings through json_out_raw_string and base64 through json_out_raw_base64;
 * json_out_raw_end counts the value as written. The bytes between must be
 * one complete JSON value, compact as the token calls would write it. */
void json_out_raw_begin(struct json_out *w);
void json_out_raw_end(struct json_out *w);
/* Grows the buffer for n more bytes (and the final '\0'); where they go. */
char *json_out_grow(struct json_out *w, size_t n);
/* Where the next n bytes go, the buffer grown if they do not fit. */
static inline char *json_out_room(struct json_out *w, size_t n)
{
    if (w->cap - w->len > n) return w->data + w->len;
    return json_out_grow(w, n);
}
/* A string's quoted, escaped text (as json_out_stringn writes it), no ','. */
void json_out_raw_string(struct json_out *w, const char *s, size_t len);

/*
 * The plain-text copy under json_out_raw_string, for writers that lay out
 * a whole member at once (wire_encoded.c). A byte is plain when it goes
 * into a JSON string as it is: 0x20..0x7F but '"' and '\\'.
 */

/* True when none of the eight bytes in x needs a look (the "has a byte
 * less than n" and "has a zero byte" word tricks; they can report a byte
 * that is fine only when another one really needs a look, so the answer
 * is exact). */
static inline bool json_out_plain_word(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101ULL;
    uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    uint64_t flags = x | ((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
                     ((backslash - ones) & ~backslash);

    return (flags & (ones * 0x80)) == 0;
}

/* The eight bytes at p as one word (any alignment). */
static inline uint64_t json_out_load_word(const unsigned char *p)
{
    uint64_t word;

    memcpy(&word, p, sizeof word);
    return word;
}

/* With SSE2 (every x86-64) a signed compare flags bytes below 0x20 and from
 * 0x80 up at once, and the constants stay in vector registers across a
 * writer's loop; elsewhere the word tricks. */
#if defined(__SSE2__)
static inline int json_out_special_mask(__m128i v)
{
    __m128i control_or_high = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return _mm_movemask_epi8(_mm_or_si128(control_or_high, _mm_or_si128(quote, backslash)));
}

static inline bool json_out_plain8(uint64_t x)
{
    return (json_out_special_mask(_mm_cvtsi64_si128((long long) x)) & 0xFF) == 0;
}

static inline bool json_out_plain16(const unsigned char *p)
{
    return json_out_special_mask(_mm_loadu_si128((const __m128i *) (const void *) p)) == 0;
}
#else
static inline bool json_out_plain8(uint64_t x)
{
    return json_out_plain_word(x);
}

static inline bool json_out_plain16(const unsigned char *p)
{
    return json_out_plain_word(json_out_load_word(p)) &&
           json_out_plain_word(json_out_load_word(p + 8));
}
#endif

/*
 * Copies the len bytes at s to o and returns where they end; with look, only
 * when all are plain: NULL when one needs a look (an escape, or UTF-8 to
 * check), the bytes at o then undefined. o needs room for len + 16 bytes:
 * sixteen are copied at a time, the last sixteen as the block that ends the
 * string (overlapping bytes already copied with the same ones); a string
 * under sixteen as two overlapping words, two overlapping halves of one, or
 * its first, middle and last bytes, padded with spaces to a word. Inline
 * with look constant, the copy without it has no test left.
 */
static inline char *json_out_copy_text(char *o, const char *s, size_t len, bool look)
{
    const unsigned char *p = (const unsigned char *) s, *end = p + len;

    if (len >= 16) {
        for (; end - p >= 16; p += 16, o += 16) {
            if (look && !json_out_plain16(p)) return NULL;
            memcpy(o, p, 16);
        }
        if (p < end) {
            if (look && !json_out_plain16(end - 16)) return NULL;
            memcpy(o + (end - p) - 16, end - 16, 16);
            o += end - p;
        }
    } else if (len >= 8) {
        uint64_t head = json_out_load_word(p), tail = json_out_load_word(end - 8);
        if (look && (!json_out_plain8(head) || !json_out_plain8(tail))) return NULL;
        memcpy(o, &head, 8);
        memcpy(o + len - 8, &tail, 8);
        o += len;
    } else if (len >= 4) {
        uint32_t head, tail;
        memcpy(&head, p, 4);
        memcpy(&tail, end - 4, 4);
        if (look && !json_out_plain8(head | (uint64_t) tail << 32)) return NULL;
        memcpy(o, &head, 4);
        memcpy(o + len - 4, &tail, 4);
        o += len;
    } else if (len > 0) {
        unsigned char first = p[0], middle = p[len / 2], last = p[len - 1];
        if (look && !json_out_plain8(first | (uint64_t) middle << 8 | (uint64_t) last << 16 |
                                     0x2020202020000000ULL))
            return NULL;
        o[0] = (char) first;
        o[len / 2] = (char) middle;
        o[len - 1] = (char) last;
        o += len;
    }
    return o;
}

/* The copy with its look: the bytes of any string. */
static inline char *json_out_plain_copy(char *o, const char *s, size_t len)
{
    return json_out_copy_text(o, s, len, true);
}

/* The copy without a look, for bytes known plain (an interned name:
 * name_dict_entry's plain). */
static inline char *json_out_copy(char *o, const char *s, size_t len)
{
    return json_out_copy_text(o, s, len, false);
}
/* The quoted base64 of len bytes (as json_out_base64 writes it), no ','. */
void json_out_raw_base64(struct json_out *w, const void *data, size_t len);

#endif
