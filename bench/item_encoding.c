/*
 * item_encoding.c - what the compact item encoding (issue 26) costs and
 * saves on bench/run's chat item, against the stored form of today
 * (bench/README.md, "Memory per item").
 *
 *   item_encoding [--iterations 100000] [--smoke]
 *
 * Prints, for item 12345 of workload.h's data set: the DynamoDB size; the
 * bytes and glibc chunk of today's block (struct item + value_compact_copy)
 * and of an encoded item (a 16-byte header - the name dictionary's
 * pointer, refcount, DynamoDB size - and the self-delimiting encoding,
 * docs/architecture.md) with names inline and interned; then the time
 * per item of the operations a table would do with each form: storing
 * (item_new / item_encode), decoding the encoding to a tree, and writing
 * the item's JSON (wire_value_write_map from the tree, wire_encoded_write_item
 * from the encoding). Each operation is its own function, so under
 * `valgrind --tool=callgrind` its instructions per call read off directly
 * (bench/README.md gives those, which do not move with the machine's load).
 * --smoke checks that every form gives the same JSON back and measures
 * nothing. Nothing here asserts a speed.
 */
#include "storage/model/item_encoding.h"

#include "bench/workload.h"

#include "api/wire/json_in.h"
#include "api/wire/wire_encoded.h"
#include "api/wire/wire_value.h"
#include "storage/model/item.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ENCODED_HEADER 16

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
    wire_value_write_map(w, &it->attrs);
}

__attribute__((noinline)) static void
write_from_encoding(struct json_out *w, const struct text_buf *b, const struct name_dict *dict)
{
    if (!wire_encoded_write_item(w, b->data, b->len, dict, NULL)) abort();
}

static char *json_of_tree(const struct item *it, size_t *len)
{
    struct json_out w;
    json_out_init(&w);
    wire_value_write_map(&w, &it->attrs);
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
    if (smoke) {
        printf("item_encoding: every form writes the same JSON\n");
        goto out;
    }

    size_t block = sizeof(struct item) + value_compact_size(&tree);
    printf("DynamoDB size                  %zu bytes\n", stored->size_bytes);
    printf("tree block (today)             %zu bytes, chunk %zu\n", block, chunk_of(block));
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
    json_out_clear(&w);
    printf("store: tree copy (item_new)    %.0f ns\n", (t1 - t0) / (double) iterations);
    printf("store: encode (interned)       %.0f ns\n", (t2 - t1) / (double) iterations);
    printf("decode encoding to a tree      %.0f ns\n", (t3a - t2) / (double) iterations);
    printf("decode into an arena           %.0f ns\n", (t3 - t3a) / (double) iterations);
    printf("JSON from the tree             %.0f ns\n", (t4 - t3) / (double) iterations);
    printf("JSON from the encoding         %.0f ns\n", (t5 - t4) / (double) iterations);
    text_buf_clear(&scratch);
out:
    item_unref(stored);
    value_clear(&tree);
    text_buf_clear(&inline_form);
    text_buf_clear(&interned);
    name_dict_unref(dict);
    return 0;
}
