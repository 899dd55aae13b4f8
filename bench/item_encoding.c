/*
 * item_encoding.c - what the compact item encoding (issue 26) costs and
 * saves on bench/run's chat item, against the tree form it replaced as the
 * stored item (bench/README.md, "Memory per item").
 *
 *   item_encoding [--iterations 100000] [--smoke]
 *
 * Prints, for item 12345 of workload.h's data set: the DynamoDB size; the
 * bytes and glibc chunk of the former block (a header + value_compact_copy
 * of the tree) and of an encoded item (struct item's 12-byte header -
 * refcount, DynamoDB size, length - and the encoding, docs/architecture.md)
 * with names inline and interned; then the time
 * per item of the operations a table would do with each form: storing
 * (item_new, which encodes, against the tree copy it replaced), decoding the encoding to a tree,
 * and writing the item's JSON (wire_value_write_map from the tree, wire_encoded_write_item from the
 * encoding, whole and projected to three names); and, for a Query answer of 50 chat items (~14 KB),
 * writing it from trees and from encodings, its x-amz-crc32 over the finished body, and the same
 * CRC computed piece by piece as each item is written (response_crc32_update). Each operation is
 * its own function, so under `valgrind --tool=callgrind` its instructions per call read off
 * directly (bench/README.md gives those, which do not move with the machine's load).
 * --smoke checks that every form gives the same JSON back and measures
 * nothing. Nothing here asserts a speed.
 */
#include "storage/model/item_encoding.h"

#include "bench/workload.h"

#include "api/http/response.h"
#include "api/wire/json_in.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/expr/expr.h"
#include "storage/expr/expr_legacy.h"
#include "storage/model/item.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENCODED_HEADER sizeof(struct item)
/* The former struct item: refcount, size_t size, the root struct value. */
#define TREE_HEADER (8 + sizeof(size_t) + sizeof(struct value))

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec * 1e9 + (double) ts.tv_nsec;
}

/* The chat item i as a decoded tree. */
static void chat_item(uint64_t i, struct value *out)
{
    struct text_buf body = {0};
    struct ddb_error err = {0};
    workload_body(&body, "bench", 1000000, OP_PUT, i, 1, false);
    json_t *req = json_in_load(body.data, body.len);
    if (!req || wire_item_from_json(json_object_get(req, "Item"), out, &err) != 0) {
        fprintf(stderr, "item_encoding: the chat item does not decode\n");
        exit(1);
    }
    json_decref(req);
    text_buf_clear(&body);
}

/* glibc's chunk for a request on x86-64: the request and its 8-byte size
 * word rounded up to 16, at least 32. Computed, not asked of malloc: a
 * freed larger chunk it hands back unsplit would overstate it. */
static size_t chunk_of(size_t request)
{
    size_t chunk = (request + 8 + 15) & ~(size_t) 15;
    return chunk < 32 ? 32 : chunk;
}

/* The stored block of an encoding of len bytes: the header and the
 * encoding, which is self-delimiting (item_encoded_length). */
static size_t encoded_block(size_t len)
{
    return ENCODED_HEADER + len;
}

__attribute__((noinline)) static struct item *store_tree(const struct value *tree)
{
    struct value copy;
    value_copy(&copy, tree);
    return item_new(&copy);
}

__attribute__((noinline)) static void *store_encoded(const struct value *tree,
                                                     struct name_dict *dict, struct text_buf *b)
{
    b->len = 0;
    item_encode(b, tree, dict);
    void *block = malloc(encoded_block(b->len));
    memcpy((char *) block + encoded_block(b->len) - b->len, b->data, b->len);
    return block;
}

__attribute__((noinline)) static void decode_encoded(const struct text_buf *b,
                                                     const struct name_dict *dict)
{
    struct value v;
    if (!item_decode(b->data, b->len, dict, &v)) abort();
    value_clear(&v);
}

__attribute__((noinline)) static void
decode_in_arena(struct decode_arena *a, const struct text_buf *b, const struct name_dict *dict)
{
    struct value v;
    if (!item_decode_in(a, b->data, b->len, dict, &v)) abort();
    decode_arena_reset(a);
}

__attribute__((noinline)) static void write_from_tree(struct json_out *w, const struct item *it)
{
    wire_value_write_map(w, item_attrs(it));
}

