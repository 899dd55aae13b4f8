/*
 * test_vector.c - the distance functions and the exact search of a vector
 * index (storage/table/vector_distance.c, vector_index.c), against values
 * computed by hand: COSINE is 1 - cos (0 identical, 1 orthogonal or a zero
 * vector, 2 opposite), EUCLIDEAN the distance itself, DOT_PRODUCT the sum of
 * products; equal scores rank in table key order.
 */
#include "check.h"

#include "storage/base/alloc.h"
#include "storage/base/lock_check.h"
#include "storage/model/codec.h"
#include "storage/table/vector_distance.h"
#include "storage/table/vector_index.h"

#include <math.h>
#include <stdlib.h>

static double score3(enum distance_function f, const float *q, const float *v)
{
    return vector_score(f, q, vector_dot(q, q, 3), v, vector_dot(v, v, 3), 3);
}

static void test_cosine_hand_computed(void)
{
    const float x[3] = {1, 0, 0}, y[3] = {0, 1, 0}, minus_x[3] = {-1, 0, 0};
    const float diag[3] = {0.6f, 0.8f, 0}, far_x[3] = {10, 0, 0};

    CHECK(score3(DISTANCE_COSINE, x, x) == 0.0);
    CHECK(score3(DISTANCE_COSINE, x, far_x) == 0.0); /* cosine ignores length */
    CHECK(score3(DISTANCE_COSINE, x, y) == 1.0);
    CHECK(score3(DISTANCE_COSINE, x, minus_x) == 2.0);
    /* 1 - 0.6 / |(0.6, 0.8)|, with the f32 values of 0.6 and 0.8 (not exactly 1 long) */
    double len = sqrt((double) 0.6f * 0.6f + (double) 0.8f * 0.8f);
    CHECK(fabs(score3(DISTANCE_COSINE, x, diag) - (1.0 - (double) 0.6f / len)) < 1e-15);
    CHECK(fabs(score3(DISTANCE_COSINE, x, diag) - 0.4) < 1e-7);
}

static void test_self_match_is_exactly_zero(void)
{
    float v[37];
    for (int i = 0; i < 37; i++)
        v[i] = (float) (i * 0.37 - 5.1);
    CHECK(vector_score(DISTANCE_COSINE, v, vector_dot(v, v, 37), v, vector_dot(v, v, 37), 37) ==
          0.0);
    CHECK(vector_score(DISTANCE_EUCLIDEAN, v, 0, v, 0, 37) == 0.0);
}

static void test_zero_vectors_score_one_not_nan(void)
{
    const float zero[3] = {0, 0, 0}, x[3] = {1, 0, 0}, tiny[3] = {1e-23f, 0, 0};

    CHECK(score3(DISTANCE_COSINE, zero, x) == 1.0);
    CHECK(score3(DISTANCE_COSINE, x, zero) == 1.0);
    CHECK(score3(DISTANCE_COSINE, zero, zero) == 1.0);
    /* A tiny non-zero vector has a direction: products are exact in double. */
    CHECK(score3(DISTANCE_COSINE, tiny, x) == 0.0);
    CHECK(score3(DISTANCE_EUCLIDEAN, zero, zero) == 0.0);
    CHECK(score3(DISTANCE_DOT_PRODUCT, zero, x) == 0.0);
}

static void test_euclidean_and_dot(void)
{
    const float x[3] = {1, 0, 0}, minus_x[3] = {-1, 0, 0}, far_x[3] = {10, 0, 0};
    const float a[3] = {1, 2, 3}, b[3] = {-4, 5, 0.5f};

    CHECK(score3(DISTANCE_EUCLIDEAN, x, minus_x) == 2.0);
    CHECK(score3(DISTANCE_EUCLIDEAN, x, far_x) == 9.0);
    CHECK(score3(DISTANCE_EUCLIDEAN, a, b) == sqrt(25.0 + 9.0 + 6.25));
    CHECK(score3(DISTANCE_DOT_PRODUCT, a, b) == -4.0 + 10.0 + 1.5); /* 7.5 */
    CHECK(score3(DISTANCE_DOT_PRODUCT, x, minus_x) == -1.0);
}

