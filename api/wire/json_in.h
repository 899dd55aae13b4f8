/*
 * json_in.h - reading a JSON text into jansson values, NUL characters included.
 *
 * DynamoDB attribute names and string values are any UTF-8, U+0000 included
 * (JSON "\u0000"). jansson's decoder accepts NUL inside string values with
 * JSON_ALLOW_NUL, but refuses it inside object keys whatever the flags, while
 * its objects themselves hold such keys (json_object_setn). json_in_load()
 * therefore lets jansson read the text, and reads it again itself only when
 * jansson's one objection was a NUL in a key.
 */
#ifndef DDB_JSON_IN_H
#define DDB_JSON_IN_H

#include <jansson.h>
#include <stddef.h>

/* The JSON value in text[0..len) (any JSON type), or NULL when the text is not
 * valid JSON. Strings and object keys may contain NUL: read them with
 * json_string_length() and json_object_keylen_foreach(). The caller owns the
 * returned reference. */
json_t *json_in_load(const char *text, size_t len);

#endif