__attribute__((noinline)) static void
write_from_encoding(struct json_out *w, const struct text_buf *b, const struct name_dict *dict)
{
    if (!wire_encoded_write_item(w, b->data, b->len, dict, NULL)) abort();
}

/* The projection measured: three of the six names (a typical list view),
 * sorted as today's projected answers list them (expr_project). */
static const char *const projected_names[] = {"content", "createdAt", "senderId"};
static const size_t projected_lens[] = {7, 9, 8};

/* The tree the projection gives, for the tree writer (built once, outside
 * the timing: the tree path's projection itself, expr_project, costs more). */
static struct item *projected_tree(const struct value *tree)
{
    struct value m;
    value_init_map(&m);
    for (size_t i = 0; i < 3; i++) {
        struct value copy;
        value_copy(&copy, value_map_get(tree, projected_names[i], projected_lens[i]));
        value_map_append(&m, projected_names[i], projected_lens[i], &copy);
    }
    return item_new(&m);
}

/* Today's projected answer: expr_project copies the kept attributes into a
 * new tree, the tree writer writes it, the tree is freed. */
__attribute__((noinline)) static void
write_projected_tree(struct json_out *w, const struct expr *projection, const struct item *it)
{
    struct value out;
    expr_project(projection, item_attrs(it), &out);
    wire_value_write_map(w, &out);
    value_clear(&out);
}

__attribute__((noinline)) static void
write_projected_encoding(struct json_out *w, const struct text_buf *b, const struct name_dict *dict)
{
    static const struct wire_top_names keep = {projected_names, projected_lens, 3};
    if (!wire_encoded_write_item(w, b->data, b->len, dict, &keep)) abort();
}

/* ---- a Query answer ---- */

#define PAGE_ITEMS 50

static void page_head(struct json_out *w)
{
    json_out_object_begin(w);
    json_out_key(w, "Items");
    json_out_array_begin(w);
}

static void page_tail(struct json_out *w)
{
    json_out_array_end(w);
    json_out_key(w, "Count");
    json_out_integer(w, PAGE_ITEMS);
    json_out_key(w, "ScannedCount");
    json_out_integer(w, PAGE_ITEMS);
    json_out_object_end(w);
}

__attribute__((noinline)) static void write_page_from_trees(struct json_out *w,
                                                            struct item *const *items)
{
    page_head(w);
    for (size_t i = 0; i < PAGE_ITEMS; i++)
        wire_value_write_map(w, item_attrs(items[i]));
    page_tail(w);
}

__attribute__((noinline)) static void write_page_from_encodings(struct json_out *w,
                                                                const struct text_buf *encs,
                                                                const struct name_dict *dict)
{
    page_head(w);
    for (size_t i = 0; i < PAGE_ITEMS; i++) {
        if (!wire_encoded_write_item(w, encs[i].data, encs[i].len, dict, NULL)) abort();
    }
    page_tail(w);
}

/* The x-amz-crc32 as it is set today: over the finished body. */
__attribute__((noinline)) static uint32_t crc_of_body(const struct json_out *w)
{
    return response_crc32(w->data, w->len);
}

/* The same answer with its CRC computed as it is written: each item's bytes
 * while they are fresh in the cache (the finest grain that keeps the
 * fold's 64-byte blocks; per token would be a call per few bytes). */
__attribute__((noinline)) static uint32_t
write_page_with_crc(struct json_out *w, const struct text_buf *encs, const struct name_dict *dict)
{
    uint32_t crc = 0;
    size_t done = 0;

    page_head(w);
    for (size_t i = 0; i < PAGE_ITEMS; i++) {
        if (!wire_encoded_write_item(w, encs[i].data, encs[i].len, dict, NULL)) abort();
        crc = response_crc32_update(crc, w->data + done, w->len - done);
        done = w->len;
    }
    page_tail(w);
    return response_crc32_update(crc, w->data + done, w->len - done);
}

static char *json_of_tree(const struct item *it, size_t *len)
{
    struct json_out w;
    json_out_init(&w);
    wire_value_write_map(&w, item_attrs(it));
    return json_out_take(&w, len);
}

