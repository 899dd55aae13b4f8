/*
 * test_item_encoding.c - unit tests for storage/model/item_encoding.c and name_dict.c.
 *
 * Numbers: a table of valid numbers in ascending order, whose comparable
 * forms must sort the same way under memcmp (shorter prefix first) and come
 * back as the same number. Items: every attribute type, round-tripped with
 * and without a name dictionary; every truncation of an encoding must be
 * refused, not read past its end. Sizes read from the encoding
 * (enc_value_size_bytes) and item_project are checked against the tree's
 * sizes and item_new's bytes on random items.
 */
#include "storage/model/item.h"
#include "storage/model/item_encoding.h"
#include "storage/tests/check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct number must_parse(const char *text)
{
    struct ddb_error err = {0};
    struct number n;
    if (number_parse(text, strlen(text), &n, &err) != 0) {
        fprintf(stderr, "bad number %s\n", text);
        abort();
    }
    return n;
}

/* memcmp order with the shorter of two equal prefixes first. */
static int bytes_compare(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c) return c;
    return an < bn ? -1 : an > bn ? 1 : 0;
}

static const char *const ascending[] = {
    "-9.9999999999999999999999999999999999999E+125",
    "-12345678901234567890123456789012345678",
    "-1e20",
    "-123.45",
    "-123.4",
    "-12",
    "-10",
    "-9.5",
    "-1.05",
    "-1",
    "-0.15",
    "-0.123",
    "-0.12",
    "-0.1",
    "-1e-130",
    "0",
    "1e-130",
    "0.1",
    "0.105",
    "0.12",
    "0.123",
    "1",
    "1.05",
    "9.5",
    "10",
    "12",
    "123.4",
    "123.45",
    "1700000000123",
    "1e20",
    "12345678901234567890123456789012345678",
    "9.9999999999999999999999999999999999999E+125",
};

static void test_number_order_and_round_trip(void)
{
    size_t count = sizeof ascending / sizeof *ascending;
    uint8_t bytes[sizeof ascending / sizeof *ascending][NUMBER_COMPARABLE_MAX];
    size_t lens[sizeof ascending / sizeof *ascending];

    for (size_t i = 0; i < count; i++) {
        struct number n = must_parse(ascending[i]), back;
        lens[i] = number_to_comparable(&n, bytes[i]);
        CHECK(lens[i] <= NUMBER_COMPARABLE_MAX);
        CHECK(number_from_comparable(bytes[i], lens[i], &back));
        CHECK_INT_EQ(number_compare(&n, &back), 0);
        CHECK(memcmp(&n, &back, sizeof n) == 0);
        /* The answer writers' direct path gives number_format's text. */
        char want[NUMBER_TEXT_MAX], got[NUMBER_TEXT_MAX];
        size_t want_len = number_format(&n, want, sizeof want);
        CHECK_INT_EQ(enc_number_text(bytes[i], lens[i], got), want_len);
        CHECK_STR_EQ(got, want);
    }
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < count; j++) {
            int want = i < j ? -1 : i > j ? 1 : 0;
            int got = bytes_compare(bytes[i], lens[i], bytes[j], lens[j]);
            got = got < 0 ? -1 : got > 0 ? 1 : 0;
            if (got != want) fprintf(stderr, "%s vs %s\n", ascending[i], ascending[j]);
            CHECK_INT_EQ(got, want);
        }
    }
    /* Equal numbers written differently have equal bytes. */
    struct number a = must_parse("1.50"), b = must_parse("15e-1");
    uint8_t ab[NUMBER_COMPARABLE_MAX], bb[NUMBER_COMPARABLE_MAX];
    size_t al = number_to_comparable(&a, ab), bl = number_to_comparable(&b, bb);
    CHECK(al == bl && memcmp(ab, bb, al) == 0);
}

