/*
 * body.h - reading members of a request body that shape.c has already checked.
 *
 * Every handler reads its JSON body the same way: JSON null counts as absent
 * (as for DynamoDB), and the types are known to be right because
 * shape_check() ran first. These helpers are that one way.
 */
#ifndef DDB_API_BODY_H
#define DDB_API_BODY_H

#include "storage/engine/db.h"

#include <jansson.h>
#include <stdbool.h>

/* The member named key (borrowed), or NULL when it is absent or JSON null. */
json_t *body_member(const json_t *obj, const char *key);
/* True when the member is the string want. */
bool body_member_is(const json_t *obj, const char *key, const char *want);
/* Which of choices (NULL-terminated) the member's string is: its index, or -1
 * when it is none of them or absent. One lookup, however many choices. */
int body_member_choice(const json_t *obj, const char *key, const char *const *choices);
/* The member's string (borrowed), or NULL when absent, null or not a string. */
const char *body_member_str(const json_t *obj, const char *key);
/* A JSON number as an integer: an integer as it is, a real truncated toward
 * zero, a real past json_int_t's range (5.1e127) its nearest bound; 0 when v
 * is not a number. The shapes bound few integers from above, and converting
 * such a real is undefined behaviour. */
json_int_t body_number_int(const json_t *v);
/* The member's body_number_int, 0 when absent. */
json_int_t body_member_int(const json_t *obj, const char *key);
/* Epoch seconds (maybe with a fraction, as DynamoDB's JSON carries times) in
 * milliseconds, rounded to the nearest; past int64_t's range, its bound. */
int64_t body_seconds_ms(double seconds);
/* A timestamp member's body_seconds_ms; 0 when absent. */
int64_t body_member_epoch_ms(const json_t *obj, const char *key);
/* ReturnConsumedCapacity: NONE when absent. */
enum return_capacity body_return_capacity(const json_t *body);

#endif
