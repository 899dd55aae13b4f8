/*
 * test_text.c - Java lengths, UTF-8, base64 and the string buffer
 * (storage/base/text.c).
 */
#include "storage/base/text.h"
#include "storage/tests/check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_utf16_length_counts_a_four_byte_character_twice(void)
{
    CHECK_INT_EQ(text_utf16_length("abc", 3), 3);
    CHECK_INT_EQ(text_utf16_length("\xc3\xa9", 2), 1);         /* e-acute: one unit */
    CHECK_INT_EQ(text_utf16_length("\xe2\x82\xac", 3), 1);     /* euro sign: one unit */
    CHECK_INT_EQ(text_utf16_length("\xf0\x9f\x98\x80", 4), 2); /* emoji: a surrogate pair */
    CHECK_INT_EQ(text_utf16_length("a\0b", 3), 3);             /* NUL is a character */
    CHECK_INT_EQ(text_utf16_length("", 0), 0);
}

/* One row per input: its bytes, the length text_utf8_decode answers (0:
 * refused) and the code point of a well-formed sequence. */
static const struct utf8_case {
    const char *bytes;
    size_t len;
    size_t decoded_len;
    uint32_t cp;
} utf8_cases[] = {
#define ROW(b, n, cp)                                                                              \
    {                                                                                              \
        b, sizeof b - 1, n, cp                                                                     \
    }
    /* well formed, at each length's bounds */
    ROW("A", 1, 0x41),
    ROW("\0", 1, 0), /* NUL is a code point */
    ROW("\x7f", 1, 0x7F),
    ROW("\xc2\x80", 2, 0x80),
    ROW("\xc3\xa9", 2, 0xE9),
    ROW("\xdf\xbf", 2, 0x7FF),
    ROW("\xe0\xa0\x80", 3, 0x800),
    ROW("\xe2\x82\xac", 3, 0x20AC),
    ROW("\xed\x9f\xbf", 3, 0xD7FF), /* just below the surrogates */
    ROW("\xee\x80\x80", 3, 0xE000), /* just above them */
    ROW("\xef\xbf\xbf", 3, 0xFFFF),
    ROW("\xf0\x90\x80\x80", 4, 0x10000),
    ROW("\xf0\x9f\x98\x80", 4, 0x1F600),
    ROW("\xf4\x8f\xbf\xbf", 4, 0x10FFFF), /* the largest code point */
    ROW("\xc3\xa9zz", 2, 0xE9),           /* only the first sequence */
    /* overlong forms */
    ROW("\xc0\x80", 0, 0),
    ROW("\xc1\xbf", 0, 0),
    ROW("\xe0\x80\x80", 0, 0),
    ROW("\xe0\x9f\xbf", 0, 0),
    ROW("\xf0\x80\x80\x80", 0, 0),
    ROW("\xf0\x8f\xbf\xbf", 0, 0),
    /* UTF-16 surrogates */
    ROW("\xed\xa0\x80", 0, 0),
    ROW("\xed\xbf\xbf", 0, 0),
    /* past U+10FFFF, and lead bytes nothing starts with */
    ROW("\xf4\x90\x80\x80", 0, 0),
    ROW("\xf5\x80\x80\x80", 0, 0),
    ROW("\xfe", 0, 0),
    ROW("\xff", 0, 0),
    /* stray continuation bytes */
    ROW("\x80", 0, 0),
    ROW("\xbf\x41", 0, 0),
    /* truncated sequences, and a lead byte followed by something else */
    ROW("", 0, 0),
    ROW("\xc3", 0, 0),
    ROW("\xe2\x82", 0, 0),
    ROW("\xf0\x9f\x98", 0, 0),
    ROW("\xe2\x41\xac", 0, 0),
    ROW("\xc3\xc3\xa9", 0, 0),
#undef ROW
};

