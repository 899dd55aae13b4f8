/*
 * test_value.c - values: equality, key ordering, maps, and item sizes by AWS's rules.
 */
#include "storage/base/limits.h"
#include "storage/model/item.h"
#include "storage/model/value.h"
#include "storage/tests/check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void s(struct value *v, const char *text)
{
    value_init_string(v, text, strlen(text));
}

static void n(struct value *v, const char *text)
{
    value_init_number_text(v, text, strlen(text));
}

static void test_strings_order_by_utf8_bytes_as_unsigned(void)
{
    struct value a, b;
    s(&a, "Z");
    s(&b, "\xc3\xa9"); /* e-acute sorts after every ASCII character */
    CHECK(value_compare_scalar(&a, &b) < 0);
    value_clear(&a);
    value_clear(&b);
    s(&a, "ab");
    s(&b, "abc");
    CHECK(value_compare_scalar(&a, &b) < 0);
    value_clear(&a);
    value_clear(&b);
}

static void test_numbers_order_numerically_not_as_text(void)
{
    struct value a, b;
    n(&a, "9");
    n(&b, "10");
    CHECK(value_compare_scalar(&a, &b) < 0);
    value_clear(&a);
    value_clear(&b);
    n(&a, "-10");
    n(&b, "-9.5");
    CHECK(value_compare_scalar(&a, &b) < 0);
    value_clear(&a);
    value_clear(&b);
}

static void test_binaries_order_as_unsigned_bytes(void)
{
    struct value a, b;
    value_init_binary(&a, "\x01", 1);
    value_init_binary(&b, "\xff", 1);
    CHECK(value_compare_scalar(&a, &b) < 0);
    value_clear(&a);
    value_clear(&b);
}

static void test_sets_are_equal_in_any_order(void)
{
    struct value a, b, e;
    value_init_list(&a, VALUE_SS);
    value_init_list(&b, VALUE_SS);
    s(&e, "x");
    value_list_append(&a, &e);
    s(&e, "y");
    value_list_append(&a, &e);
    s(&e, "y");
    value_list_append(&b, &e);
    s(&e, "x");
    value_list_append(&b, &e);
    CHECK(value_equal(&a, &b));
    value_clear(&a);
    value_clear(&b);
}

/*
 * Set order: DynamoDB Local's, probed by running it (docs/differences.md).
 * Members are given as written in a set literal: S as UTF-8, N as canonical
 * text, B as hex.
 */
struct set_order_case {
    enum value_type type;
    const char *given[9]; /* NULL-terminated */
    const char *sorted[9];
};

static const struct set_order_case set_order_cases[] = {
    /* UTF-16 code units (Java's String.compareTo): upper case before lower,
     * a prefix first, U+1F600 (surrogates D83D DE00) before U+E000..U+FFFF,
     * which UTF-8 byte order would put first. */
    {VALUE_SS, {"b", "a", "B", "A", "ab", "a ", "~"}, {"A", "B", "a", "a ", "ab", "b", "~"}},
    {VALUE_SS,
     {"\xef\xbf\xbd", "\xee\x80\x80", "\xf0\x9f\x98\x80", "\xc3\xa9", "e", "\xed\x9f\xbf"},
     {"e", "\xc3\xa9", "\xed\x9f\xbf", "\xf0\x9f\x98\x80", "\xee\x80\x80", "\xef\xbf\xbd"}},
    {VALUE_SS, {"\xf0\x90\x80\x80", "\xef\xbd\xa1"}, {"\xf0\x90\x80\x80", "\xef\xbd\xa1"}},
    /* numerically, whatever the scale or sign */
    {VALUE_NS,
     {"1", "10", "9", "-1", "100", "0.001", "100.5", "2"},
     {"-1", "0.001", "1", "2", "9", "10", "100", "100.5"}},
    {VALUE_NS,
     {"5", "50", "0.5", "-0.5", "-1", "-9", "-10", "0"},
     {"-10", "-9", "-1", "-0.5", "0", "0.5", "5", "50"}},
    /* bytes as unsigned, a prefix first */
    {VALUE_BS,
     {"80", "7f", "ff", "00", "0000", "fe", "ff00"},
     {"00", "0000", "7f", "80", "fe", "ff", "ff00"}},
};