static void test_number_rejects_damage(void)
{
    struct number n;
    static const uint8_t bad[][4] = {
        {3, 0x81, 0x20, 0}, /* unknown class */
        {2, 0x81, 0x10, 0}, /* leading zero digit */
        {2, 0x81, 0x21, 0}, /* trailing zero digit */
        {2, 0x81, 0xB0, 0}, /* digit nibble 11 */
        {2, 0x81, 0x02, 0}, /* no first digit */
        {0, 0x7E, 0xDF, 0}, /* negative without terminator */
    };
    static const size_t lens[] = {3, 3, 3, 3, 3, 3};
    char text[NUMBER_TEXT_MAX];
    for (size_t i = 0; i < sizeof lens / sizeof *lens; i++) {
        CHECK(!number_from_comparable(bad[i], lens[i], &n));
        CHECK_INT_EQ(enc_number_text(bad[i], lens[i], text), 0);
    }
    uint8_t pad_mid[] = {2, 0x81, 0x20, 0x23};
    CHECK(!number_from_comparable(pad_mid, sizeof pad_mid, &n));
    CHECK_INT_EQ(enc_number_text(pad_mid, sizeof pad_mid, text), 0);
    uint8_t zero[] = {1};
    CHECK(number_from_comparable(zero, 1, &n) && n.digit_count == 0);
}

/* xorshift64: the same pseudo-random inputs on every run. */
static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

/* Random byte strings shaped like comparable numbers (a class byte, an
 * exponent, digit bytes mostly valid, a negative's terminator mostly there):
 * enc_number_text takes exactly what number_from_comparable takes, and its
 * text is number_format's. */
static void test_number_text_accepts_what_decodes(void)
{
    uint64_t state = 0x2545F4914F6CDD1DULL;
    size_t valid = 0;

    for (int n = 0; n < 200000; n++) {
        uint8_t b[NUMBER_COMPARABLE_MAX + 2];
        size_t len = 1 + next_random(&state) % (sizeof b);
        uint64_t r = next_random(&state);
        b[0] = r % 16 == 0 ? (uint8_t) (r >> 8) : (uint8_t) (r % 2 ? 0 : 2);
        for (size_t i = 1; i < len; i++) {
            uint64_t x = next_random(&state);
            uint8_t hi = (uint8_t) (1 + x % 10), lo = (uint8_t) (1 + (x >> 8) % 10);
            if (x % 97 == 0) hi = (uint8_t) ((x >> 16) % 16);
            if (x % 89 == 0 || (i + 1 == len && x % 3 == 0)) lo = (uint8_t) ((x >> 24) % 16);
            b[i] = (uint8_t) (hi << 4 | lo);
            if (b[0] == 0) b[i] ^= 0xFF;
        }
        if (len > 1) b[1] = (uint8_t) (r >> 16);
        if (b[0] == 0 && r % 8) b[len - 1] = 0xFF;

        struct number num;
        char want[NUMBER_TEXT_MAX], got[NUMBER_TEXT_MAX + 8];
        bool ok = number_from_comparable(b, len, &num);
        size_t got_len = enc_number_text(b, len, got);
        CHECK_INT_EQ(got_len != 0, ok);
        if (ok && got_len) {
            valid++;
            CHECK_INT_EQ(got_len, number_format(&num, want, sizeof want));
            CHECK_STR_EQ(got, want);
        }
    }
    CHECK(valid > 10000); /* the shapes reach the valid forms, not only damage */
}

static void set_str(struct value *m, const char *name, enum value_type t, const char *text)
{
    struct value v;
    if (t == VALUE_N)
        value_init_number_text(&v, text, strlen(text));
    else if (t == VALUE_B)
        value_init_binary(&v, text, strlen(text));
    else
        value_init_string(&v, text, strlen(text));
    value_map_set(m, name, strlen(name), &v);
}

