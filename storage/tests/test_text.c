/*
 * test_text.c - Java lengths, base64 and the string buffer (storage/base/text.c).
 */
#include "storage/base/text.h"
#include "storage/tests/check.h"

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

int main(void)
{
    RUN(test_utf16_length_counts_a_four_byte_character_twice);
    RUN(test_base64_round_trips_every_length);
    RUN(test_base64_known_texts);
    RUN(test_base64_check_gives_aws_texts);
    RUN(test_buffer_grows_and_hands_over);
    return check_report();
}
