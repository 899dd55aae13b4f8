/*
 * wire_encoded.h - DynamoDB JSON written straight from an item's encoding.
 *
 * The answer writers' reader of the compact stored form (storage/model/
 * item_encoding.h, issue 26): strings and binaries are copied (binaries as
 * base64) from the encoding into the JSON buffer, numbers turned from their
 * comparable bytes into canonical text, containers walked in place; no
 * struct value is built. The bytes are those wire_value_write_map writes for
 * the decoded item (fuzz_item_codec checks it on arbitrary items).
 *
 * A projection of top-level attributes is a skip: names not kept are passed
 * over without reading their values, and the walk stops once every kept
 * name is found. The kept attributes are written in the order the caller
 * lists them (today's projected answers, from expr_project, list them
 * sorted by name: bench/item_encoding checks the bytes are the same).
 */
#ifndef DDB_API_WIRE_ENCODED_H
#define DDB_API_WIRE_ENCODED_H

#include "api/wire/json_out.h"
#include "storage/expr/expr.h"
#include "storage/model/item.h"
#include "storage/model/item_encoding.h"

#include <stdbool.h>
#include <stddef.h>

/* Which top-level attributes to write, and in which order: names[0..count),
 * distinct (an item's attribute of each name, when it has one). */
struct wire_top_names {
    const char *const *names; /* borrowed */
    const size_t *lens;
    size_t count;
};

/* Writes {"name": AttributeValue, ...} for the item encoded in data[0..len)
 * (dict: the name dictionary it was encoded with, or NULL): every attribute
 * in stored order, or with keep only keep's names, in keep's order. Returns
 * false, with w holding a partial object, only for bytes that are not an
 * encoding item_encode wrote (never for a stored item); with keep, the
 * attributes after the last kept one are not read, so damage there goes
 * unseen. */
bool wire_encoded_write_item(struct json_out *w, const void *data, size_t len,
                             const struct name_dict *dict, const struct wire_top_names *keep);

/* A stored item's attributes as {"name": AttributeValue, ...}, straight from
 * its encoding: how every answer writes a whole item (GetItem, Query, Scan,
 * BatchGetItem, GetRecords, PartiQL, exports) without decoding it. */
void wire_write_stored_item(struct json_out *w, const struct item *item);

/* A stored item's attributes under a projection (NULL: all of them), the
 * bytes expr_project's tree writes: straight from the encoding when the
 * projection names only top-level attributes (expr_projection_top_names:
 * the kept names in expr_project's order), else through that tree. The
 * answer of GetItem and TransactGetItems. */
void wire_write_projected_item(struct json_out *w, const struct item *item,
                               const struct expr *projection);

#endif
