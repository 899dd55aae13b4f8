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
/* The quoted base64 of len bytes (as json_out_base64 writes it), no ','. */
void json_out_raw_base64(struct json_out *w, const void *data, size_t len);

#endif
