/*
 * wire_value.h - AttributeValue JSON <-> struct value.
 *
 * The only code that knows the {"S": ...} wire form. AWS deserializes a whole
 * request before it validates anything, so a SerializationException anywhere
 * in the body wins over any ValidationException: the JSON types inside
 * attribute values (F_ATTRIBUTE_VALUE / F_ATTRIBUTE_MAP fields, strict
 * base64 included) are checked by shape_check() before a handler runs. The
 * decoders here are the second pass: validation (ValidationException) and
 * decoding into owned struct values - exactly one type per AttributeValue,
 * canonical numbers, decoded binaries, non-empty sets without duplicates,
 * NULL true, nesting depth. They still refuse wrong JSON types, with the same
 * texts, so they are safe on input nobody checked.
 *
 * Encoding writes straight into a json_out buffer (no json_t tree: answers
 * carrying items are most of the emulator's work) and never fails: sets come
 * out in stored order, binaries as base64, numbers in canonical text.
 *
 * Ownership: decoders fill a caller-owned struct value (value_clear it); on
 * -1 *out is left NULL-typed with nothing to free. JSON arguments and encoded
 * values are borrowed.
 */
#ifndef DDB_API_WIRE_VALUE_H
#define DDB_API_WIRE_VALUE_H

#include "api/wire/json_out.h"
#include "storage/base/error.h"
#include "storage/model/value.h"

#include <jansson.h>

/* ---- pass 2: validate and decode (ValidationException) ---- */

/* Decodes one AttributeValue standing at the top level of an item (level 1 of
 * DynamoDB's 32 nesting levels). */
int wire_value_from_json(const json_t *av, struct value *out, struct ddb_error *err);
/* Decodes {"name": AttributeValue, ...} into a VALUE_M, names in JSON order.
 * JSON null means an empty map (the caller decides whether absence matters). */
int wire_value_map_from_json(const json_t *map, struct value *out, struct ddb_error *err);
/* The same for a whole item (PutItem's, a PutRequest's, a transaction's Put):
 * its attributes are decoded, then an empty attribute name is refused. */
int wire_item_from_json(const json_t *map, struct value *out, struct ddb_error *err);

/* ---- encoding ---- */

/* Writes {"S": "..."} etc. for any value as w's next value. */
void wire_value_write(struct json_out *w, const struct value *v);
/* Writes {"name": AttributeValue, ...} for a VALUE_M (an item, a key). */
void wire_value_write_map(struct json_out *w, const struct value *m);

#endif
