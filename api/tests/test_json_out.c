/*
 * test_json_out.c - the JSON writer of the answers.
 *
 * The writer must print what json_dumps(JSON_COMPACT) printed for the same
 * values (answers and their x-amz-crc32 must not change), so besides tables of
 * (input, expected text) cases, strings and reals are compared against jansson
 * itself over many inputs.
 */
#include "api/wire/json_out.h"
#include "storage/base/text.h"
#include "storage/tests/check.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The writer's text after one call of fill(); the caller frees it. */
static char *written(void (*fill)(struct json_out *w, const void *arg), const void *arg)
{
    struct json_out w;
    size_t len;
    char *text;

    json_out_init(&w);
    fill(&w, arg);
    text = json_out_take(&w, &len);
    CHECK_INT_EQ(strlen(text), len);
    return text;
}

/* Checks that the writer prints what jansson prints for the same value; takes j. */
static void check_like_jansson(json_t *j, void (*fill)(struct json_out *w, const void *arg),
                               const void *arg)
{
    char *want = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    char *got = written(fill, arg);
    CHECK_STR_EQ(got, want);
    free(want);
    free(got);
    json_decref(j);
}

struct bytes {
    const char *data;
    size_t len;
};

static void fill_string(struct json_out *w, const void *arg)
{
    const struct bytes *b = arg;
    json_out_stringn(w, b->data, b->len);
}

struct string_case {
    const char *in;
    size_t len;
    const char *out;
};

#define STR(s) s, sizeof s - 1