/* An item with every type, nested containers, a NUL in a name and a string. */
static void sample_item(struct value *m)
{
    struct value v, e, inner;
    value_init_map(m);
    set_str(m, "pk", VALUE_S, "user#1");
    set_str(m, "sk", VALUE_N, "-12.5");
    set_str(m, "bin", VALUE_B, "\x01\x02");
    value_init_bool(&v, true);
    value_map_set(m, "t", 1, &v);
    value_init_bool(&v, false);
    value_map_set(m, "f", 1, &v);
    value_init_null(&v);
    value_map_set(m, "nul\0l", 5, &v);
    value_init_string(&v, "a\0b", 3);
    value_map_set(m, "zero", 4, &v);

    value_init_map(&inner);
    set_str(&inner, "x", VALUE_N, "0");
    value_init_list(&e, VALUE_L);
    value_init_string(&v, "in list", 7);
    value_list_append(&e, &v);
    value_init_null(&v);
    value_list_append(&e, &v);
    value_map_set(&inner, "l", 1, &e);
    value_map_set(m, "map", 3, &inner);

    value_init_list(&e, VALUE_NS);
    for (const char *const *n = (const char *const[]){"3", "-1", "10.5", NULL}; *n; n++) {
        value_init_number_text(&v, *n, strlen(*n));
        value_list_append(&e, &v);
    }
    CHECK(value_set_sort(&e));
    value_map_set(m, "ns", 2, &e);
    value_init_list(&e, VALUE_SS);
    for (const char *const *s = (const char *const[]){"b", "a", NULL}; *s; s++) {
        value_init_string(&v, *s, 1);
        value_list_append(&e, &v);
    }
    CHECK(value_set_sort(&e));
    value_map_set(m, "ss", 2, &e);
    value_init_list(&e, VALUE_BS);
    value_init_binary(&v, "\xff", 1);
    value_list_append(&e, &v);
    value_map_set(m, "bs", 2, &e);
    value_init_list(&e, VALUE_L);
    value_map_set(m, "empty", 5, &e);
}

/* Round trip of the sample through the encoding (with dict, or inline names). */
static void round_trip(struct name_dict *dict)
{
    struct value item, back;
    struct text_buf b = {0};

    sample_item(&item);
    item_encode(&b, &item, dict);
    CHECK(item_decode(b.data, b.len, dict, &back));
    CHECK(value_equal(&item, &back));
    /* The same into an arena: equal, and findable by name in its maps. */
    struct decode_arena arena;
    struct value in_arena;
    decode_arena_init(&arena);
    for (int pass = 0; pass < 3; pass++) { /* reset reuses the arena's block */
        CHECK(item_decode_in(&arena, b.data, b.len, dict, &in_arena));
        CHECK(value_equal(&item, &in_arena));
        CHECK(value_map_get(&in_arena, "map", 3) != NULL);
        decode_arena_reset(&arena);
    }
    for (size_t len = 0; len < b.len; len++) {
        CHECK(!item_decode_in(&arena, b.data, len, dict, &in_arena));
        CHECK(in_arena.type == VALUE_NULL);
        decode_arena_reset(&arena);
    }
    decode_arena_clear(&arena);
    /* The order of attributes is kept, not only the set of them. */
    for (size_t i = 0; i < item.u.map.count && i < back.u.map.count; i++)
        CHECK(item.u.map.attrs[i].name_len == back.u.map.attrs[i].name_len &&
              memcmp(item.u.map.attrs[i].name, back.u.map.attrs[i].name,
                     item.u.map.attrs[i].name_len) == 0);
    value_clear(&back);

    /* Every truncation, and one byte more, is refused without a read past the end. */
    for (size_t len = 0; len < b.len; len++) {
        char *copy = malloc(len ? len : 1);
        memcpy(copy, b.data, len);
        CHECK(!item_decode(copy, len, dict, &back));
        CHECK(back.type == VALUE_NULL);
        free(copy);
    }
    /* Self-delimiting: its length is found from the bytes, whatever follows. */
    CHECK_INT_EQ(item_encoded_length(b.data, b.len, dict), b.len);
    text_buf_add(&b, "\x06", 1);
    CHECK_INT_EQ(item_encoded_length(b.data, b.len, dict), b.len - 1);
    CHECK_INT_EQ(item_encoded_length(b.data, b.len - 2, dict), 0);
    CHECK(!item_decode(b.data, b.len, dict, &back));

    value_clear(&item);
    text_buf_clear(&b);
}

static void test_item_round_trip(void)
{
    struct name_dict *dict = name_dict_new();
    round_trip(NULL);
    round_trip(dict);
    round_trip(dict); /* the names are known now: ids only */
    CHECK_INT_EQ(name_dict_count(dict), 12);
    name_dict_unref(dict);
}

/* An empty item into a fresh arena (nothing to allocate: fuzz_item_codec's first find). */
static void test_arena_empty_item(void)
{
    struct value empty, back;
    struct text_buf b = {0};
    struct decode_arena arena;

    value_init_map(&empty);
    item_encode(&b, &empty, NULL);
    decode_arena_init(&arena);
    CHECK(item_decode_in(&arena, b.data, b.len, NULL, &back));
    CHECK(back.type == VALUE_M && back.u.map.count == 0);
    decode_arena_clear(&arena);
    text_buf_clear(&b);
}