static void test_scores_saturate(void)
{
    const float big[3] = {3e38f, 3e38f, 0}, minus_big[3] = {-3e38f, -3e38f, 0};

    CHECK(score3(DISTANCE_DOT_PRODUCT, big, big) == VECTOR_SCORE_MAX);
    CHECK(score3(DISTANCE_DOT_PRODUCT, big, minus_big) == -VECTOR_SCORE_MAX);
    CHECK(score3(DISTANCE_EUCLIDEAN, big, minus_big) == VECTOR_SCORE_MAX);
    CHECK(score3(DISTANCE_COSINE, big, minus_big) == 2.0);
}

static void test_long_vectors_use_every_lane(void)
{
    /* 1..19: eight lanes twice plus a tail of three. */
    float a[19], b[19];
    double want = 0;
    for (int i = 0; i < 19; i++) {
        a[i] = (float) (i + 1);
        b[i] = 2;
        want += 2.0 * (i + 1);
    }
    CHECK(vector_dot(a, b, 19) == want);
    CHECK(vector_sq_distance(a, a, 19) == 0.0);
}

static void test_better_order(void)
{
    CHECK(vector_score_better(DISTANCE_COSINE, 0.1, 0.2));
    CHECK(vector_score_better(DISTANCE_EUCLIDEAN, 0.1, 0.2));
    CHECK(vector_score_better(DISTANCE_DOT_PRODUCT, 0.2, 0.1));
    CHECK(!vector_score_better(DISTANCE_DOT_PRODUCT, 0.2, 0.2));
}

/* ---- the search over an index ---- */

static struct item *make_item(const char *pk, float x, float y)
{
    struct value attrs, v, list, n;
    char buf[32];

    value_init_map(&attrs);
    value_init_string(&v, pk, strlen(pk));
    value_map_set(&attrs, "pk", 2, &v);
    value_init_list(&list, VALUE_L);
    snprintf(buf, sizeof buf, "%g", x);
    value_init_number_text(&n, buf, strlen(buf));
    value_list_append(&list, &n);
    snprintf(buf, sizeof buf, "%g", y);
    value_init_number_text(&n, buf, strlen(buf));
    value_list_append(&list, &n);
    value_map_set(&attrs, "emb", 3, &list);
    return item_new(&attrs);
}

static void test_search_orders_and_breaks_ties_by_key(void)
{
    struct search_element none[1];
    struct vector_index_def def = {.name = "vix",
                                   .attribute = "emb",
                                   .search = none,
                                   .search_count = 0,
                                   .dimensions = 2,
                                   .distance = DISTANCE_DOT_PRODUCT};
    struct attr_def pk_def = {.name = "pk", .type = VALUE_S};
    struct table_def table = {.attr_defs = &pk_def, .attr_def_count = 1};
    struct key_schema key = {.hash_count = 1, .hash_names = {"pk"}};
    struct vector_index vi;
    struct item *items[4] = {make_item("d", 1, 0), make_item("b", 1, 0), make_item("c", 0, 1),
                             make_item("a", 2, 0)};
    const float q[2] = {1, 0};
    struct vector_query query = {.vector = q, .top_k = 3, .table_key = &key};
    struct vector_hit *hits;
    size_t count;

    lock_check_acquired(LOCK_HOLD_EXCLUSIVE);
    vector_index_init(&vi, &def, &table);
    for (int i = 0; i < 4; i++)
        vector_index_apply_write(&vi, NULL, items[i]);
    CHECK_INT_EQ(vi.item_count, 4);
    vector_index_search(&vi, &query, &hits, &count);
    CHECK_INT_EQ(count, 3);
    /* a scores 2; b and d tie at 1 and come in key order; c (0) is cut by TopK. */
    CHECK_STR_EQ(value_map_get(item_attrs(hits[0].item), "pk", 2)->u.str.data, "a");
    CHECK_STR_EQ(value_map_get(item_attrs(hits[1].item), "pk", 2)->u.str.data, "b");
    CHECK_STR_EQ(value_map_get(item_attrs(hits[2].item), "pk", 2)->u.str.data, "d");
    CHECK(hits[0].score == 2.0 && hits[1].score == 1.0 && hits[2].score == 1.0);
    for (size_t i = 0; i < count; i++)
        item_unref(hits[i].item);
    free(hits);
    /* A delete leaves the index. */
    vector_index_apply_write(&vi, items[3], NULL);
    CHECK_INT_EQ(vi.item_count, 3);
    vector_index_clear(&vi);
    lock_check_released();
    for (int i = 0; i < 4; i++)
        item_unref(items[i]);
}