static const struct string_case string_cases[] = {
    {STR(""), "\"\""},
    {STR("plain text 123"), "\"plain text 123\""},
    {STR("quote \" and backslash \\"), "\"quote \\\" and backslash \\\\\""},
    {STR("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\""},
    /* other control characters as \u00XX, uppercase hex, NUL included */
    {STR("a\0b"), "\"a\\u0000b\""},
    {STR("\x01\x1f\x0b"), "\"\\u0001\\u001F\\u000B\""},
    /* not escaped: '/', DEL */
    {STR("a/b\x7f"), "\"a/b\x7f\""},
    /* valid UTF-8 is written raw: 2, 3 and 4 bytes, U+10FFFF, U+2028 */
    {STR("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""},
    {STR("\xf4\x8f\xbf\xbf\xe2\x80\xa8"), "\"\xf4\x8f\xbf\xbf\xe2\x80\xa8\""},
    /* invalid UTF-8: each bad byte is U+FFFD, the output stays valid JSON */
    {STR("a\xff"
         "b"),
     "\"a\\uFFFDb\""},
    {STR("\xc3"), "\"\\uFFFD\""},                                  /* truncated */
    {STR("\xc0\xaf"), "\"\\uFFFD\\uFFFD\""},                       /* overlong '/' */
    {STR("\xed\xa0\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\""},            /* surrogate */
    {STR("\xf4\x90\x80\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\\uFFFD\""}, /* above U+10FFFF */
};

static void test_json_out_string_escapes(void)
{
    for (size_t i = 0; i < sizeof string_cases / sizeof string_cases[0]; i++) {
        struct bytes b = {string_cases[i].in, string_cases[i].len};
        char *text = written(fill_string, &b);
        CHECK_STR_EQ(text, string_cases[i].out);
        free(text);
    }
}

static void test_utf8_validity_matches_jansson(void)
{
    static const struct bytes cases[] = {
        {STR("")},
        {STR("abc")},
        {STR("\xc3\xa9")},
        {STR("\xef\xbf\xbf")},
        {STR("\xf0\x90\x80\x80")},
        {STR("\x80")},
        {STR("\xc1\xbf")},
        {STR("\xe0\x9f\xbf")},
        {STR("\xf0\x8f\xbf\xbf")},
        {STR("\xed\xbf\xbf")},
        {STR("\xf5\x80\x80\x80")},
        {STR("\xe2\x82")},
    };

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_t *j = json_stringn(cases[i].data, cases[i].len);
        CHECK_INT_EQ(text_utf8_is_valid(cases[i].data, cases[i].len), j != NULL);
        json_decref(j);
    }
}

/* xorshift64: the same pseudo-random inputs on every run. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Random strings from escapes, ASCII and valid UTF-8: the writer and
 * json_dumps print the same bytes. */
static void test_json_out_strings_match_jansson(void)
{
    static const char *const pieces[] = {"a",
                                         "Z",
                                         " ",
                                         "\"",
                                         "\\",
                                         "/",
                                         "\x7f",
                                         "\n",
                                         "\x01",
                                         "\x1f",
                                         "\xc3\xa9",
                                         "\xe2\x82\xac",
                                         "\xf0\x9f\x98\x80"};
    uint64_t state = 0x9E3779B97F4A7C15ULL;

    for (int n = 0; n < 20000; n++) {
        char buf[128];
        size_t len = 0, count = next_random(&state) % 12;
        for (size_t i = 0; i < count; i++) {
            const char *p = pieces[next_random(&state) % (sizeof pieces / sizeof pieces[0])];
            memcpy(buf + len, p, strlen(p));
            len += strlen(p);
        }
        if (next_random(&state) % 4 == 0) buf[len++] = '\0';
        struct bytes b = {buf, len};
        check_like_jansson(json_stringn(buf, len), fill_string, &b);
    }
}

/* Plain text is checked sixteen, eight, four or three bytes at a time
 * (json_out_raw_string): a byte that needs an escape, starts UTF-8 or is a
 * stray continuation byte is found at every position of strings of every
 * length, first, middle and last bytes of the shortest included. */
static void test_json_out_special_byte_at_every_position(void)
{
    static const char *const specials[] = {"\x00",
                                           "\x1f",
                                           "\"",
                                           "\\",
                                           "\x7f",
                                           "~",
                                           " ",
                                           "\x80",
                                           "\xff",
                                           "\xc3\xa9",
                                           "\xf0\x9f\x98\x80"};

    for (size_t len = 1; len <= 72; len++) {
        for (size_t pos = 0; pos < len; pos++) {
            for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
                char buf[96];
                size_t n = strlen(specials[k]) ? strlen(specials[k]) : 1, total = len - 1 + n;
                memset(buf, 'a' + (int) (len % 26), sizeof buf);
                memcpy(buf + pos, specials[k], n);
                struct bytes b = {buf, total};
                if ((unsigned char) specials[k][0] == 0x80 ||
                    (unsigned char) specials[k][0] == 0xff) {
                    /* Not UTF-8 (jansson refuses it): the writer puts U+FFFD's escape there. */
                    char want[128], *got = written(fill_string, &b);
                    snprintf(want, sizeof want, "\"%.*s\\uFFFD%.*s\"", (int) pos, buf,
                             (int) (total - pos - 1), buf + pos + 1);
                    CHECK_STR_EQ(got, want);
                    free(got);
                    continue;
                }
                check_like_jansson(json_stringn(buf, total), fill_string, &b);
            }
        }
    }
}

static void fill_real(struct json_out *w, const void *arg)
{
    json_out_real(w, *(const double *) arg);
}

static void test_json_out_reals_print_as_jansson_does(void)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0.0"},
        {0.5, "0.5"},
        {1.0, "1.0"},
        {1.5, "1.5"},
        {-2.0, "-2.0"},
        {100.0, "100.0"},
        {0.1, "0.10000000000000001"},
        {1e16, "10000000000000000.0"},
        {1e17, "1e17"},
        {1e21, "1e21"},
        {1e-5, "1.0000000000000001e-5"},
        {0.0001, "0.0001"},
        {1e-300, "1e-300"},
    };
    uint64_t state = 12345;

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = written(fill_real, &cases[i].v);
        CHECK_STR_EQ(text, cases[i].text);
        free(text);
    }
    /* and over random bit patterns and capacity-like halves */
    for (int n = 0; n < 20000; n++) {
        uint64_t bits = next_random(&state);
        double v;
        memcpy(&v, &bits, sizeof v);
        if (n % 2) v = (double) (bits % 100000) / 2.0;
        if (v != v || v - v != 0) continue; /* NaN and infinities are not JSON */
        check_like_jansson(json_real(v), fill_real, &v);
    }
}