static void test_interned_names_are_smaller(void)
{
    struct name_dict *dict = name_dict_new();
    struct value item;
    struct text_buf inline_form = {0}, interned = {0};

    sample_item(&item);
    item_encode(&inline_form, &item, NULL);
    item_encode(&interned, &item, dict);
    CHECK(interned.len < inline_form.len);
    /* An id stays readable while an item holds a reference, after the table's is gone. */
    struct name_dict *held = name_dict_ref(dict);
    name_dict_unref(dict);
    struct value back;
    CHECK(item_decode(interned.data, interned.len, held, &back));
    CHECK(value_equal(&item, &back));
    value_clear(&back);
    /* An id the dictionary does not have is damage. */
    CHECK(!item_decode(interned.data, interned.len, NULL, &back));
    name_dict_unref(held);
    value_clear(&item);
    text_buf_clear(&inline_form);
    text_buf_clear(&interned);
}

static void test_dict_ids_and_limit(void)
{
    struct name_dict *d = name_dict_new();
    uint32_t a, b, again, found;
    size_t len;
    char name[16];

    CHECK(name_dict_intern(d, "alpha", 5, &a));
    CHECK(name_dict_intern(d, "beta", 4, &b));
    CHECK(name_dict_intern(d, "alpha", 5, &again));
    CHECK(a != b && a == again);
    CHECK(name_dict_find(d, "beta", 4, &found) && found == b);
    CHECK(!name_dict_find(d, "gamma", 5, &found));
    CHECK(memcmp(name_dict_name(d, b, &len), "beta", 4) == 0 && len == 4);
    /* An entry knows whether an answer may copy its name without a look. */
    CHECK(name_dict_entry_of(d, b)->plain && name_dict_entry_of(d, b)->len == 4);
    CHECK(name_dict_chunk(d, 0) == name_dict_entry_of(d, a));
    {
        const char *looked_at[] = {"a\"b", "a\\b", "tab\t", "caf\xc3\xa9"};
        for (size_t i = 0; i < sizeof looked_at / sizeof *looked_at; i++) {
            CHECK(name_dict_intern(d, looked_at[i], strlen(looked_at[i]), &found));
            CHECK(!name_dict_entry_of(d, found)->plain);
        }
    }
    /* Past NAME_DICT_MAX_NAMES interning refuses; the encoder then writes names inline. */
    for (unsigned i = 6; i < NAME_DICT_MAX_NAMES; i++) {
        int n = snprintf(name, sizeof name, "n%u", i);
        CHECK(name_dict_intern(d, name, (size_t) n, &found));
    }
    CHECK_INT_EQ(name_dict_count(d), NAME_DICT_MAX_NAMES);
    CHECK(!name_dict_intern(d, "one more", 8, &found));
    CHECK(name_dict_intern(d, "alpha", 5, &found) && found == a);

    struct value item, back;
    struct text_buf buf = {0};
    value_init_map(&item);
    set_str(&item, "one more", VALUE_S, "v");
    set_str(&item, "alpha", VALUE_S, "w");
    item_encode(&buf, &item, d);
    CHECK(item_decode(buf.data, buf.len, d, &back));
    CHECK(value_equal(&item, &back));
    value_clear(&back);
    value_clear(&item);
    text_buf_clear(&buf);
    name_dict_unref(d);
}

/* Lookups take no lock while writers add (name_dict.c): readers running
 * beside two interning threads - which grow the hash several times - find
 * every name a writer has published, with its id, and never a wrong one.
 * In the ThreadSanitizer list (scripts/test). */
#define DICT_WRITERS 2
#define DICT_NAMES   3000

struct dict_run {
    struct name_dict *d;
    int writer;
    _Atomic int published; /* names of this writer interned so far */
    uint32_t ids[DICT_NAMES];
    struct dict_run *runs; /* every writer's run, for the readers */
    _Atomic bool *done;
    bool bad;
};

static void *dict_writer(void *arg)
{
    struct dict_run *r = arg;
    char name[32];
    for (int i = 0; i < DICT_NAMES; i++) {
        int n = snprintf(name, sizeof name, "w%d-%d", r->writer, i);
        if (!name_dict_intern(r->d, name, (size_t) n, &r->ids[i])) r->bad = true;
        atomic_store_explicit(&r->published, i + 1, memory_order_release);
    }
    return NULL;
}