int main(int argc, char **argv)
{
    long iterations = 100000;
    bool smoke = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--smoke") == 0)
            smoke = true;
        else if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
            iterations = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: item_encoding [--iterations N] [--smoke]\n");
            return 2;
        }
    }

    struct value tree;
    struct name_dict *dict = name_dict_new();
    struct text_buf inline_form = {0}, interned = {0};
    chat_item(12345, &tree);
    struct item *stored = store_tree(&tree);
    item_encode(&inline_form, &tree, NULL);
    item_encode(&interned, &tree, dict);

    /* Every form writes the same JSON. */
    size_t want_len, got_len;
    char *want = json_of_tree(stored, &want_len);
    for (int form = 0; form < 2; form++) {
        struct json_out w;
        const struct text_buf *b = form ? &interned : &inline_form;
        json_out_init(&w);
        write_from_encoding(&w, b, form ? dict : NULL);
        char *got = json_out_take(&w, &got_len);
        if (got_len != want_len || memcmp(got, want, want_len) != 0) {
            fprintf(stderr, "item_encoding: the encoding writes other JSON:\n%s\n%s\n", want, got);
            return 1;
        }
        free(got);
    }
    free(want);

    /* The projection writes what the tree writer writes for the projected tree,
     * and what today's path (expr_project, then the tree writer) writes. */
    struct item *projected = projected_tree(&tree);
    struct expr *projection = NULL;
    struct ddb_error perr = {0};
    if (expr_legacy_projection(projected_names, projected_lens, 3, &projection, &perr) != 0) {
        fprintf(stderr, "item_encoding: the projection does not parse\n");
        return 1;
    }
    {
        struct json_out w;
        json_out_init(&w);
        write_projected_encoding(&w, &interned, dict);
        want = json_of_tree(projected, &want_len);
        char *got = json_out_take(&w, &got_len);
        size_t today_len;
        json_out_init(&w);
        write_projected_tree(&w, projection, stored);
        char *today = json_out_take(&w, &today_len);
        bool same_as_today = today_len == got_len && memcmp(today, got, got_len) == 0;
        free(today);
        if (got_len != want_len || memcmp(got, want, want_len) != 0 || !same_as_today) {
            fprintf(stderr, "item_encoding: the projection writes other JSON:\n%s\n%s\n", want,
                    got);
            return 1;
        }
        free(got);
        free(want);
    }

    /* A page of 50 items: both writers give the same body, and its CRC
     * computed piece by piece is the whole body's. */
    struct item *page_items[PAGE_ITEMS];
    struct text_buf page_encs[PAGE_ITEMS];
    for (size_t i = 0; i < PAGE_ITEMS; i++) {
        struct value t;
        chat_item(20000 + i, &t);
        text_buf_init(&page_encs[i]);
        item_encode(&page_encs[i], &t, dict);
        page_items[i] = item_new(&t);
    }
    size_t page_len;
    uint32_t page_crc;
    {
        struct json_out a, b;
        json_out_init(&a);
        json_out_init(&b);
        write_page_from_trees(&a, page_items);
        page_crc = write_page_with_crc(&b, page_encs, dict);
        if (a.len != b.len || memcmp(a.data, b.data, a.len) != 0 || page_crc != crc_of_body(&a)) {
            fprintf(stderr, "item_encoding: the page differs between the writers\n");
            return 1;
        }
        page_len = a.len;
        json_out_clear(&a);
        json_out_clear(&b);
    }
    if (smoke) {
        printf("item_encoding: every form writes the same JSON\n");
        goto out;
    }

    size_t block = TREE_HEADER + value_compact_size(&tree);
    printf("DynamoDB size                  %zu bytes\n", (size_t) stored->size_bytes);
    printf("tree block (before issue 26)   %zu bytes, chunk %zu\n", block, chunk_of(block));
    printf("encoded, names inline          %zu, block %zu, chunk %zu\n", inline_form.len,
           encoded_block(inline_form.len), chunk_of(encoded_block(inline_form.len)));
    printf("encoded, names interned        %zu, block %zu, chunk %zu\n", interned.len,
           encoded_block(interned.len), chunk_of(encoded_block(interned.len)));

    struct text_buf scratch = {0};
    struct json_out w;
    double t0 = now_ns();
    for (long i = 0; i < iterations; i++)
        item_unref(store_tree(&tree));
    double t1 = now_ns();
    for (long i = 0; i < iterations; i++)
        free(store_encoded(&tree, dict, &scratch));
    double t2 = now_ns();
    for (long i = 0; i < iterations; i++)
        decode_encoded(&interned, dict);
    double t3a = now_ns();
    struct decode_arena arena;
    decode_arena_init(&arena);
    for (long i = 0; i < iterations; i++)
        decode_in_arena(&arena, &interned, dict);
    decode_arena_clear(&arena);
    double t3 = now_ns();
    json_out_init(&w);
    for (long i = 0; i < iterations; i++) {
        json_out_clear(&w);
        json_out_init(&w);
        write_from_tree(&w, stored);
    }
    double t4 = now_ns();
    for (long i = 0; i < iterations; i++) {
        json_out_clear(&w);
        json_out_init(&w);
        write_from_encoding(&w, &interned, dict);
    }
    double t5 = now_ns();
    for (long i = 0; i < iterations; i++) {
        json_out_clear(&w);
        json_out_init(&w);
        write_from_tree(&w, projected);
    }
    double t6 = now_ns();
    for (long i = 0; i < iterations; i++) {
        json_out_clear(&w);
        json_out_init(&w);
        write_projected_encoding(&w, &interned, dict);
    }
    double t7 = now_ns();
    for (long i = 0; i < iterations; i++) {
        json_out_clear(&w);
        json_out_init(&w);
        write_projected_tree(&w, projection, stored);
    }
    double t7b = now_ns();
    long pages = iterations / PAGE_ITEMS > 0 ? iterations / PAGE_ITEMS : 1;
    volatile uint32_t sink = 0;
    for (long i = 0; i < pages; i++) {
        w.len = 0;
        w.need_comma = false;
        write_page_from_trees(&w, page_items);
    }
    double t8 = now_ns();
    for (long i = 0; i < pages; i++) {
        w.len = 0;
        w.need_comma = false;
        write_page_from_encodings(&w, page_encs, dict);
    }
    double t9 = now_ns();
    for (long i = 0; i < pages; i++)
        sink = sink ^ crc_of_body(&w);
    double t10 = now_ns();
    for (long i = 0; i < pages; i++) {
        w.len = 0;
        w.need_comma = false;
        sink = sink ^ write_page_with_crc(&w, page_encs, dict);
    }
    double t11 = now_ns();
    json_out_clear(&w);
    printf("store: item_new (encodes)      %.0f ns\n", (t1 - t0) / (double) iterations);
    printf("store: encode (interned)       %.0f ns\n", (t2 - t1) / (double) iterations);
    printf("decode encoding to a tree      %.0f ns\n", (t3a - t2) / (double) iterations);
    printf("decode into an arena           %.0f ns\n", (t3 - t3a) / (double) iterations);
    printf("JSON from the tree             %.0f ns\n", (t4 - t3) / (double) iterations);
    printf("JSON from the encoding         %.0f ns\n", (t5 - t4) / (double) iterations);
    printf("projected (3 names), tree      %.0f ns (write only), %.0f ns (expr_project + write)\n",
           (t6 - t5) / (double) iterations, (t7b - t7) / (double) iterations);
    printf("projected (3 names), encoding  %.0f ns\n", (t7 - t6) / (double) iterations);
    printf("page of %d items (%zu bytes):\n", PAGE_ITEMS, page_len);
    printf("  from the trees               %.0f ns\n", (t8 - t7b) / (double) pages);
    printf("  from the encodings           %.0f ns\n", (t9 - t8) / (double) pages);
    printf("  CRC32 of the finished body   %.0f ns\n", (t10 - t9) / (double) pages);
    printf("  encodings + CRC per item     %.0f ns\n", (t11 - t10) / (double) pages);
    text_buf_clear(&scratch);
out:
    for (size_t i = 0; i < PAGE_ITEMS; i++) {
        item_unref(page_items[i]);
        text_buf_clear(&page_encs[i]);
    }
    item_unref(projected);
    expr_free(projection);
    item_unref(stored);
    value_clear(&tree);
    text_buf_clear(&inline_form);
    text_buf_clear(&interned);
    name_dict_unref(dict);
    return 0;
}
