/*
 * wire_vector.c - vector index definitions and descriptions in JSON; see
 * wire_vector.h. Member order is the API model's (spec-24 2.1, 2.6).
 */
#include "api/wire/wire_vector.h"

#include "api/wire/wire_table.h"
#include "storage/base/alloc.h"

#include <string.h>

static bool str_is(const char *s, const char *want)
{
    return s && strcmp(s, want) == 0;
}

static enum distance_function distance_from(const char *s)
{
    if (str_is(s, "DOT_PRODUCT")) return DISTANCE_DOT_PRODUCT;
    if (str_is(s, "EUCLIDEAN")) return DISTANCE_EUCLIDEAN;
    return DISTANCE_COSINE;
}

void wire_vector_def_from_json(const json_t *obj, struct vector_index_def *out)
{
    const json_t *schema = json_object_get(obj, "SearchSchema");
    size_t i;
    json_t *e;

    memset(out, 0, sizeof *out);
    out->name = xstrdup_or_null(json_string_value(json_object_get(obj, "IndexName")));
    out->attribute = xstrdup_or_null(json_string_value(
        json_object_get(json_object_get(obj, "VectorAttribute"), "AttributeName")));
    wire_table_projection_from_json(json_object_get(obj, "Projection"), &out->projection);
    out->dimensions = json_integer_value(json_object_get(obj, "Dimensions"));
    out->distance = distance_from(json_string_value(json_object_get(obj, "DistanceFunction")));
    if (!json_array_size(schema)) return;
    out->search = xcalloc(json_array_size(schema), sizeof *out->search);
    json_array_foreach(schema, i, e)
    {
        const char *name = json_string_value(json_object_get(e, "AttributeName"));
        const char *type = json_string_value(json_object_get(e, "SearchSchemaElementType"));
        if (!name) continue;
        out->search[out->search_count].name = xstrdup(name);
        out->search[out->search_count++].type =
            str_is(type, "HASH") ? SEARCH_HASH : SEARCH_INLINE_FILTER;
    }
}

void wire_vector_defs_from_json(const json_t *list, struct vector_index_def **out, size_t *count)
{
    size_t i;
    json_t *e;

    *out = NULL;
    *count = 0;
    if (!json_array_size(list)) return;
    *out = xcalloc(json_array_size(list), sizeof **out);
    json_array_foreach(list, i, e)
    {
        wire_vector_def_from_json(e, &(*out)[(*count)++]);
    }
}

static json_t *search_schema_to_json(const struct vector_index_def *v)
{
    json_t *list = json_array();
    for (size_t i = 0; i < v->search_count; i++) {
        json_t *e = json_object();
        json_object_set_new(e, "AttributeName", json_string(v->search[i].name));
        json_object_set_new(e, "SearchSchemaElementType",
                            json_string(search_element_type_name(v->search[i].type)));
        json_array_append_new(list, e);
    }
    return list;
}

/* The members a definition and a description share, in model order. */
static json_t *def_to_json(const struct vector_index_def *v)
{
    json_t *obj = json_object(), *attr = json_object();

    json_object_set_new(obj, "IndexName", json_string(v->name));
    if (v->search_count) json_object_set_new(obj, "SearchSchema", search_schema_to_json(v));
    json_object_set_new(obj, "Projection", wire_table_projection_to_json(&v->projection));
    json_object_set_new(attr, "AttributeName", json_string(v->attribute));
    json_object_set_new(obj, "VectorAttribute", attr);
    json_object_set_new(obj, "Dimensions", json_integer(v->dimensions));
    json_object_set_new(obj, "DistanceFunction", json_string(distance_function_name(v->distance)));
    return obj;
}

json_t *wire_vector_descs_to_json(const struct table_desc *d)
{
    json_t *list = json_array();

    for (size_t i = 0; i < d->def.vector_count; i++) {
        const struct index_desc *desc = d->vector_descs ? &d->vector_descs[i] : NULL;
        json_t *obj = def_to_json(&d->def.vectors[i]);
        json_object_set_new(obj, "IndexStatus",
                            json_string(index_status_name(desc ? desc->status : INDEX_ACTIVE)));
        /* Only while an index added by UpdateTable is filled; absent at ACTIVE
         * (spec-24 2.6: "the member disappears, not false"). */
        if (desc && desc->show_backfilling && desc->backfilling)
            json_object_set_new(obj, "Backfilling", json_true());
        json_object_set_new(obj, "IndexSizeBytes", json_integer(desc ? desc->size_bytes : 0));
        json_object_set_new(obj, "ItemCount", json_integer(desc ? desc->item_count : 0));
        if (desc && desc->arn) json_object_set_new(obj, "IndexArn", json_string(desc->arn));
        json_array_append_new(list, obj);
    }
    return list;
}

json_t *wire_vector_defs_to_json(const struct table_def *def)
{
    json_t *list = json_array();
    for (size_t i = 0; i < def->vector_count; i++) {
        json_t *obj = def_to_json(&def->vectors[i]);
        json_array_append_new(list, obj);
    }
    return list;
}