static void *dict_reader(void *arg)
{
    struct dict_run *r = arg;
    char name[32];
    unsigned x = 7;
    while (!atomic_load(r->done)) {
        for (int w = 0; w < DICT_WRITERS; w++) {
            struct dict_run *wr = &r->runs[w];
            int have = atomic_load_explicit(&wr->published, memory_order_acquire);
            uint32_t id;
            size_t len;
            if (!have) continue;
            x = x * 1103515245u + 12345u;
            int i = (int) (x % (unsigned) have);
            int n = snprintf(name, sizeof name, "w%d-%d", w, i);
            if (!name_dict_find(r->d, name, (size_t) n, &id) || id != wr->ids[i]) r->bad = true;
            const char *back = name_dict_name(r->d, id, &len);
            if (len != (size_t) n || memcmp(back, name, len) != 0) r->bad = true;
        }
        if (name_dict_find(r->d, "never added", 11, &(uint32_t){0})) r->bad = true;
    }
    return NULL;
}

/* One race of two writers and two readers over a fresh dictionary. */
static void dict_race_once(void)
{
    struct name_dict *d = name_dict_new();
    struct dict_run runs[DICT_WRITERS + 2];
    _Atomic bool done = false;
    pthread_t threads[DICT_WRITERS + 2];

    memset(runs, 0, sizeof runs);
    for (int i = 0; i < DICT_WRITERS + 2; i++) {
        runs[i].d = d;
        runs[i].writer = i;
        runs[i].runs = runs;
        runs[i].done = &done;
    }
    for (int i = 0; i < DICT_WRITERS + 2; i++)
        pthread_create(&threads[i], NULL, i < DICT_WRITERS ? dict_writer : dict_reader, &runs[i]);
    for (int i = 0; i < DICT_WRITERS; i++)
        pthread_join(threads[i], NULL);
    atomic_store(&done, true);
    for (int i = DICT_WRITERS; i < DICT_WRITERS + 2; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < DICT_WRITERS + 2; i++)
        CHECK(!runs[i].bad);
    CHECK_INT_EQ(name_dict_count(d), DICT_WRITERS * DICT_NAMES);
    name_dict_unref(d);
}

/* Raced many times: a lookup that read its empty slot twice (a writer could
 * fill it with another name in between) failed about one race in twenty. */
#define DICT_RACES 40

static void test_dict_lookups_without_lock_beside_writers(void)
{
    for (int i = 0; i < DICT_RACES; i++)
        dict_race_once();
}

/* Items made and read on threads that come and go: each thread's scratch
 * (its decode arena, memo and encoder buffer: item.c) is its own, trees
 * decoded before a mark survive its release, and a thread's exit frees
 * its scratch (LeakSanitizer reports it otherwise in the sanitizer build). */
static void *item_thread(void *arg)
{
    bool *bad = arg;
    char text[32];
    for (int i = 0; i < 500; i++) {
        struct value m, v;
        value_init_map(&m);
        int n = snprintf(text, sizeof text, "%d", i);
        value_init_number_text(&v, text, (size_t) n);
        value_map_set(&m, "pk", 2, &v);
        value_init_string(&v, "body", 4);
        value_map_set(&m, "thread-name", 11, &v);
        struct item *item = item_new(&m);
        const struct value *before = item_attrs(item);
        struct decode_mark mark = item_scratch_mark();
        const struct value *pk = item_get_cstr(item, "pk");
        if (!pk || pk->type != VALUE_N || strcmp(pk->u.str.data, text) != 0) *bad = true;
        item_scratch_release(mark);
        /* Decoded before the mark: still whole after its release. */
        const struct value *name = value_map_get(before, "thread-name", 11);
        if (!name || strcmp(name->u.str.data, "body") != 0) *bad = true;
        if (i % 100 == 99) item_scratch_reset();
        item_unref(item);
    }
    return NULL;
}

static void test_items_on_threads_that_come_and_go(void)
{
    pthread_t threads[4];
    bool bad[4] = {false};
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 4; i++)
            pthread_create(&threads[i], NULL, item_thread, &bad[i]);
        for (int i = 0; i < 4; i++)
            pthread_join(threads[i], NULL);
    }
    for (int i = 0; i < 4; i++)
        CHECK(!bad[i]);
}