/* An item of make_item with a string attribute name = value added. */
static struct item *with_attr(struct item *base, const char *name, const char *value)
{
    struct value attrs, v;
    struct item *out;

    value_copy(&attrs, item_attrs(base));
    value_init_string(&v, value, strlen(value));
    value_map_set(&attrs, name, strlen(name), &v);
    out = item_new(&attrs);
    item_unref(base);
    return out;
}

/* VectorWriteRequestBytes: the entry's bytes (4 x dimensions + the vector's
 * name, the key and projected attributes at item size), the larger of old and
 * new, at least 1 KB; 0 when the entry does not change or the item is in the
 * index neither before nor after. */
static void test_write_bytes(void)
{
    struct search_element none[1];
    char *note = "note";
    size_t note_len = 4;
    struct vector_index_def def = {.name = "vix",
                                   .attribute = "emb",
                                   .search = none,
                                   .dimensions = 2,
                                   .projection = {.type = PROJECTION_INCLUDE,
                                                  .non_key_attrs = &note,
                                                  .non_key_lens = &note_len,
                                                  .non_key_count = 1},
                                   .distance = DISTANCE_COSINE};
    struct attr_def pk_def = {.name = "pk", .type = VALUE_S};
    struct table_def table = {.attr_defs = &pk_def, .attr_def_count = 1};
    struct key_schema key = {.hash_count = 1, .hash_names = {"pk"}};
    struct vector_index vi;
    struct item *a = with_attr(make_item("a", 1, 2), "note", "xyz");
    struct item *a_other = with_attr(item_ref(a), "other", "q"); /* not projected */
    struct item *a_note = with_attr(item_ref(a), "note", "xyzxyz");
    struct item *a_moved = with_attr(make_item("a", 2, 1), "note", "xyz");
    struct item *plain;
    struct value attrs, v;

    value_init_map(&attrs);
    value_init_string(&v, "a", 1);
    value_map_set(&attrs, "pk", 2, &v);
    plain = item_new(&attrs);
    vector_index_init(&vi, &def, &table);
    /* 4 x 2 + "emb" + "pk" "a" + "note" "xyz" = 21 bytes: the 1 KB floor. */
    CHECK_INT_EQ(vector_index_entry_size(&vi, &key, a), 8 + 3 + 3 + 7);
    CHECK_INT_EQ(vector_index_entry_size(&vi, &key, plain), 0);
    CHECK(vector_index_write_bytes(&vi, &key, NULL, a) == 1024.0);
    CHECK(vector_index_write_bytes(&vi, &key, a, NULL) == 1024.0);
    CHECK(vector_index_write_bytes(&vi, &key, a, a_other) == 0.0);
    CHECK(vector_index_write_bytes(&vi, &key, a, a_note) == 1024.0);
    CHECK(vector_index_write_bytes(&vi, &key, a, a_moved) == 1024.0);
    CHECK(vector_index_write_bytes(&vi, &key, NULL, plain) == 0.0);
    CHECK(vector_index_write_bytes(&vi, &key, plain, plain) == 0.0);
    /* Above the floor: 300 dimensions. */
    def.dimensions = 300;
    vector_index_clear(&vi);
    vector_index_init(&vi, &def, &table);
    {
        struct value list, n;
        value_copy(&attrs, item_attrs(a));
        value_init_list(&list, VALUE_L);
        for (int i = 0; i < 300; i++) {
            value_init_number_text(&n, "1", 1);
            value_list_append(&list, &n);
        }
        value_map_set(&attrs, "emb", 3, &list);
        struct item *big = item_new(&attrs);
        struct item *bigger = with_attr(item_ref(big), "note", "xyzxyz");
        CHECK(vector_index_write_bytes(&vi, &key, NULL, big) == 1200 + 3 + 3 + 7);
        CHECK(vector_index_write_bytes(&vi, &key, big, bigger) == 1200 + 3 + 3 + 10);
        CHECK(vector_index_write_bytes(&vi, &key, bigger, big) == 1200 + 3 + 3 + 10);
        item_unref(big);
        item_unref(bigger);
    }
    vector_index_clear(&vi);
    item_unref(a);
    item_unref(a_other);
    item_unref(a_note);
    item_unref(a_moved);
    item_unref(plain);
}

