/*
 * ion.h - DynamoDB items in Amazon Ion text, as table exports write them and
 * ImportTable reads them.
 *
 * The mapping is the developer guide's (S3DataExport.Output, "DynamoDB to
 * Ion datatype conversion"): S -> string, N -> decimal, B -> blob, BOOL ->
 * bool, NULL -> null, L -> list, M -> struct, and the sets -> lists
 * annotated $dynamodb_SS, $dynamodb_NS, $dynamodb_BS. An export writes one
 * line per item: "$ion_1_0 {Item:{...}}". Numbers are written as AWS writes
 * them: "103." for an integer, "6d2" for 600, "1.5" for a fraction.
 *
 * The reader takes the Ion text that such lines use, plus what a hand-written
 * line may: ints, decimals, floats (as exact decimal text), quoted and
 * triple-quoted strings with escapes, symbols for field names, comments and
 * annotations. An item is one line, as in an export (JSON lines style);
 * anything else is refused with a message.
 */
#ifndef DDB_API_ION_H
#define DDB_API_ION_H

#include "storage/base/text.h"
#include "storage/model/value.h"

#include <stddef.h>
#include <stdint.h>

/* Appends "$ion_1_0 {Item:{...}}\n" for an item (a VALUE_M). */
void ion_write_item_line(struct text_buf *b, const struct value *item);

/* Appends an incremental export's line for a change:
 * "$ion_1_0 {Metadata:{WriteTimestampMicros:<n>.},Keys:{...},NewImage:{...},
 * OldImage:{...}}\n", NewImage and OldImage left out when NULL (the DynamoDB
 * JSON line's members, in Ion). */
void ion_write_change_line(struct text_buf *b, int64_t micros, const struct value *keys,
                           const struct value *new_image, const struct value *old_image);

/*
 * Reads one line of an Ion export: an optional $ion_1_0 marker, then a
 * struct {Item: {...}}. *out receives the item (a VALUE_M, owned). Returns 0,
 * or -1 with *why (owned) set; a blank line is -1 with *why NULL.
 */
int ion_read_item_line(const char *line, size_t len, struct value *out, char **why);

/*
 * Reads one line holding a single Ion struct (after an optional $ion_1_0
 * marker) into *out, a VALUE_M of its fields (owned): a bulk put items line
 * {Item: {...}, ConditionExpression: "...", ...}. Returns 0, or -1 with *why
 * (owned) set; a blank line is -1 with *why NULL.
 */
int ion_read_line(const char *line, size_t len, struct value *out, char **why);

#endif
