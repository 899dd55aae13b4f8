/*
 * test_json_in.c - reading request bodies, object keys with NUL included.
 *
 * json_in_load() must read every text as jansson does, the differences being
 * that it accepts U+0000 in object keys and refuses every raw NUL byte. Each
 * case below is read alone and next to a NUL key ({"\u0000": X}), and
 * compared with jansson's reading of X and of {"k": X}: both refuse it, or
 * both read the same value.
 */
#include "api/wire/json_in.h"
#include "storage/tests/check.h"

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_like_jansson(const char *x)
{
    char with_nul[512], plain[512];
    json_t *got, *want;

    snprintf(with_nul, sizeof with_nul, "{\"\\u0000\": %s}", x);
    snprintf(plain, sizeof plain, "{\"k\": %s}", x);
    got = json_in_load(with_nul, strlen(with_nul));
    want = json_loadb(plain, strlen(plain), JSON_ALLOW_NUL, NULL);
    if ((got == NULL) != (want == NULL)) {
        fprintf(stderr, "  case %s: json_in %s, jansson %s\n", x, got ? "reads" : "refuses",
                want ? "reads" : "refuses");
        CHECK(0);
    } else if (got) {
        CHECK(json_equal(json_object_getn(got, "\0", 1), json_object_get(want, "k")));
    }
    json_decref(got);
    json_decref(want);
}

static void check_alone_like_jansson(const char *x)
{
    json_t *got = json_in_load(x, strlen(x));
    json_t *want = json_loadb(x, strlen(x), JSON_ALLOW_NUL | JSON_DECODE_ANY, NULL);

    if ((got == NULL) != (want == NULL)) {
        fprintf(stderr, "  case %s alone: json_in %s, jansson %s\n", x, got ? "reads" : "refuses",
                want ? "reads" : "refuses");
        CHECK(0);
    } else if (got) {
        CHECK(json_equal(got, want));
    }
    json_decref(got);
    json_decref(want);
}

static void test_json_in_reads_like_jansson_next_to_a_nul_key(void)
{
    static const char *const cases[] = {
        "1",
        "-0.5e3",
        "0",
        "-0",
        "01",
        "1.",
        ".5",
        "1e",
        "+1",
        "12345678901234567890123",
        "1e400",
        "true",
        "false",
        "null",
        "nul",
        "tru",
        "\"a\\ud83d\\ude00b\"",
        "\"\\ud83d\"",
        "\"\\udc00\"",
        "\"\\ud83dx\"",
        "\"\x01\"",
        "\"tab\\there\"",
        "\"\\/\\b\\f\\n\\r\"",
        "\"\\x\"",
        "\"\\u00e9\\u0000\"",
        "\"\xff\"",
        "\"\xc3\xa9\"",
        "[1, 2]",
        "[1, 2,]",
        "[ ]",
        "{}",
        "{\"a\": 1,}",
        "{\"a\": 1, \"a\": 2}",
        "{\"a\" 1}",
        "{1: 2}",
        "\"unterminated",
        "[1 2]",
        /* Integers decoded in place (up to 18 digits) and by jansson (longer). */
        "999999999999999999",
        "-999999999999999999",
        "1234567890123456789",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "-9223372036854775809",
        "-",
        "-a",
        "1-2",
        "[0,-0,10,-10]",
        "[1e2,1E-2,0.0,-0.0]",
        /* Escaped keys and values share the reader's scratch buffer. */
        "{\"k\\n\": \"v\\t\", \"k\\n\": {\"\\u00e9\": \"\\u00e8\"}}",
        "{\"\\\"\": [\"\\\\\", \"plain\"]}",
        "\"run\\nrun\\nrun\"",
        "\"ends with escape\\",
        /* Plain strings read a word at a time: only all-ASCII ones skip
         * jansson's UTF-8 check, so bad bytes inside a word, in the tail
         * after the words, and in keys are refused as jansson refuses them. */
        "\"abcdefgh\xffijklmnop\"",
        "\"abcdefghijklmno\xc3\"",
        "\"\xed\xa0\x80"
        "abcdefgh\"",
        "{\"abcdefgh\xff\": 1}",
        "{\"k\xc3\": 1}",
        "{\"abcdefgh\xc3\xa9\": \"ijklmnop\xc3\xa9\", \"plain ascii key\": \"plain value\"}",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_like_jansson(cases[i]);
        check_alone_like_jansson(cases[i]);
    }
}