static void test_utf8_decode_cases(void)
{
    for (size_t i = 0; i < sizeof utf8_cases / sizeof utf8_cases[0]; i++) {
        const struct utf8_case *c = &utf8_cases[i];
        uint32_t cp = 0xFFFFFFFF;
        size_t n = text_utf8_decode(c->bytes, c->len, &cp);
        if (n != c->decoded_len || (n && cp != c->cp))
            fprintf(stderr, "utf8 case %zu: length %zu, code point %#x\n", i, n, (unsigned) cp);
        CHECK_INT_EQ(n, c->decoded_len);
        if (c->decoded_len) CHECK_INT_EQ(cp, c->cp);
        CHECK_INT_EQ(text_utf8_decode(c->bytes, c->len, NULL), c->decoded_len);
    }
}

static void test_utf8_decode_stops_at_avail(void)
{
    /* A whole sequence in memory, but avail cuts it short: refused. */
    CHECK_INT_EQ(text_utf8_decode("\xf0\x9f\x98\x80", 3, NULL), 0);
    CHECK_INT_EQ(text_utf8_decode("\xc3\xa9", 1, NULL), 0);
    CHECK_INT_EQ(text_utf8_decode("\xc3\xa9", 0, NULL), 0);
}

static void test_utf8_validity_of_whole_texts(void)
{
    CHECK(text_utf8_is_valid("", 0));
    CHECK(text_utf8_is_valid("abc", 3));
    CHECK(text_utf8_is_valid("a\0b", 3));
    CHECK(text_utf8_is_valid("a\xc3\xa9"
                             "b\xf4\x8f\xbf\xbf",
                             8));
    CHECK(!text_utf8_is_valid("a\xc3", 2));
    CHECK(!text_utf8_is_valid("ab\xed\xa0\x80", 5));
    CHECK(!text_utf8_is_valid("\xc0\x80", 2));
    CHECK(!text_utf8_is_valid("abc\x80", 4));
}

static void test_utf8_encode_known_texts(void)
{
    char out[TEXT_UTF8_MAX_BYTES];

    CHECK_INT_EQ(text_utf8_encode(0x41, out), 1);
    CHECK(memcmp(out, "A", 1) == 0);
    CHECK_INT_EQ(text_utf8_encode(0xE9, out), 2);
    CHECK(memcmp(out, "\xc3\xa9", 2) == 0);
    CHECK_INT_EQ(text_utf8_encode(0x20AC, out), 3);
    CHECK(memcmp(out, "\xe2\x82\xac", 3) == 0);
    CHECK_INT_EQ(text_utf8_encode(0x1F600, out), 4);
    CHECK(memcmp(out, "\xf0\x9f\x98\x80", 4) == 0);
    CHECK_INT_EQ(text_utf8_encode(0x10FFFF, out), 4);
    CHECK(memcmp(out, "\xf4\x8f\xbf\xbf", 4) == 0);
    /* A surrogate is written as its three bytes, which the decoder refuses. */
    CHECK_INT_EQ(text_utf8_encode(0xD800, out), 3);
    CHECK(memcmp(out, "\xed\xa0\x80", 3) == 0);
    CHECK_INT_EQ(text_utf8_decode(out, 3, NULL), 0);
}

static void test_utf8_every_code_point_round_trips(void)
{
    size_t failures = 0;

    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        char out[TEXT_UTF8_MAX_BYTES];
        uint32_t back = 0xFFFFFFFF;
        size_t n, expected = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        n = text_utf8_encode(cp, out);
        if (n != expected || text_utf8_decode(out, n, &back) != n || back != cp) failures++;
    }
    CHECK_INT_EQ(failures, 0);
}

static void test_base64_round_trips_every_length(void)
{
    const char data[] = "\x00\x01\xfe\xffhello world";
    for (size_t len = 0; len < sizeof data; len++) {
        char *enc = text_base64_encode_new(data, len);
        size_t out_len = 0;
        char *dec;
        CHECK_INT_EQ(strlen(enc), text_base64_encoded_length(len));
        CHECK(text_base64_valid(enc, strlen(enc)));
        CHECK_INT_EQ(text_base64_decoded_length(enc, strlen(enc)), len);
        dec = text_base64_decode(enc, strlen(enc), &out_len);
        CHECK_INT_EQ(out_len, len);
        CHECK(memcmp(dec, data, len) == 0);
        free(dec);
        free(enc);
    }
}

