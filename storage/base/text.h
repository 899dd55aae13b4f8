/*
 * text.h - the small text tools every layer needs, each written once:
 * string lengths as Java measures them, UTF-8 decoding and encoding, base64
 * as DynamoDB reads and writes it, and a growable string buffer.
 *
 * DynamoDB is a Java service: the lengths in its limits and messages are
 * String.length(), UTF-16 code units, not bytes or characters; its blobs
 * travel as standard padded base64 (RFC 4648), read strictly. Its strings are
 * UTF-8 by the rules jansson's parser also applies, so text that came in
 * through a JSON request always decodes.
 *
 * Ownership: text_buf owns its data until text_buf_take hands it over;
 * text_base64_encode_new and text_base64_decode return buffers the caller
 * frees. No function here keeps state; all are reentrant.
 */
#ifndef DDB_TEXT_H
#define DDB_TEXT_H

#include "storage/base/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- lengths ---- */

/* The length of UTF-8 text s[0..len) as Java's String.length() counts it:
 * UTF-16 code units (a 4-byte UTF-8 sequence is a surrogate pair, 2 units).
 * It counts lead bytes without decoding, so a surrogate some import wrote as
 * three bytes still counts as the one unit it is in Java. */
size_t text_utf16_length(const char *s, size_t len);

/* ---- UTF-8 (RFC 3629), the one decoder and the one encoder ---- */

/* The most bytes one code point takes. */
#define TEXT_UTF8_MAX_BYTES 4

/* Decodes the code point at s[0..avail): returns the length of its sequence
 * (1..4) and stores the code point in *cp when cp is not NULL; returns 0 when
 * s does not start with a well-formed sequence: a stray continuation byte, a
 * lead byte C0, C1 or F5..FF, an overlong form, a UTF-16 surrogate
 * (U+D800..U+DFFF), a code point above U+10FFFF, or a sequence that avail
 * cuts short (avail 0 included). */
size_t text_utf8_decode(const char *s, size_t avail, uint32_t *cp);
/* Whether s[0..len) is well-formed UTF-8 throughout (text_utf8_decode's rules). */
bool text_utf8_is_valid(const char *s, size_t len);
/* Whether every byte of s[0..len) goes into a JSON string as it is: 0x20..0x7F
 * but '"' and '\\' - the bytes the answers' writers copy without a look
 * (api/wire/json_out.h); anything else is escaped or checked as UTF-8 there. */
bool text_json_plain(const char *s, size_t len);
/* Writes the UTF-8 of cp (at most U+10FFFF, asserted) into out and returns
 * its length, 1..4. A surrogate is written as the three bytes of its value,
 * which text_utf8_decode refuses: callers that must not make one refuse it
 * first. */
size_t text_utf8_encode(uint32_t cp, char out[TEXT_UTF8_MAX_BYTES]);

/* ---- decimal ---- */

/* The longest text_u64 writes: 20 digits and a NUL. */
#define TEXT_U64_MAX 21
/* Writes v in decimal ("%llu"), NUL-terminated, into out; returns its
 * length. Answers write a few numbers each (counts, the CRC header), and
 * snprintf cost ~700 instructions a number there. */
size_t text_u64(uint64_t v, char out[TEXT_U64_MAX]);

/* ---- base64 (RFC 4648, standard alphabet, padded) ---- */

/* The length of the base64 text of len bytes (without a NUL). */
size_t text_base64_encoded_length(size_t len);
/* Writes the base64 of data[0..len) into out, which holds at least
 * text_base64_encoded_length(len) + 1 bytes, NUL-terminated. */
void text_base64_encode(const void *data, size_t len, char *out);
/* The same into a new NUL-terminated string, owned by the caller. */
char *text_base64_encode_new(const void *data, size_t len);
/* Whether s[0..len) is base64 as DynamoDB reads a blob: a length that is a
 * multiple of 4 (in UTF-16 units, as Java counts it), the standard alphabet,
 * '=' only as one or two trailing pads, and no stray bits in the last digit
 * before the pads. */
bool text_base64_valid(const char *s, size_t len);
/* The same check, raising SerializationException with AWS's texts ("Base64
 * encoded length is expected a multiple of 4 bytes but found: 5", "Invalid
 * last non-pad Base64 character dectected", misspelling included). */
int text_base64_check(const char *s, size_t len, struct ddb_error *err);
/* The number of bytes valid base64 s[0..len) decodes to. */
size_t text_base64_decoded_length(const char *s, size_t len);
/* Decodes valid base64 (checked first) into a new buffer of *out_len bytes
 * plus a NUL, owned by the caller. */
char *text_base64_decode(const char *s, size_t len, size_t *out_len);

/* ---- a growable string buffer ---- */

struct text_buf {
    char *data; /* owned; NUL-terminated once anything was added, NULL before */
    size_t len;
    size_t cap;
};

/* An empty buffer; text_buf b = {0} is the same. */
void text_buf_init(struct text_buf *b);
/* Frees the data; b is empty again. */
void text_buf_clear(struct text_buf *b);
/* Makes room for extra more bytes (and the NUL). */
void text_buf_reserve(struct text_buf *b, size_t extra);
void text_buf_add(struct text_buf *b, const char *s, size_t len);
void text_buf_puts(struct text_buf *b, const char *s);
void text_buf_printf(struct text_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the data over (never NULL: "" when empty; the caller frees it) and
 * leaves b empty. *len (when not NULL) receives its length. */
char *text_buf_take(struct text_buf *b, size_t *len);

#endif