static void set_member(struct value *v, enum value_type type, const char *text)
{
    if (type == VALUE_SS) {
        s(v, text);
    } else if (type == VALUE_NS) {
        n(v, text);
    } else {
        unsigned char bytes[16];
        size_t len = strlen(text) / 2;
        for (size_t i = 0; i < len; i++) {
            unsigned x;
            sscanf(text + 2 * i, "%2x", &x);
            bytes[i] = (unsigned char) x;
        }
        value_init_binary(v, bytes, len);
    }
}

static void test_sets_sort_in_dynamodb_locals_order(void)
{
    for (size_t c = 0; c < sizeof set_order_cases / sizeof set_order_cases[0]; c++) {
        const struct set_order_case *k = &set_order_cases[c];
        struct value set, want, e;
        size_t count = 0;
        value_init_list(&set, k->type);
        value_init_list(&want, k->type);
        for (; k->given[count]; count++) {
            set_member(&e, k->type, k->given[count]);
            value_list_append(&set, &e);
            set_member(&e, k->type, k->sorted[count]);
            value_list_append(&want, &e);
        }
        CHECK(value_set_is_sorted(&want));
        CHECK(value_set_sort(&set));
        CHECK_INT_EQ(set.u.list.count, count);
        for (size_t i = 0; i < count; i++) {
            if (!value_equal(&set.u.list.elems[i], &want.u.list.elems[i]))
                fprintf(stderr, "case %zu: member %zu is %s, expected %s\n", c, i,
                        set.u.list.elems[i].u.str.data, k->sorted[i]);
            CHECK(value_equal(&set.u.list.elems[i], &want.u.list.elems[i]));
        }
        CHECK(value_set_is_sorted(&set));
        CHECK(value_set_sort(&set)); /* sorting a sorted set changes nothing */
        CHECK(value_equal(&set, &want));
        value_clear(&set);
        value_clear(&want);
    }
}

static void test_set_sort_reports_duplicates(void)
{
    struct value set, e;
    value_init_list(&set, VALUE_NS);
    n(&e, "3");
    value_list_append(&set, &e);
    n(&e, "-1");
    value_list_append(&set, &e);
    n(&e, "3");
    value_list_append(&set, &e);
    CHECK(!value_set_sort(&set));
    CHECK(!value_set_is_sorted(&set));
    value_clear(&set);
}

