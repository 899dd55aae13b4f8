/*
 * vector_def.c - lifecycle and lookups of vector index definitions
 * (struct vector_index_def, declared in schema.h beside the other index
 * definitions). Ownership as in schema.h: every pointer is the struct's.
 */
#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/model/codec.h"
#include "storage/model/schema.h"

#include <stdlib.h>
#include <string.h>

void vector_index_def_clear(struct vector_index_def *d)
{
    free(d->name);
    free(d->attribute);
    for (size_t i = 0; i < d->search_count; i++)
        free(d->search[i].name);
    free(d->search);
    projection_clear(&d->projection);
    memset(d, 0, sizeof *d);
}

void vector_index_def_copy(struct vector_index_def *dst, const struct vector_index_def *src)
{
    memset(dst, 0, sizeof *dst);
    dst->name = xstrdup_or_null(src->name);
    dst->attribute = xstrdup_or_null(src->attribute);
    dst->search_count = src->search_count;
    if (src->search_count) {
        dst->search = xcalloc(src->search_count, sizeof *dst->search);
        for (size_t i = 0; i < src->search_count; i++) {
            dst->search[i].name = xstrdup(src->search[i].name);
            dst->search[i].type = src->search[i].type;
        }
    }
    projection_copy(&dst->projection, &src->projection);
    dst->dimensions = src->dimensions;
    dst->distance = src->distance;
}

const struct vector_index_def *table_def_find_vector(const struct table_def *def, const char *name)
{
    for (size_t i = 0; i < def->vector_count; i++) {
        if (strcmp(def->vectors[i].name, name) == 0) return &def->vectors[i];
    }
    return NULL;
}

const char *vector_index_hash_name(const struct vector_index_def *d)
{
    for (size_t i = 0; i < d->search_count; i++) {
        if (d->search[i].type == SEARCH_HASH) return d->search[i].name;
    }
    return NULL;
}

const char *distance_function_name(enum distance_function f)
{
    static const char *const names[] = {"COSINE", "DOT_PRODUCT", "EUCLIDEAN"};
    return names[f];
}

const char *search_element_type_name(enum search_element_type t)
{
    return t == SEARCH_HASH ? "HASH" : "INLINE_FILTER";
}

/* ------------------------------------------------------------------------ */
/* on disk: the TD_VECTORS field of a table definition (codec.c)             */
/* ------------------------------------------------------------------------ */

static void put_vector_def(struct text_buf *b, const struct vector_index_def *d)
{
    codec_put_str(b, d->name);
    codec_put_str(b, d->attribute);
    codec_put_uvar(b, d->search_count);
    for (size_t i = 0; i < d->search_count; i++) {
        codec_put_str(b, d->search[i].name);
        codec_put_u8(b, (uint8_t) d->search[i].type);
    }
    codec_put_u8(b, (uint8_t) d->projection.type);
    codec_put_uvar(b, d->projection.non_key_count);
    for (size_t i = 0; i < d->projection.non_key_count; i++)
        codec_put_strn(b, d->projection.non_key_attrs[i], d->projection.non_key_lens[i]);
    codec_put_ivar(b, d->dimensions);
    codec_put_u8(b, (uint8_t) d->distance);
}

void codec_put_vector_defs(struct text_buf *b, const struct table_def *def)
{
    codec_put_uvar(b, def->vector_count);
    for (size_t i = 0; i < def->vector_count; i++)
        put_vector_def(b, &def->vectors[i]);
}

static void get_projection(struct codec_in *in, struct projection *p)
{
    uint64_t n;

    p->type = (enum projection_type) codec_get_u8(in);
    if (p->type > PROJECTION_INCLUDE) in->bad = true;
    n = codec_get_uvar(in);
    if (n > 1000) in->bad = true;
    if (in->bad || !n) return;
    p->non_key_attrs = xcalloc((size_t) n, sizeof *p->non_key_attrs);
    p->non_key_lens = xcalloc((size_t) n, sizeof *p->non_key_lens);
    p->non_key_count = (size_t) n;
    for (size_t i = 0; i < n; i++) {
        p->non_key_attrs[i] = codec_get_strn(in, &p->non_key_lens[i]);
        if (!p->non_key_attrs[i]) in->bad = true;
    }
}

static void get_vector_def(struct codec_in *in, struct vector_index_def *d)
{
    uint64_t n;

    d->name = codec_get_str(in);
    d->attribute = codec_get_str(in);
    n = codec_get_uvar(in);
    if (n > DDB_MAX_INLINE_FILTERS + 1) in->bad = true;
    if (!in->bad && n) {
        d->search = xcalloc((size_t) n, sizeof *d->search);
        d->search_count = (size_t) n;
        for (size_t i = 0; i < n; i++) {
            d->search[i].name = codec_get_str(in);
            d->search[i].type = (enum search_element_type) codec_get_u8(in);
            if (!d->search[i].name || d->search[i].type > SEARCH_INLINE_FILTER) in->bad = true;
        }
    }
    get_projection(in, &d->projection);
    d->dimensions = codec_get_ivar(in);
    d->distance = (enum distance_function) codec_get_u8(in);
    if (!d->name || !d->attribute || d->dimensions < 1 ||
        d->dimensions > DDB_MAX_VECTOR_DIMENSIONS || d->distance > DISTANCE_EUCLIDEAN)
        in->bad = true;
}

void codec_get_vector_defs(struct codec_in *in, struct table_def *out)
{
    uint64_t n = codec_get_uvar(in);

    if (n > DDB_MAX_VECTOR_INDEXES || out->vectors) in->bad = true;
    if (in->bad || !n) return;
    out->vectors = xcalloc((size_t) n, sizeof *out->vectors);
    out->vector_count = (size_t) n;
    for (size_t i = 0; i < n && !in->bad; i++)
        get_vector_def(in, &out->vectors[i]);
}