/* A definition with vector indexes reads back from its on-disk form, and
 * one written without them (an older file) reads back with none. */
static void test_definition_round_trip(void)
{
    struct table_def def = {0}, back;
    struct text_buf b;
    struct codec_in in;

    def.name = xstrdup("t");
    def.attr_def_count = 2;
    def.attr_defs = xcalloc(2, sizeof *def.attr_defs);
    def.attr_defs[0] = (struct attr_def){xstrdup("pk"), VALUE_S};
    def.attr_defs[1] = (struct attr_def){xstrdup("user"), VALUE_N};
    def.key.hash_count = 1;
    def.key.hash_names[0] = xstrdup("pk");
    def.vector_count = 1;
    def.vectors = xcalloc(1, sizeof *def.vectors);
    def.vectors[0].name = xstrdup("vix");
    def.vectors[0].attribute = xstrdup("emb");
    def.vectors[0].dimensions = 1024;
    def.vectors[0].distance = DISTANCE_EUCLIDEAN;
    def.vectors[0].search_count = 1;
    def.vectors[0].search = xcalloc(1, sizeof *def.vectors[0].search);
    def.vectors[0].search[0] = (struct search_element){xstrdup("user"), SEARCH_HASH};
    def.vectors[0].projection.type = PROJECTION_KEYS_ONLY;

    text_buf_init(&b);
    codec_put_table_def(&b, &def);
    codec_in_init(&in, b.data, b.len);
    CHECK(codec_get_table_def(&in, &back));
    CHECK_INT_EQ(back.vector_count, 1);
    CHECK_STR_EQ(back.vectors[0].name, "vix");
    CHECK_STR_EQ(back.vectors[0].attribute, "emb");
    CHECK_INT_EQ(back.vectors[0].dimensions, 1024);
    CHECK_INT_EQ(back.vectors[0].distance, DISTANCE_EUCLIDEAN);
    CHECK_STR_EQ(vector_index_hash_name(&back.vectors[0]), "user");
    CHECK_INT_EQ(back.vectors[0].projection.type, PROJECTION_KEYS_ONLY);
    table_def_clear(&back);
    text_buf_clear(&b);

    for (size_t i = 0; i < def.vector_count; i++)
        vector_index_def_clear(&def.vectors[i]);
    free(def.vectors);
    def.vectors = NULL;
    def.vector_count = 0;
    text_buf_init(&b);
    codec_put_table_def(&b, &def);
    codec_in_init(&in, b.data, b.len);
    CHECK(codec_get_table_def(&in, &back));
    CHECK_INT_EQ(back.vector_count, 0);
    CHECK(back.vectors == NULL);
    table_def_clear(&back);
    text_buf_clear(&b);
    table_def_clear(&def);
}

int main(void)
{
    RUN(test_cosine_hand_computed);
    RUN(test_self_match_is_exactly_zero);
    RUN(test_zero_vectors_score_one_not_nan);
    RUN(test_euclidean_and_dot);
    RUN(test_scores_saturate);
    RUN(test_long_vectors_use_every_lane);
    RUN(test_better_order);
    RUN(test_search_orders_and_breaks_ties_by_key);
    RUN(test_definition_round_trip);
    RUN(test_write_bytes);
    return check_report();
}