/* Appends code point cp to a UTF-8 buffer and to a UTF-16 one. */
static void encode_both(uint32_t cp, char *u8, size_t *n8, uint16_t *u16, size_t *n16)
{
    if (cp < 0x80) {
        u8[(*n8)++] = (char) cp;
    } else if (cp < 0x800) {
        u8[(*n8)++] = (char) (0xC0 | cp >> 6);
        u8[(*n8)++] = (char) (0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        u8[(*n8)++] = (char) (0xE0 | cp >> 12);
        u8[(*n8)++] = (char) (0x80 | (cp >> 6 & 0x3F));
        u8[(*n8)++] = (char) (0x80 | (cp & 0x3F));
    } else {
        u8[(*n8)++] = (char) (0xF0 | cp >> 18);
        u8[(*n8)++] = (char) (0x80 | (cp >> 12 & 0x3F));
        u8[(*n8)++] = (char) (0x80 | (cp >> 6 & 0x3F));
        u8[(*n8)++] = (char) (0x80 | (cp & 0x3F));
    }
    if (cp < 0x10000) {
        u16[(*n16)++] = (uint16_t) cp;
    } else {
        u16[(*n16)++] = (uint16_t) (0xD800 + ((cp - 0x10000) >> 10));
        u16[(*n16)++] = (uint16_t) (0xDC00 + ((cp - 0x10000) & 0x3FF));
    }
}

static int compare_u16(const uint16_t *a, size_t na, const uint16_t *b, size_t nb)
{
    for (size_t i = 0; i < na && i < nb; i++) {
        if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
    }
    return na < nb ? -1 : na > nb ? 1 : 0;
}

/* Every pair of two-code-point strings over each UTF-8 length's edges and the
 * surrogate gap compares as Java compares their UTF-16. */
static void test_string_set_order_is_utf16_code_unit_order(void)
{
    static const uint32_t edges[] = {0x0,    0x41,   0x7F,   0x80,    0x7FF,   0x800,   0xD7FF,
                                     0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};
    enum { E = sizeof edges / sizeof edges[0] };
    size_t mismatches = 0;

    for (size_t i = 0; i < E * E; i++) {
        for (size_t j = 0; j < E * E; j++) {
            char a8[8], b8[8];
            uint16_t a16[4], b16[4];
            size_t na8 = 0, nb8 = 0, na16 = 0, nb16 = 0;
            struct value a, b;
            encode_both(edges[i / E], a8, &na8, a16, &na16);
            encode_both(edges[i % E], a8, &na8, a16, &na16);
            encode_both(edges[j / E], b8, &nb8, b16, &nb16);
            encode_both(edges[j % E], b8, &nb8, b16, &nb16);
            value_init_string(&a, a8, na8);
            value_init_string(&b, b8, nb8);
            mismatches += value_compare_set_elements(&a, &b) != compare_u16(a16, na16, b16, nb16);
            value_clear(&a);
            value_clear(&b);
        }
    }
    CHECK_INT_EQ(mismatches, 0);
}

static void test_map_set_replaces_and_remove_keeps_order(void)
{
    struct value m, v;
    bool drop[9] = {[0] = true, [4] = true};

    value_init_map(&m);
    for (int i = 0; i < 9; i++) {
        char name[2] = {(char) ('a' + i), 0};
        n(&v, "1");
        value_map_set(&m, name, 1, &v);
    }
    s(&v, "new");
    value_map_set(&m, "c", 1, &v);
    CHECK_INT_EQ(m.u.map.count, 9);
    CHECK(value_map_get(&m, "c", 1)->type == VALUE_S);
    value_map_remove_marked(&m, drop);
    CHECK(value_map_get(&m, "a", 1) == NULL);
    CHECK(value_map_get(&m, "e", 1) == NULL);
    CHECK_INT_EQ(m.u.map.attrs[0].name[0], 'b');
    CHECK_INT_EQ(m.u.map.attrs[3].name[0], 'f');
    CHECK_INT_EQ(m.u.map.count, 7);
    value_clear(&m);
}

/* Sizes from developerguide/CapacityUnitCalculations.html: name bytes plus
 * value bytes; numbers 1 byte per two significant digits plus 1; BOOL and NULL
 * 1; lists and maps 3 plus 1 per element. */
/* Large maps carry a hash index: every size across the growth steps finds
 * every name, keeps insertion order, and stays right after replacements,
 * removals (positions move), copies and appends after removals. */
static void test_large_maps_find_every_name_in_order(void)
{
    struct value m, copy, v;
    char name[16];
    bool ok = true;
    static bool drop[3000];

    value_init_map(&m);
    for (int i = 0; i < 3000; i++) {
        snprintf(name, sizeof name, "a%d", i);
        value_init_bool(&v, i % 2);
        value_map_set(&m, name, strlen(name), &v);
        /* every earlier name is still found, at its position */
        if (i == 7 || i == 8 || i == 15 || i == 16 || i == 17 || i == 1023 || i == 1024) {
            for (int k = 0; k <= i; k++) {
                snprintf(name, sizeof name, "a%d", k);
                ok = ok && value_map_find(&m, name, strlen(name)) == k;
            }
        }
    }
    CHECK(ok);
    CHECK_INT_EQ(m.u.map.count, 3000);
    CHECK(value_map_get(&m, "a3000", 5) == NULL);
    CHECK(value_map_get(&m, "", 0) == NULL);
    value_init_null(&v);
    value_map_set(&m, "a1500", 5, &v); /* replaced in place */
    CHECK_INT_EQ(m.u.map.count, 3000);
    CHECK_INT_EQ(value_map_find(&m, "a1500", 5), 1500);
    CHECK_INT_EQ(value_map_get(&m, "a1500", 5)->type, VALUE_NULL);
    /* remove down through the index threshold and back up */
    for (int i = 0; i < 3000; i++)
        drop[i] = i < 2990;
    value_map_remove_marked(&m, drop);
    CHECK_INT_EQ(m.u.map.count, 10);
    CHECK_INT_EQ(value_map_find(&m, "a2990", 5), 0);
    CHECK_INT_EQ(value_map_find(&m, "a2999", 5), 9);
    CHECK(value_map_get(&m, "a5", 2) == NULL);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "b%d", i);
        value_init_bool(&v, true);
        value_map_append(&m, name, strlen(name), &v);
    }
    value_copy(&copy, &m);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "b%d", i);
        ok = ok && value_map_find(&m, name, strlen(name)) == 10 + i &&
             value_map_find(&copy, name, strlen(name)) == 10 + i;
    }
    CHECK(ok);
    CHECK(value_equal(&m, &copy));
    value_init_bool(&v, false);
    value_map_set(&copy, "b39", 3, &v);
    CHECK(!value_equal(&m, &copy));
    value_clear(&copy);
    value_clear(&m);
}