/* A map large enough to carry value_map_find's index, and more than a
 * first arena block of data: found by name after decoding into an arena. */
static void test_arena_large_map(void)
{
    struct value item, inner, v, back;
    struct text_buf b = {0};
    struct decode_arena arena;
    char name[16];

    value_init_map(&item);
    value_init_map(&inner);
    for (int i = 0; i < 40; i++) {
        int n = snprintf(name, sizeof name, "k%d", i);
        value_init_number_text(&v, name + 1, strlen(name + 1));
        value_map_set(&inner, name, (size_t) n, &v);
        char big[300];
        memset(big, 'a' + i % 26, sizeof big);
        value_init_string(&v, big, sizeof big);
        value_map_set(&item, name, (size_t) n, &v);
    }
    value_map_set(&item, "inner", 5, &inner);
    /* A list whose body needs a 3-byte length (over 16 KB) inside a map. */
    struct value list, wrap;
    value_init_list(&list, VALUE_L);
    for (int i = 0; i < 200; i++) {
        char text[100];
        memset(text, 'x', sizeof text);
        value_init_string(&v, text, sizeof text);
        value_list_append(&list, &v);
    }
    value_init_map(&wrap);
    value_map_set(&wrap, "list", 4, &list);
    value_map_set(&item, "wrap", 4, &wrap);
    item_encode(&b, &item, NULL);
    CHECK(item_decode(b.data, b.len, NULL, &v));
    CHECK(value_equal(&item, &v));
    value_clear(&v);
    decode_arena_init(&arena);
    CHECK(item_decode_in(&arena, b.data, b.len, NULL, &back));
    CHECK(value_equal(&item, &back));
    const struct value *in = value_map_get(&back, "inner", 5);
    CHECK(in && in->type == VALUE_M);
    const struct value *k33 = in ? value_map_get(in, "k33", 3) : NULL;
    CHECK(k33 && k33->type == VALUE_N && k33->u.str.len == 2 &&
          memcmp(k33->u.str.data, "33", 2) == 0);
    CHECK(value_map_get(&back, "k39", 3) != NULL);
    CHECK(value_map_get(&back, "k40", 3) == NULL);
    decode_arena_clear(&arena);
    value_clear(&item);
    text_buf_clear(&b);
}

static void test_cursor_skips_values(void)
{
    struct name_dict *dict = name_dict_new();
    struct value item, one;
    struct text_buf b = {0};
    struct enc_cursor c;
    struct enc_attr a;
    size_t seen = 0;

    sample_item(&item);
    item_encode(&b, &item, dict);
    enc_cursor_init(&c, b.data, b.len, dict);
    while (enc_cursor_next(&c, &a)) {
        const struct value *want = value_map_get(&item, a.name, a.name_len);
        CHECK(want != NULL);
        CHECK(enc_value_decode(a.type, a.value, a.value_len, &one));
        CHECK(want && value_equal(want, &one));
        value_clear(&one);
        seen++;
    }
    CHECK(!c.bad);
    CHECK_INT_EQ(seen, item.u.map.count);
    value_clear(&item);
    text_buf_clear(&b);
    name_dict_unref(dict);
}

/* Marks nest; a release forgets only what came after its mark, and a loop
 * that marks and releases around each item keeps the arena's size. */
static void test_arena_marks(void)
{
    struct value item, first, inner, back;
    struct text_buf b;
    struct decode_arena arena;
    struct decode_mark outer, m;

    text_buf_init(&b);
    sample_item(&item);
    item_encode(&b, &item, NULL);
    decode_arena_init(&arena);
    CHECK(item_decode_in(&arena, b.data, b.len, NULL, &first));
    outer = decode_arena_mark(&arena);
    for (int i = 0; i < 200; i++) { /* many decodes after the outer mark */
        m = decode_arena_mark(&arena);
        CHECK(item_decode_in(&arena, b.data, b.len, NULL, &inner));
        CHECK(item_decode_in(&arena, b.data, b.len, NULL, &back));
        CHECK(value_equal(&inner, &back));
        decode_arena_release(&arena, m);
        /* Back where the mark was: the loop does not grow the arena. */
        CHECK(arena.blocks == m.block && arena.next == m.next);
    }
    for (int i = 0; i < 50; i++) /* grows past several blocks */
        CHECK(item_decode_in(&arena, b.data, b.len, NULL, &inner));
    decode_arena_release(&arena, outer);
    CHECK(value_equal(&first, &item)); /* decoded before the mark: still there */
    CHECK(item_decode_in(&arena, b.data, b.len, NULL, &back));
    CHECK(value_equal(&first, &back));
    decode_arena_clear(&arena);
    value_clear(&item);
    text_buf_clear(&b);
}

