/*
 * body.c - request-body member access shared by the handlers; see body.h.
 */
#include "api/wire/body.h"

#include <stdint.h>
#include <string.h>

json_t *body_member(const json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_null(v) ? NULL : v;
}

bool body_member_is(const json_t *obj, const char *key, const char *want)
{
    const char *s = json_string_value(body_member(obj, key));
    return s && strcmp(s, want) == 0;
}

int body_member_choice(const json_t *obj, const char *key, const char *const *choices)
{
    const char *s = json_string_value(body_member(obj, key));

    for (int i = 0; s && choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) return i;
    }
    return -1;
}

const char *body_member_str(const json_t *obj, const char *key)
{
    return json_string_value(body_member(obj, key));
}

json_int_t body_number_int(const json_t *v)
{
    double d;

    if (json_is_integer(v)) return json_integer_value(v);
    d = json_number_value(v);
    /* 0x1p63 is the first double past INT64_MAX; -0x1p63 is INT64_MIN exactly. */
    if (d >= 0x1p63) return INT64_MAX;
    if (d < -0x1p63) return INT64_MIN;
    return (json_int_t) d;
}

json_int_t body_member_int(const json_t *obj, const char *key)
{
    return body_number_int(body_member(obj, key));
}

int64_t body_seconds_ms(double seconds)
{
    double ms = seconds * 1000.0;

    if (ms >= 0x1p63) return INT64_MAX;
    if (ms <= -0x1p63) return INT64_MIN;
    /* Rounded: 1795512606.043 s is 1795512606042.9998 ms in binary. */
    return (int64_t) (ms + (ms >= 0 ? 0.5 : -0.5));
}

int64_t body_member_epoch_ms(const json_t *obj, const char *key)
{
    return body_seconds_ms(json_number_value(body_member(obj, key)));
}

enum return_capacity body_return_capacity(const json_t *body)
{
    static const char *const choices[] = {"TOTAL", "INDEXES", NULL};

    switch (body_member_choice(body, "ReturnConsumedCapacity", choices)) {
    case 0: return RETURN_CAPACITY_TOTAL;
    case 1: return RETURN_CAPACITY_INDEXES;
    default: return RETURN_CAPACITY_NONE;
    }
}
