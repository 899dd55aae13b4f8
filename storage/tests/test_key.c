/*
 * test_key.c - key parts as bytes (key.h): memcmp order equals DynamoDB's
 * order of the values, and the partition hash is the one values had.
 */
#include "storage/model/key.h"
#include "storage/tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY
#include <xxhash.h>

static unsigned seed = 26;

static unsigned pick(unsigned n)
{
    return (unsigned) rand_r(&seed) % n;
}

/* A random canonical number: up to 38 digits, exponents across the range,
 * either sign, and numbers close to each other (shared digit prefixes). */
static void random_number(struct value *out)
{
    char text[200], canon[NUMBER_TEXT_MAX];
    struct number n;
    struct ddb_error err = {0};
    size_t len = 0, digits = 1 + pick(pick(2) ? 38 : 4);

    if (pick(2)) text[len++] = '-';
    for (size_t i = 0; i < digits; i++)
        text[len++] = (char) ('0' + (i == 0 && pick(8) ? 1 + pick(2) : pick(3) ? pick(10) : 9));
    len += (size_t) snprintf(text + len, sizeof text - len, "e%d", (int) pick(200) - 100);
    if (number_parse(text, len, &n, &err) != 0) { /* out of range: zero instead */
        ddb_error_clear(&err);
        value_init_number_text(out, "0", 1);
        return;
    }
    len = number_format(&n, canon, sizeof canon);
    value_init_number_text(out, canon, len);
}

/* Random bytes drawn from a small alphabet, so prefixes and ties are common;
 * for S, valid UTF-8 with multi-byte and supplementary characters. */
static void random_bytes(enum value_type type, struct value *out)
{
    static const char *const pieces[] = {
        "a", "b", "\xc3\xa9", "\xe2\x82\xac", "\xef\xbf\xbd", "\xf0\x9f\x98\x80", "z", "\x7f"};
    char buf[64];
    size_t len = 0, count = pick(6);

    for (size_t i = 0; i < count; i++) {
        if (type == VALUE_B) {
            static const unsigned char bytes[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
            buf[len++] = (char) bytes[pick(sizeof bytes)];
        } else {
            const char *p = pieces[pick(sizeof pieces / sizeof pieces[0])];
            memcpy(buf + len, p, strlen(p));
            len += strlen(p);
        }
    }
    if (type == VALUE_B)
        value_init_binary(out, buf, len);
    else
        value_init_string(out, buf, len);
}

static void random_value(enum value_type type, struct value *out)
{
    if (type == VALUE_N)
        random_number(out);
    else
        random_bytes(type, out);
}

static int sign(int c)
{
    return (c > 0) - (c < 0);
}

static void test_byte_order_is_the_order_of_the_values(void)
{
    static const enum value_type types[] = {VALUE_S, VALUE_N, VALUE_B};
    for (size_t t = 0; t < 3; t++) {
        for (int i = 0; i < 20000; i++) {
            struct value a, b;
            uint8_t na[NUMBER_COMPARABLE_MAX], nb[NUMBER_COMPARABLE_MAX];
            struct key_part pa, pb;
            random_value(types[t], &a);
            if (pick(8) == 0)
                value_copy(&b, &a);
            else
                random_value(types[t], &b);
            key_part_of(&a, na, &pa);
            key_part_of(&b, nb, &pb);
            CHECK_INT_EQ(sign(key_part_compare(&pa, &pb)), sign(value_compare_scalar(&a, &b)));
            CHECK(key_part_equal(&pa, &pb) == (value_compare_scalar(&a, &b) == 0));
            value_clear(&a);
            value_clear(&b);
        }
    }
}

/* The hash key.c computed from values before key parts were bytes. */
static uint64_t hash_of_values(const struct value *const *parts, size_t count)
{
    XXH64_state_t state;
    XXH64_reset(&state, 0);
    for (size_t i = 0; i < count; i++) {
        unsigned char header[9];
        uint64_t len = parts[i]->u.str.len;
        header[0] = (unsigned char) parts[i]->type;
        for (int b = 0; b < 8; b++)
            header[1 + b] = (unsigned char) (len >> (8 * b));
        XXH64_update(&state, header, sizeof header);
        XXH64_update(&state, parts[i]->u.str.data, parts[i]->u.str.len);
    }
    return XXH64_digest(&state);
}

static void test_the_partition_hash_is_unchanged(void)
{
    for (int i = 0; i < 5000; i++) {
        struct value v[4];
        const struct value *pv[4];
        struct key_numbers nums;
        struct key_part parts[4];
        size_t count = 1 + pick(4);
        for (size_t k = 0; k < count; k++) {
            random_value((enum value_type) pick(3), &v[k]);
            pv[k] = &v[k];
            key_part_of(&v[k], nums.n[k], &parts[k]);
        }
        CHECK(key_hash(parts, count) == hash_of_values(pv, count));
        for (size_t k = 0; k < count; k++)
            value_clear(&v[k]);
    }
}

/* A part's value view gives back the value: bytes, or the number's canonical text. */
static void test_a_part_reads_back_as_its_value(void)
{
    for (int i = 0; i < 3000; i++) {
        struct value v, back;
        uint8_t num[NUMBER_COMPARABLE_MAX];
        char text[NUMBER_TEXT_MAX];
        struct key_part p;
        random_value((enum value_type) pick(3), &v);
        key_part_of(&v, num, &p);
        key_part_value(&p, text, &back);
        CHECK(value_equal(&v, &back));
        CHECK_INT_EQ(back.u.str.len, v.u.str.len);
        value_clear(&v);
    }
}

int main(void)
{
    RUN(test_byte_order_is_the_order_of_the_values);
    RUN(test_the_partition_hash_is_unchanged);
    RUN(test_a_part_reads_back_as_its_value);
    return check_report();
}