/* ---- sizes read from the encoding, projections of top-level names ---- */

/* A random valid number's canonical text: 1..38 significant digits (none
 * for zero), any exponent of DynamoDB's range, either sign. */
static void random_number(uint64_t *state, struct value *out)
{
    struct number n = {0};
    char text[NUMBER_TEXT_MAX];
    uint64_t r = next_random(state);

    if (r % 10 != 0) {
        n.digit_count = (uint8_t) (1 + next_random(state) % DDB_NUMBER_MAX_DIGITS);
        for (size_t i = 0; i < n.digit_count; i++)
            n.digits[i] = (uint8_t) (next_random(state) % 10);
        if (n.digits[0] == 0) n.digits[0] = 1;
        if (n.digits[n.digit_count - 1] == 0) n.digits[n.digit_count - 1] = 9;
        n.negative = (r >> 8) % 2;
        n.exponent = (int16_t) ((int) ((r >> 16) % 256) - 129); /* -129..126 */
    }
    size_t len = number_format(&n, text, sizeof text);
    value_init_number_text(out, text, len);
}

static void random_bytes(uint64_t *state, char *buf, size_t *len)
{
    *len = next_random(state) % 12;
    for (size_t i = 0; i < *len; i++)
        buf[i] = (char) next_random(state);
}

/* A random value of any type, containers down to depth levels. */
static void random_value(uint64_t *state, int depth, struct value *out)
{
    char buf[16];
    size_t len, count;
    struct value v;
    unsigned type = (unsigned) (next_random(state) % (depth > 0 ? 11 : 8));

    switch (type) {
    case 0:
        random_bytes(state, buf, &len);
        value_init_string(out, buf, len);
        return;
    case 1:
        random_bytes(state, buf, &len);
        value_init_binary(out, buf, len);
        return;
    case 2:
    case 3: random_number(state, out); return;
    case 4: value_init_bool(out, next_random(state) % 2); return;
    case 5: value_init_null(out); return;
    case 6:
    case 7: { /* a set of distinct members */
        static const enum value_type set_types[] = {VALUE_SS, VALUE_NS, VALUE_BS};
        enum value_type t = set_types[next_random(state) % 3];
        value_init_list(out, t);
        count = 1 + next_random(state) % 5;
        for (size_t i = 0; i < count; i++) {
            len = (size_t) snprintf(buf, sizeof buf, "%zu%u", i,
                                    (unsigned) (next_random(state) % 1000) * 10 + 1);
            if (t == VALUE_NS)
                value_init_number_text(&v, buf, len);
            else if (t == VALUE_SS)
                value_init_string(&v, buf, len);
            else
                value_init_binary(&v, buf, len);
            value_list_append(out, &v);
        }
        CHECK(value_set_sort(out));
        return;
    }
    case 8:
    case 9:
        value_init_list(out, VALUE_L);
        count = next_random(state) % 5;
        for (size_t i = 0; i < count; i++) {
            random_value(state, depth - 1, &v);
            value_list_append(out, &v);
        }
        return;
    default:
        value_init_map(out);
        count = next_random(state) % 5;
        for (size_t i = 0; i < count; i++) {
            len = (size_t) snprintf(buf, sizeof buf, "k%zu", i * (1 + next_random(state) % 30));
            random_value(state, depth - 1, &v);
            value_map_set(out, buf, len, &v);
        }
        return;
    }
}

/* A random item of up to 12 attributes named a0..a11 (some left out). */
static void random_item(uint64_t *state, struct value *out)
{
    value_init_map(out);
    for (size_t i = 0; i < 12; i++) {
        char name[8];
        struct value v;
        if (next_random(state) % 3 == 0) continue;
        random_value(state, 3, &v);
        value_map_set(out, name, (size_t) snprintf(name, sizeof name, "a%zu", i), &v);
    }
}

/* enc_value_size_bytes of every attribute of random items is value_size_bytes
 * of the value it encodes, and an item's size from the encoding its own. */
