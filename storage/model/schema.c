/*
 * schema.c - lifecycle and lookups for table and index definitions; see schema.h.
 */
#include "storage/model/schema.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"

#include <stdlib.h>
#include <string.h>

bool table_def_attr_type(const struct table_def *def, const char *name, enum value_type *out)
{
    for (size_t i = 0; i < def->attr_def_count; i++) {
        if (strcmp(def->attr_defs[i].name, name) == 0) {
            *out = def->attr_defs[i].type;
            return true;
        }
    }
    return false;
}

const struct index_def *table_def_find_index(const struct table_def *def, const char *name)
{
    for (size_t i = 0; i < def->gsi_count; i++) {
        if (strcmp(def->gsis[i].name, name) == 0) return &def->gsis[i];
    }
    for (size_t i = 0; i < def->lsi_count; i++) {
        if (strcmp(def->lsis[i].name, name) == 0) return &def->lsis[i];
    }
    return NULL;
}

void key_schema_clear(struct key_schema *k)
{
    for (size_t i = 0; i < k->hash_count; i++)
        free(k->hash_names[i]);
    for (size_t i = 0; i < k->range_count; i++)
        free(k->range_names[i]);
    memset(k, 0, sizeof *k);
}

void key_schema_copy(struct key_schema *dst, const struct key_schema *src)
{
    memset(dst, 0, sizeof *dst);
    dst->hash_count = src->hash_count;
    dst->range_count = src->range_count;
    for (size_t i = 0; i < src->hash_count; i++)
        dst->hash_names[i] = xstrdup(src->hash_names[i]);
    for (size_t i = 0; i < src->range_count; i++)
        dst->range_names[i] = xstrdup(src->range_names[i]);
}

bool key_schema_has(const struct key_schema *k, const char *name)
{
    for (size_t i = 0; i < k->hash_count; i++) {
        if (strcmp(k->hash_names[i], name) == 0) return true;
    }
    for (size_t i = 0; i < k->range_count; i++) {
        if (strcmp(k->range_names[i], name) == 0) return true;
    }
    return false;
}

void projection_clear(struct projection *p)
{
    for (size_t i = 0; i < p->non_key_count; i++)
        free(p->non_key_attrs[i]);
    free(p->non_key_attrs);
    free(p->non_key_lens);
    memset(p, 0, sizeof *p);
}

void projection_copy(struct projection *dst, const struct projection *src)
{
    dst->type = src->type;
    dst->non_key_count = src->non_key_count;
    dst->non_key_attrs = NULL;
    dst->non_key_lens = NULL;
    if (src->non_key_count) {
        dst->non_key_attrs = xmalloc(sizeof(char *) * src->non_key_count);
        dst->non_key_lens = xmalloc(sizeof(size_t) * src->non_key_count);
        for (size_t i = 0; i < src->non_key_count; i++) {
            dst->non_key_attrs[i] = xmemdup(src->non_key_attrs[i], src->non_key_lens[i]);
            dst->non_key_lens[i] = src->non_key_lens[i];
        }
    }
}

void index_def_clear(struct index_def *d)
{
    free(d->name);
    key_schema_clear(&d->key);
    projection_clear(&d->projection);
    memset(d, 0, sizeof *d);
}

void index_def_copy(struct index_def *dst, const struct index_def *src)
{
    dst->name = xstrdup_or_null(src->name);
    dst->is_global = src->is_global;
    key_schema_copy(&dst->key, &src->key);
    projection_copy(&dst->projection, &src->projection);
    dst->throughput = src->throughput;
    dst->on_demand = src->on_demand;
    dst->warm = src->warm;
}

static struct index_def *copy_indexes(const struct index_def *src, size_t count)
{
    struct index_def *dst;
    if (!count) return NULL;
    dst = xcalloc(count, sizeof *dst);
    for (size_t i = 0; i < count; i++)
        index_def_copy(&dst[i], &src[i]);
    return dst;
}

static void clear_indexes(struct index_def *defs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        index_def_clear(&defs[i]);
    free(defs);
}

void table_def_clear(struct table_def *def)
{
    free(def->name);
    for (size_t i = 0; i < def->attr_def_count; i++)
        free(def->attr_defs[i].name);
    free(def->attr_defs);
    key_schema_clear(&def->key);
    clear_indexes(def->gsis, def->gsi_count);
    clear_indexes(def->lsis, def->lsi_count);
    free(def->sse.sse_type);
    free(def->sse.kms_master_key_id);
    free(def->table_class);
    free(def->replication_mode);
    for (size_t i = 0; i < def->tag_count; i++) {
        free(def->tags[i].key);
        free(def->tags[i].value);
    }
    free(def->tags);
    for (size_t i = 0; i < def->vector_count; i++)
        vector_index_def_clear(&def->vectors[i]);
    free(def->vectors);
    memset(def, 0, sizeof *def);
}