static void fill_nested(struct json_out *w, const void *arg)
{
    (void) arg;
    json_out_object_begin(w);
    json_out_key(w, "Items");
    json_out_array_begin(w);
    json_out_object_begin(w);
    json_out_object_end(w);
    json_out_array_begin(w);
    json_out_array_end(w);
    json_out_integer(w, -42);
    json_out_null(w);
    json_out_bool(w, true);
    json_out_bool(w, false);
    json_out_array_end(w);
    json_out_key(w, "Count");
    json_out_integer(w, 9223372036854775807LL);
    json_out_keyn(w, "a\0\"", 3);
    json_out_object_begin(w);
    json_out_key(w, "x");
    json_out_string(w, "y");
    json_out_key(w, "z");
    json_out_real(w, 2.5);
    json_out_object_end(w);
    json_out_key(w, "e");
    json_out_object_begin(w);
    json_out_object_end(w);
    json_out_object_end(w);
}

static void test_json_out_nesting_places_commas(void)
{
    char *text = written(fill_nested, NULL);

    CHECK_STR_EQ(text, "{\"Items\":[{},[],-42,null,true,false],\"Count\":9223372036854775807,"
                       "\"a\\u0000\\\"\":{\"x\":\"y\",\"z\":2.5},\"e\":{}}");
    free(text);
}

static void fill_base64(struct json_out *w, const void *arg)
{
    const struct bytes *b = arg;

    json_out_array_begin(w);
    for (size_t n = 0; n <= b->len; n++)
        json_out_base64(w, b->data, n);
    json_out_array_end(w);
}

static void test_json_out_base64_pads(void)
{
    struct bytes b = {"\0ab\xff\xfe", 5};
    char *text = written(fill_base64, &b);

    CHECK_STR_EQ(text, "[\"\",\"AA==\",\"AGE=\",\"AGFi\",\"AGFi/w==\",\"AGFi//4=\"]");
    free(text);
}

/* A value laid out raw among token-written siblings: json_out_raw_begin
 * places the ',' and json_out_raw_end makes the next value take one;
 * json_out_raw_string and json_out_raw_base64 write what json_out_stringn
 * and json_out_base64 write, without a ','. */
static void fill_raw(struct json_out *w, const void *arg)
{
    (void) arg;
    json_out_array_begin(w);
    json_out_integer(w, 1);
    json_out_raw_begin(w);
    memcpy(json_out_room(w, 5), "{\"a\":", 5);
    w->len += 5;
    json_out_raw_string(w, "q\"", 2);
    memcpy(json_out_room(w, 5), ",\"b\":", 5);
    w->len += 5;
    json_out_raw_base64(w, "\0ab", 3);
    memcpy(json_out_room(w, 1), "}", 1);
    w->len += 1;
    json_out_raw_end(w);
    json_out_raw_begin(w);
    json_out_raw_string(w, "", 0);
    json_out_raw_end(w);
    json_out_string(w, "after");
    json_out_array_end(w);
}

static void test_json_out_raw_values_take_their_commas(void)
{
    char *text = written(fill_raw, NULL);

    CHECK_STR_EQ(text, "[1,{\"a\":\"q\\\"\",\"b\":\"AGFi\"},\"\",\"after\"]");
    free(text);
}