/* Large sets compare as sets through a hash of their elements. */
static void test_large_sets_compare_in_any_order(void)
{
    struct value a, b, e;
    struct value_set_index ix;
    char text[16];

    value_init_list(&a, VALUE_SS);
    value_init_list(&b, VALUE_SS);
    for (int i = 0; i < 1000; i++) {
        snprintf(text, sizeof text, "s%d", i);
        value_init_string(&e, text, strlen(text));
        value_list_append(&a, &e);
        snprintf(text, sizeof text, "s%d", 999 - i);
        value_init_string(&e, text, strlen(text));
        value_list_append(&b, &e);
    }
    CHECK(value_equal(&a, &b));
    value_set_index_init(&ix, &a);
    value_init_string(&e, "s500", 4);
    CHECK(value_set_index_contains(&ix, &e));
    value_clear(&e);
    value_init_string(&e, "s1000", 5);
    CHECK(!value_set_index_contains(&ix, &e));
    value_clear(&e);
    value_init_binary(&e, "s500", 4); /* same bytes, another type */
    CHECK(!value_set_index_contains(&ix, &e));
    value_clear(&e);
    value_set_index_clear(&ix);
    value_clear(&b.u.list.elems[0]);
    value_init_string(&b.u.list.elems[0], "other", 5);
    CHECK(!value_equal(&a, &b));
    value_clear(&a);
    value_clear(&b);
}

static void test_item_size_follows_aws_rules(void)
{
    struct value m, v, l;
    struct item *item;
    value_init_map(&m);
    s(&v, "hello"); /* 2 + 5 */
    value_map_set(&m, "pk", 2, &v);
    n(&v, "12345"); /* 1 + (3 + 1) */
    value_map_set(&m, "n", 1, &v);
    value_init_bool(&v, true); /* 1 + 1 */
    value_map_set(&m, "b", 1, &v);
    value_init_list(&l, VALUE_L); /* 1 + 3 + 2 + (1 + 1) */
    value_init_null(&v);
    value_list_append(&l, &v);
    s(&v, "x");
    value_list_append(&l, &v);
    value_map_set(&m, "l", 1, &l);
    item = item_new(&m);
    CHECK_INT_EQ(item->size_bytes, 7 + 5 + 2 + 8);
    item_unref(item);
}