static void test_base64_known_texts(void)
{
    char out[16];
    text_base64_encode("f", 1, out);
    CHECK_STR_EQ(out, "Zg==");
    text_base64_encode("fo", 2, out);
    CHECK_STR_EQ(out, "Zm8=");
    text_base64_encode("foo", 3, out);
    CHECK_STR_EQ(out, "Zm9v");
}

/* The answers of DynamoDB's deserializer for malformed blobs (dynalite's
 * recorded texts; conformance/test_protocol.py pins them on the wire). */
static void test_base64_check_gives_aws_texts(void)
{
    struct ddb_error err = {0};

    CHECK_INT_EQ(text_base64_check("23456", 5, &err), -1);
    CHECK_INT_EQ(err.code, DDB_SERIALIZATION);
    CHECK_STR_EQ(err.message,
                 "Base64 encoded length is expected a multiple of 4 bytes but found: 5");
    ddb_error_clear(&err);
    CHECK_INT_EQ(text_base64_check("+/+=", 4, &err), -1); /* stray bits before the pad */
    CHECK_STR_EQ(err.message, "Invalid last non-pad Base64 character dectected");
    ddb_error_clear(&err);
    CHECK_INT_EQ(text_base64_check("=+/=", 4, &err), -1); /* a pad in the middle */
    CHECK_STR_EQ(err.message, "Invalid last non-pad Base64 character dectected");
    ddb_error_clear(&err);
    CHECK_INT_EQ(text_base64_check("ab!d", 4, &err), -1);
    ddb_error_clear(&err);
    CHECK_INT_EQ(text_base64_check("", 0, &err), 0);
    CHECK_INT_EQ(text_base64_check("Zg==", 4, &err), 0);
}

static void test_buffer_grows_and_hands_over(void)
{
    struct text_buf b;
    char *s;
    size_t len;

    text_buf_init(&b);
    s = text_buf_take(&b, &len);
    CHECK_STR_EQ(s, "");
    CHECK_INT_EQ(len, 0);
    free(s);
    for (int i = 0; i < 100; i++)
        text_buf_printf(&b, "%d,", i);
    text_buf_puts(&b, "end");
    text_buf_add(&b, "!?", 1);
    CHECK(b.len == strlen(b.data));
    CHECK(strncmp(b.data, "0,1,2,", 6) == 0);
    s = text_buf_take(&b, &len);
    CHECK_INT_EQ(len, strlen(s));
    CHECK(strcmp(s + len - 5, ",end!") == 0);
    CHECK(b.data == NULL && b.len == 0);
    free(s);
    text_buf_puts(&b, "x");
    text_buf_clear(&b);
    CHECK(b.data == NULL);
}

/* text_u64 writes what "%llu" writes. */
static void test_u64_as_printf_writes_it(void)
{
    static const uint64_t cases[] = {
        0, 1, 9, 10, 99, 100, 4294967295u, 4294967296u, 18446744073709551615u};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char got[TEXT_U64_MAX], want[32];
        size_t n = text_u64(cases[i], got);
        snprintf(want, sizeof want, "%llu", (unsigned long long) cases[i]);
        CHECK_STR_EQ(got, want);
        CHECK_INT_EQ(n, strlen(want));
    }
}

int main(void)
{
    RUN(test_utf16_length_counts_a_four_byte_character_twice);
    RUN(test_u64_as_printf_writes_it);
    RUN(test_utf8_decode_cases);
    RUN(test_utf8_decode_stops_at_avail);
    RUN(test_utf8_validity_of_whole_texts);
    RUN(test_utf8_encode_known_texts);
    RUN(test_utf8_every_code_point_round_trips);
    RUN(test_base64_round_trips_every_length);
    RUN(test_base64_known_texts);
    RUN(test_base64_check_gives_aws_texts);
    RUN(test_buffer_grows_and_hands_over);
    return check_report();
}