static void fill_json(struct json_out *w, const void *arg)
{
    json_out_object_begin(w);
    json_out_key(w, "before");
    json_out_integer(w, 1);
    json_out_key(w, "copied");
    json_out_json(w, arg);
    json_out_key(w, "after");
    json_out_json(w, json_object_get(arg, "b"));
    json_out_object_end(w);
}

/* A piece of the request is echoed as jansson dumps it, member order kept. */
static void test_json_out_embeds_jansson_values(void)
{
    json_t *j = json_loads("{\"b\": [true, \"\\u00e9\"], \"a\": {\"#n\": \"x/y\"}}", 0, NULL);
    char *text = written(fill_json, j);

    CHECK_STR_EQ(text,
                 "{\"before\":1,\"copied\":{\"b\":[true,\"\xc3\xa9\"],\"a\":{\"#n\":\"x/y\"}},"
                 "\"after\":[true,\"\xc3\xa9\"]}");
    free(text);
    json_decref(j);
}

static void test_json_out_take_and_clear(void)
{
    struct json_out w;
    size_t len = 99;
    char *text;

    json_out_init(&w);
    text = json_out_take(&w, &len);
    CHECK_STR_EQ(text, "");
    CHECK_INT_EQ(len, 0);
    free(text);

    /* a long string crosses several growths of the buffer */
    char big[5000];
    memset(big, 'x', sizeof big);
    json_out_stringn(&w, big, sizeof big);
    text = json_out_take(&w, &len);
    CHECK_INT_EQ(len, sizeof big + 2);
    CHECK(text[0] == '"' && text[len - 1] == '"' && text[len] == '\0');
    free(text);
    CHECK(w.data == NULL && w.len == 0);

    json_out_string(&w, "discarded");
    json_out_clear(&w);
    CHECK(w.data == NULL && w.len == 0 && !w.need_comma);
    json_out_clear(&w);
}

static void fill_integer(struct json_out *w, const void *arg)
{
    json_out_integer(w, *(const long long *) arg);
}

/* Integers as jansson prints them ("%lld"), the extremes and zero included. */
static void test_json_out_integers_print_as_jansson_does(void)
{
    static const long long cases[] = {
        0, 7, -1, 10, -42, 1000000007LL, 9223372036854775807LL, -9223372036854775807LL - 1};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        check_like_jansson(json_integer(cases[i]), fill_integer, &cases[i]); /* takes j */
    }
}

/* The dictionary marks a name plain by text_json_plain (storage), and the
 * writer then copies it without json_out_plain_copy's look: the two must
 * agree on every byte, and a plain copy must equal the checked one. */
static void test_json_out_plain_bytes_are_text_json_plain(void)
{
    char out[64];
    for (int b = 0; b < 256; b++) {
        char s[20];
        memset(s, 'a', sizeof s);
        for (size_t at = 0; at < sizeof s; at++) {
            bool plain;
            s[at] = (char) b;
            plain = json_out_plain_copy(out, s, at + 1) != NULL;
            CHECK(plain == text_json_plain(s, at + 1));
            if (plain) {
                CHECK(json_out_copy(out, s, at + 1) == out + at + 1);
                CHECK(memcmp(out, s, at + 1) == 0);
            }
            s[at] = 'a';
        }
    }
}

int main(void)
{
    RUN(test_json_out_string_escapes);
    RUN(test_utf8_validity_matches_jansson);
    RUN(test_json_out_strings_match_jansson);
    RUN(test_json_out_special_byte_at_every_position);
    RUN(test_json_out_plain_bytes_are_text_json_plain);
    RUN(test_json_out_reals_print_as_jansson_does);
    RUN(test_json_out_integers_print_as_jansson_does);
    RUN(test_json_out_nesting_places_commas);
    RUN(test_json_out_base64_pads);
    RUN(test_json_out_raw_values_take_their_commas);
    RUN(test_json_out_embeds_jansson_values);
    RUN(test_json_out_take_and_clear);
    return check_report();
}