static void test_size_from_encoding(void)
{
    uint64_t state = 0x9E3779B97F4A7C15ULL;

    for (int n = 0; n < 3000; n++) {
        struct value m;
        struct text_buf b = {0};
        struct enc_cursor c;
        struct enc_attr at;
        size_t i = 0, total = 0;

        random_item(&state, &m);
        item_encode(&b, &m, NULL);
        enc_cursor_init(&c, b.data, b.len, NULL);
        while (enc_cursor_next(&c, &at)) {
            struct enc_value v = {at.type, at.value, at.value_len};
            size_t want = value_size_bytes(&m.u.map.attrs[i++].value);
            CHECK_INT_EQ(enc_value_size_bytes(&v), want);
            total += at.name_len + enc_value_size_bytes(&v);
        }
        CHECK(!c.bad && i == m.u.map.count);
        CHECK_INT_EQ(total, item_attrs_size_bytes(&m));
        value_clear(&m);
        text_buf_clear(&b);
    }
}

/* got (a reference, dropped) has want's bytes and size (want's reference is dropped too). */
static void check_same_item(struct item *got, struct item *want)
{
    CHECK_INT_EQ(got->encoded_len, want->encoded_len);
    CHECK(got->encoded_len == want->encoded_len &&
          memcmp(got->encoded, want->encoded, want->encoded_len) == 0);
    CHECK_INT_EQ(got->size_bytes, want->size_bytes);
    item_unref(got);
    item_unref(want);
}

/* item_project of random items, names asked in a random order (some the
 * item lacks), is the item item_new makes of those attributes in that
 * order: the same bytes and size. */
static void test_item_project(void)
{
    uint64_t state = 0xD1B54A32D192ED03ULL;

    for (int n = 0; n < 2000; n++) {
        const char *names[20];
        size_t lens[20], count = next_random(&state) % 20;
        char name_buf[20][8];
        struct value m, want_attrs;
        struct item *item, *got, *want;

        random_item(&state, &m);
        value_init_map(&want_attrs);
        for (size_t k = 0; k < count; k++) { /* distinct: a0..a19 from a random start */
            lens[k] = (size_t) snprintf(name_buf[k], sizeof name_buf[k], "a%zu", (k + n) % 20);
            names[k] = name_buf[k];
            const struct value *v = value_map_get(&m, names[k], lens[k]);
            struct value copy;
            if (!v) continue;
            value_copy(&copy, v);
            value_map_append(&want_attrs, names[k], lens[k], &copy);
        }
        item = item_new(&m);
        want = item_new(&want_attrs);
        got = item_project(item, names, lens, count);
        check_same_item(got, want);
        item_unref(item);
    }
    /* 150 kept of 200: a count of two bytes, the names' slots on the heap. */
    static char many[200][8];
    const char *names[150];
    size_t lens[150];
    struct value m, want_attrs;
    value_init_map(&m);
    value_init_map(&want_attrs);
    for (size_t k = 0; k < 200; k++) {
        struct value v;
        size_t len = (size_t) snprintf(many[k], sizeof many[k], "n%zu", k);
        value_init_number_text(&v, many[k] + 1, len - 1);
        value_map_append(&m, many[k], len, &v);
    }
    for (size_t k = 0; k < 150; k++) {
        struct value copy;
        names[k] = many[199 - k];
        lens[k] = strlen(names[k]);
        value_copy(&copy, value_map_get(&m, names[k], lens[k]));
        value_map_append(&want_attrs, names[k], lens[k], &copy);
    }
    struct item *item = item_new(&m), *want = item_new(&want_attrs);
    check_same_item(item_project(item, names, lens, 150), want);
    item_unref(item);
}

int main(void)
{
    RUN(test_number_order_and_round_trip);
    RUN(test_number_rejects_damage);
    RUN(test_number_text_accepts_what_decodes);
    RUN(test_item_round_trip);
    RUN(test_interned_names_are_smaller);
    RUN(test_dict_ids_and_limit);
    RUN(test_cursor_skips_values);
    RUN(test_arena_large_map);
    RUN(test_arena_empty_item);
    RUN(test_arena_marks);
    RUN(test_dict_lookups_without_lock_beside_writers);
    RUN(test_items_on_threads_that_come_and_go);
    RUN(test_size_from_encoding);
    RUN(test_item_project);
    return check_report();
}