static void test_json_in_keeps_keys_with_nul_apart(void)
{
    static const char text[] = "{\"a\": 1, \"a\\u0000\": 2, \"\\u0000\": {\"b\\u0000c\": 3}}";
    json_t *v = json_in_load(text, strlen(text));
    CHECK(v != NULL);
    CHECK_INT_EQ(json_object_size(v), 3);
    CHECK_INT_EQ(json_integer_value(json_object_get(v, "a")), 1);
    CHECK_INT_EQ(json_integer_value(json_object_getn(v, "a\0", 2)), 2);
    CHECK_INT_EQ(json_integer_value(json_object_getn(json_object_getn(v, "", 1), "b\0c", 3)), 3);
    json_decref(v);
}

static void test_json_in_refuses_what_follows_the_value(void)
{
    static const char trailing[] = "{\"\\u0000\": 1} x";
    static const char spaces[] = " {\"\\u0000\": 1}\r\n\t ";
    json_t *v = json_in_load(trailing, strlen(trailing));
    CHECK(v == NULL);
    v = json_in_load(spaces, strlen(spaces));
    CHECK(v != NULL);
    json_decref(v);
}

static void test_json_in_refuses_a_raw_nul_byte(void)
{
    /* jansson reads the first two as 8 and [1] (fuzz_wire_decode found it). */
    static const char *const texts[] = {"8\0\r", "[1\0]", "{}\0", "\"a\0\"", "\0"};
    static const size_t lens[] = {3, 4, 3, 4, 1};

    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        CHECK(json_in_load(texts[i], lens[i]) == NULL);
}

static void test_json_in_limits_nesting_as_jansson_does(void)
{
    size_t depth = 3000, len = 0;
    char *text = malloc(depth * 2 + 32);
    json_t *v;

    len += (size_t) sprintf(text, "{\"\\u0000\": ");
    for (size_t i = 0; i < depth; i++)
        text[len++] = '[';
    for (size_t i = 0; i < depth; i++)
        text[len++] = ']';
    text[len++] = '}';
    v = json_in_load(text, len);
    CHECK(v == NULL);
    free(text);
}

/* A body of n strings, the i-th of length i % 300 (every size class of
 * json_alloc.c's cache, and past it), each byte 'a' + (i + j) % 26. */
static char *strings_body(size_t n, size_t *len)
{
    size_t cap = 16 + n * 310, at = 0;
    char *text = malloc(cap);

    CHECK(text != NULL);
    text[at++] = '[';
    for (size_t i = 0; i < n; i++) {
        if (i) text[at++] = ',';
        text[at++] = '"';
        for (size_t j = 0; j < i % 300; j++)
            text[at++] = (char) ('a' + (i + j) % 26);
        text[at++] = '"';
    }
    text[at++] = ']';
    *len = at;
    return text;
}

static bool strings_intact(const json_t *arr, size_t n)
{
    if (json_array_size(arr) != n) return false;
    for (size_t i = 0; i < n; i++) {
        const json_t *s = json_array_get(arr, i);
        const char *v = json_string_value(s);
        if (!v || json_string_length(s) != i % 300) return false;
        for (size_t j = 0; j < i % 300; j++)
            if (v[j] != (char) ('a' + (i + j) % 26)) return false;
    }
    return true;
}

struct freer {
    json_t *tree;
};

static void *free_tree(void *arg)
{
    struct freer *f = arg;
    json_decref(f->tree);
    return NULL;
}

/* json_alloc.c: trees read after others were freed reuse their blocks and
 * still hold what was read; a tree freed on another thread (its blocks join
 * that thread's cache) and objects built before the reader installed the
 * cache are freed as well. Run under valgrind or ASan this also checks that
 * no block serves a request larger than itself. */
static void test_json_in_trees_reuse_freed_blocks(void)
{
    const size_t n = 2000;
    size_t len;
    char *text = strings_body(n, &len);
    json_t *early = json_pack("{s:s, s:[i, i]}", "made", "before the reader", "n", 1, 2);
    json_t *tree;
    pthread_t thread;
    struct freer f;

    for (int round = 0; round < 5; round++) {
        tree = json_in_load(text, len);
        CHECK(tree != NULL && strings_intact(tree, n));
        json_decref(tree);
    }
    json_decref(early);
    f.tree = json_in_load(text, len);
    CHECK(f.tree != NULL && strings_intact(f.tree, n));
    CHECK(pthread_create(&thread, NULL, free_tree, &f) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    tree = json_in_load(text, len);
    CHECK(tree != NULL && strings_intact(tree, n));
    json_decref(tree);
    free(text);
}

int main(void)
{
    RUN(test_json_in_reads_like_jansson_next_to_a_nul_key);
    RUN(test_json_in_keeps_keys_with_nul_apart);
    RUN(test_json_in_refuses_what_follows_the_value);
    RUN(test_json_in_refuses_a_raw_nul_byte);
    RUN(test_json_in_limits_nesting_as_jansson_does);
    RUN(test_json_in_trees_reuse_freed_blocks);
    return check_report();
}