static void test_item_size_rule_allows_400_kb_and_words_each_refusal(void)
{
    struct ddb_error err = {0};

    CHECK_INT_EQ(item_check_size(DDB_MAX_ITEM_BYTES, ITEM_SIZE_GIVEN, &err), 0);
    CHECK_INT_EQ(err.code, DDB_OK);
    CHECK_INT_EQ(item_check_size(DDB_MAX_ITEM_BYTES + 1, ITEM_SIZE_GIVEN, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "Item size has exceeded the maximum allowed size");
    ddb_error_clear(&err);
    CHECK_INT_EQ(item_check_size(DDB_MAX_ITEM_BYTES, ITEM_SIZE_UPDATED, &err), 0);
    CHECK_INT_EQ(item_check_size(DDB_MAX_ITEM_BYTES + 1, ITEM_SIZE_UPDATED, &err), -1);
    CHECK_INT_EQ(err.code, DDB_VALIDATION);
    CHECK_STR_EQ(err.message, "Item size to update has exceeded the maximum allowed size");
    ddb_error_clear(&err);
}

static void test_number_size_ignores_leading_and_trailing_zeros(void)
{
    struct value v;
    n(&v, "1000000"); /* one significant digit */
    CHECK_INT_EQ(value_size_bytes(&v), 2);
    value_clear(&v);
    n(&v, "0.000123"); /* three */
    CHECK_INT_EQ(value_size_bytes(&v), 3);
    value_clear(&v);
}

/* The stored item is the header and its encoding (item_encode's bytes, names
 * in the process's dictionary), decoding to the tree it was made from, large
 * maps still found by name, keys read in place. */
static void test_stored_item_is_its_encoding_equal_to_its_tree(void)
{
    struct value attrs, m, l, e, copy;
    struct item *item;
    char name[16];

    value_init_map(&attrs);
    value_init_string(&e, "room#1", 6);
    value_map_set(&attrs, "PK", 2, &e);
    value_init_number_text(&e, "-12.5", 5);
    value_map_set(&attrs, "n", 1, &e);
    value_init_string(&e, "", 0);
    value_map_set(&attrs, "empty", 5, &e);
    value_init_map(&m);
    for (int i = 0; i < 40; i++) { /* an indexed map (value.c: from 16 slots) */
        int len = snprintf(name, sizeof name, "k%d", i);
        value_init_number_text(&e, name + 1, (size_t) len - 1);
        value_map_set(&m, name, (size_t) len, &e);
    }
    value_init_list(&l, VALUE_L);
    value_list_append(&l, &m);
    value_init_list(&m, VALUE_SS);
    value_init_string(&e, "a", 1);
    value_list_append(&m, &e);
    value_init_string(&e, "b", 1);
    value_list_append(&m, &e);
    value_list_append(&l, &m);
    value_init_bool(&e, true);
    value_list_append(&l, &e);
    value_map_set(&attrs, "list", 4, &l);
    value_copy(&copy, &attrs);

    item = item_new(&attrs);
    CHECK_INT_EQ(attrs.type, VALUE_NULL);
    CHECK(value_equal(item_attrs(item), &copy));
    CHECK_INT_EQ(item->size_bytes, item_attrs_size_bytes(&copy));
    struct text_buf enc = {0};
    item_encode(&enc, &copy, (struct name_dict *) (uintptr_t) item_names());
    CHECK_INT_EQ(item->encoded_len, enc.len);
    CHECK(memcmp(item->encoded, enc.data, enc.len) == 0);
    text_buf_clear(&enc);
    struct key_part part;
    CHECK(item_key_part(item, "empty", 5, &part));
    CHECK(part.type == VALUE_S && part.len == 0 && part.src > item->encoded);
    CHECK(!item_key_part(item, "list", 4, &part)); /* not a key type */
    CHECK(!item_key_part(item, "none", 4, &part));
    const struct value *big = &item_get_cstr(item, "list")->u.list.elems[0];
    for (int i = 0; i < 40; i++) {
        int len = snprintf(name, sizeof name, "k%d", i);
        const struct value *v = value_map_get(big, name, (size_t) len);
        CHECK(v && v->type == VALUE_N && strcmp(v->u.str.data, name + 1) == 0);
    }
    CHECK(value_map_get(big, "k40", 3) == NULL);
    CHECK_STR_EQ(item_get_cstr(item, "empty")->u.str.data, "");
    value_clear(&copy);
    item_unref(item);
}

int main(void)
{
    RUN(test_strings_order_by_utf8_bytes_as_unsigned);
    RUN(test_numbers_order_numerically_not_as_text);
    RUN(test_binaries_order_as_unsigned_bytes);
    RUN(test_sets_are_equal_in_any_order);
    RUN(test_sets_sort_in_dynamodb_locals_order);
    RUN(test_set_sort_reports_duplicates);
    RUN(test_string_set_order_is_utf16_code_unit_order);
    RUN(test_map_set_replaces_and_remove_keeps_order);
    RUN(test_large_maps_find_every_name_in_order);
    RUN(test_large_sets_compare_in_any_order);
    RUN(test_item_size_follows_aws_rules);
    RUN(test_item_size_rule_allows_400_kb_and_words_each_refusal);
    RUN(test_number_size_ignores_leading_and_trailing_zeros);
    RUN(test_stored_item_is_its_encoding_equal_to_its_tree);
    return check_report();
}
