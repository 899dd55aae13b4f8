/*
 * codec.h - a compact binary encoding of the engine's data, for the files
 * persistence writes (persist/) and reads back.
 *
 * Primitives are varints (LEB128), zigzag varints for signed numbers, and
 * length-prefixed byte strings. Values are a type byte followed by their
 * contents; a map keeps its names in order. Records that will grow with the
 * emulator (table definitions, table state, stream metadata) are written as
 * fields - a tag varint, then a length-prefixed payload - so that a reader
 * skips the fields it does not know and defaults the ones that are missing:
 * adding a field never needs a new file format.
 *
 * Writing never fails (the buffer grows, see base/text.h). Reading sets
 * in->bad on the first malformed byte and returns zeros from then on; the
 * caller checks codec_ok() once at the end, so a corrupt file is reported,
 * never trusted, and never read past its end.
 */
#ifndef DDB_CODEC_H
#define DDB_CODEC_H

#include "storage/base/text.h"
#include "storage/model/schema.h"
#include "storage/model/value.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- writing ---- */

void codec_put_u8(struct text_buf *b, uint8_t v);
void codec_put_uvar(struct text_buf *b, uint64_t v);
void codec_put_ivar(struct text_buf *b, int64_t v);
void codec_put_bool(struct text_buf *b, bool v);
void codec_put_bytes(struct text_buf *b, const void *data, size_t len);
/* A string that may be NULL (which reads back as NULL). */
void codec_put_str(struct text_buf *b, const char *s);
/* A string that may contain NUL, in codec_put_str's format (so either reader reads it). */
void codec_put_strn(struct text_buf *b, const char *s, size_t len);
void codec_put_value(struct text_buf *b, const struct value *v);

/* A field of a record: tag, then the payload written between begin and end. */
size_t codec_field_begin(struct text_buf *b, uint64_t tag);
void codec_field_end(struct text_buf *b, size_t mark);
/* A field whose payload is one primitive: codec_field_begin, the put, and
 * codec_field_end in one call (most fields of a record are one member). */
void codec_put_u8_field(struct text_buf *b, uint64_t tag, uint8_t v);
void codec_put_uvar_field(struct text_buf *b, uint64_t tag, uint64_t v);
void codec_put_ivar_field(struct text_buf *b, uint64_t tag, int64_t v);
void codec_put_bool_field(struct text_buf *b, uint64_t tag, bool v);
void codec_put_str_field(struct text_buf *b, uint64_t tag, const char *s);

/* ---- reading ---- */

struct codec_in {
    const unsigned char *p;
    const unsigned char *end;
    bool bad; /* a malformed or truncated input was seen */
};

void codec_in_init(struct codec_in *in, const void *data, size_t len);
bool codec_ok(const struct codec_in *in);
bool codec_at_end(const struct codec_in *in);
uint8_t codec_get_u8(struct codec_in *in);
uint64_t codec_get_uvar(struct codec_in *in);
int64_t codec_get_ivar(struct codec_in *in);
bool codec_get_bool(struct codec_in *in);
/* Borrowed bytes inside the input; NULL (and bad) when truncated. */
const void *codec_get_bytes(struct codec_in *in, size_t *len);
/* An owned copy of a string written by codec_put_str (NULL stays NULL). */
char *codec_get_str(struct codec_in *in);
/* The same, with its length (the string may contain NUL); *len is 0 for NULL. */
char *codec_get_strn(struct codec_in *in, size_t *len);
/* Reads a value into *out (owned by the caller); false (and bad) when malformed. */
bool codec_get_value(struct codec_in *in, struct value *out);
/* Field tags are below this (every record's tags are small enums). */
#define CODEC_MAX_TAG 64
/* The next field: its tag, and a reader over its payload. False at the end,
 * and false (and bad) for a tag of CODEC_MAX_TAG or more: damage. */
bool codec_next_field(struct codec_in *in, uint64_t *tag, struct codec_in *field);

/* ---- definitions ---- */

void codec_put_key_schema(struct text_buf *b, const struct key_schema *k);
void codec_get_key_schema(struct codec_in *in, struct key_schema *out);
/* A table definition as fields (see the file comment); *out is owned by the caller. */
void codec_put_table_def(struct text_buf *b, const struct table_def *def);
/* The vector indexes of a definition, the payload of its TD_VECTORS field
 * (codec.c); the reader leaves them in out and sets in->bad on damage. */
void codec_put_vector_defs(struct text_buf *b, const struct table_def *def);
void codec_get_vector_defs(struct codec_in *in, struct table_def *out);
bool codec_get_table_def(struct codec_in *in, struct table_def *out);

#endif