void table_def_copy(struct table_def *dst, const struct table_def *src)
{
    memset(dst, 0, sizeof *dst);
    dst->name = xstrdup_or_null(src->name);
    dst->attr_def_count = src->attr_def_count;
    if (src->attr_def_count) {
        dst->attr_defs = xcalloc(src->attr_def_count, sizeof *dst->attr_defs);
        for (size_t i = 0; i < src->attr_def_count; i++) {
            dst->attr_defs[i].name = xstrdup(src->attr_defs[i].name);
            dst->attr_defs[i].type = src->attr_defs[i].type;
        }
    }
    key_schema_copy(&dst->key, &src->key);
    dst->billing = src->billing;
    dst->throughput = src->throughput;
    dst->gsis = copy_indexes(src->gsis, src->gsi_count);
    dst->gsi_count = src->gsi_count;
    dst->lsis = copy_indexes(src->lsis, src->lsi_count);
    dst->lsi_count = src->lsi_count;
    dst->stream = src->stream;
    dst->sse.enabled = src->sse.enabled;
    dst->sse.sse_type = xstrdup_or_null(src->sse.sse_type);
    dst->sse.kms_master_key_id = xstrdup_or_null(src->sse.kms_master_key_id);
    dst->deletion_protection = src->deletion_protection;
    dst->table_class = xstrdup_or_null(src->table_class);
    dst->replication_mode = xstrdup_or_null(src->replication_mode);
    dst->has_disassociation_protection = src->has_disassociation_protection;
    dst->disassociation_protection = src->disassociation_protection;
    dst->on_demand = src->on_demand;
    dst->warm = src->warm;
    dst->tag_count = src->tag_count;
    if (src->tag_count) {
        dst->tags = xcalloc(src->tag_count, sizeof *dst->tags);
        for (size_t i = 0; i < src->tag_count; i++) {
            dst->tags[i].key = xstrdup(src->tags[i].key);
            dst->tags[i].value = xstrdup(src->tags[i].value);
        }
    }
    dst->vector_count = src->vector_count;
    if (src->vector_count) {
        dst->vectors = xcalloc(src->vector_count, sizeof *dst->vectors);
        for (size_t i = 0; i < src->vector_count; i++)
            vector_index_def_copy(&dst->vectors[i], &src->vectors[i]);
    }
}

static void clear_index_descs(struct index_desc *descs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(descs[i].arn);
    free(descs);
}

void table_desc_clear(struct table_desc *d)
{
    clear_index_descs(d->gsi_descs, d->def.gsi_count);
    clear_index_descs(d->lsi_descs, d->def.lsi_count);
    clear_index_descs(d->vector_descs, d->def.vector_count);
    table_def_clear(&d->def);
    free(d->arn);
    free(d->table_id);
    free(d->region);
    free(d->latest_stream_arn);
    free(d->latest_stream_label);
    restore_summary_clear(&d->restore);
    memset(d, 0, sizeof *d);
}

void restore_summary_clear(struct restore_summary *r)
{
    free(r->source_backup_arn);
    free(r->source_table_arn);
    memset(r, 0, sizeof *r);
}

void restore_summary_copy(struct restore_summary *dst, const struct restore_summary *src)
{
    *dst = *src;
    dst->source_backup_arn = xstrdup_or_null(src->source_backup_arn);
    dst->source_table_arn = xstrdup_or_null(src->source_table_arn);
}

const char *billing_mode_name(enum billing_mode m)
{
    return m == BILLING_PAY_PER_REQUEST ? "PAY_PER_REQUEST" : "PROVISIONED";
}

const char *stream_view_name(enum stream_view v)
{
    static const char *const names[] = {"NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES",
                                        "KEYS_ONLY"};
    return names[v];
}

const char *table_status_name(enum table_status s)
{
    static const char *const names[] = {"CREATING", "UPDATING", "DELETING", "ACTIVE"};
    return names[s];
}

const char *index_status_name(enum index_status s)
{
    static const char *const names[] = {"CREATING", "UPDATING", "DELETING", "ACTIVE"};
    return names[s];
}

const char *projection_type_name(enum projection_type t)
{
    static const char *const names[] = {"ALL", "KEYS_ONLY", "INCLUDE"};
    return names[t];
}

/* ------------------------------------------------------------------------ */
/* vector index definitions                                                  */
/* ------------------------------------------------------------------------ */

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
