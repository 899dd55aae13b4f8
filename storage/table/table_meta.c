/*
 * table_meta.c - a table's policies, contributor insights and Kinesis
 * destinations: lookups, freeing, and their record (see table_meta.h).
 *
 * The record is a sequence of codec fields, so that later settings take new
 * tags and older files still load (codec.h).
 */
#include "storage/table/table_meta.h"

#include "storage/base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* The fields of the record; a tag is never reused. */
enum meta_tag {
    MT_POLICY = 1,
    MT_STREAM_POLICY = 2,
    MT_INSIGHTS = 3, /* one field per setting */
    MT_KINESIS = 4,  /* one field per destination */
};

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

void resource_policy_clear(struct resource_policy *p)
{
    free(p->document);
    free(p->revision_id);
    p->document = p->revision_id = NULL;
}

void table_meta_clear(struct table_meta *m)
{
    resource_policy_clear(&m->policy);
    resource_policy_clear(&m->stream_policy);
    free(m->stream_policy_label);
    for (size_t i = 0; i < m->insights_count; i++) {
        free(m->insights[i].index_name);
        free(m->insights[i].mode);
    }
    free(m->insights);
    for (size_t i = 0; i < m->kinesis_count; i++) {
        free(m->kinesis[i].stream_arn);
        free(m->kinesis[i].precision);
    }
    free(m->kinesis);
    memset(m, 0, sizeof *m);
}

struct insights_setting *table_meta_insights(struct table_meta *m, const char *index_name)
{
    for (size_t i = 0; i < m->insights_count; i++)
        if (same(m->insights[i].index_name, index_name)) return &m->insights[i];
    return NULL;
}

struct insights_setting *table_meta_insights_add(struct table_meta *m, const char *index_name)
{
    struct insights_setting *s = table_meta_insights(m, index_name);

    if (s) return s;
    m->insights = xrealloc(m->insights, (m->insights_count + 1) * sizeof *m->insights);
    s = &m->insights[m->insights_count++];
    memset(s, 0, sizeof *s);
    s->index_name = xstrdup_or_null(index_name);
    return s;
}

struct kinesis_destination *table_meta_kinesis(struct table_meta *m, const char *stream_arn)
{
    for (size_t i = 0; i < m->kinesis_count; i++)
        if (same(m->kinesis[i].stream_arn, stream_arn)) return &m->kinesis[i];
    return NULL;
}

struct kinesis_destination *table_meta_kinesis_add(struct table_meta *m, const char *stream_arn)
{
    struct kinesis_destination *d = table_meta_kinesis(m, stream_arn);

    if (d) return d;
    m->kinesis = xrealloc(m->kinesis, (m->kinesis_count + 1) * sizeof *m->kinesis);
    d = &m->kinesis[m->kinesis_count++];
    memset(d, 0, sizeof *d);
    d->stream_arn = xstrdup(stream_arn);
    d->status = KINESIS_DISABLED;
    return d;
}

/* ---- the record ---- */

static void put_policy(struct text_buf *b, enum meta_tag tag, const struct resource_policy *p,
                       const char *label)
{
    size_t m;

    if (!p->document) return;
    m = codec_field_begin(b, tag);
    codec_put_str(b, p->document);
    codec_put_str(b, p->revision_id);
    codec_put_str(b, label);
    codec_field_end(b, m);
}

void table_meta_encode(struct text_buf *b, const struct table_meta *m)
{
    put_policy(b, MT_POLICY, &m->policy, NULL);
    put_policy(b, MT_STREAM_POLICY, &m->stream_policy, m->stream_policy_label);
    for (size_t i = 0; i < m->insights_count; i++) {
        const struct insights_setting *s = &m->insights[i];
        size_t mark = codec_field_begin(b, MT_INSIGHTS);
        codec_put_str(b, s->index_name);
        codec_put_bool(b, s->enabled);
        codec_put_str(b, s->mode);
        codec_put_ivar(b, s->updated_ms);
        codec_field_end(b, mark);
    }
    for (size_t i = 0; i < m->kinesis_count; i++) {
        const struct kinesis_destination *d = &m->kinesis[i];
        size_t mark = codec_field_begin(b, MT_KINESIS);
        codec_put_str(b, d->stream_arn);
        codec_put_u8(b, (uint8_t) d->status);
        codec_put_str(b, d->precision);
        codec_field_end(b, mark);
    }
}

static void get_policy(struct codec_in *f, struct resource_policy *p, char **label)
{
    resource_policy_clear(p);
    p->document = codec_get_str(f);
    p->revision_id = codec_get_str(f);
    char *l = codec_get_str(f);
    if (label) {
        free(*label);
        *label = l;
    } else {
        free(l);
    }
    if (!p->document || !p->revision_id) f->bad = true;
}

bool table_meta_decode(struct codec_in *in, struct table_meta *out)
{
    struct codec_in f;
    uint64_t tag;

    memset(out, 0, sizeof *out);
    while (codec_next_field(in, &tag, &f)) {
        switch ((enum meta_tag) tag) {
        case MT_POLICY: get_policy(&f, &out->policy, NULL); break;
        case MT_STREAM_POLICY:
            get_policy(&f, &out->stream_policy, &out->stream_policy_label);
            break;
        case MT_INSIGHTS: {
            char *index = codec_get_str(&f);
            struct insights_setting *s = table_meta_insights_add(out, index);
            free(index);
            s->enabled = codec_get_bool(&f);
            free(s->mode);
            s->mode = codec_get_str(&f);
            s->updated_ms = codec_get_ivar(&f);
            break;
        }
        case MT_KINESIS: {
            char *arn = codec_get_str(&f);
            struct kinesis_destination *d;
            if (!arn) {
                f.bad = true;
                break;
            }
            d = table_meta_kinesis_add(out, arn);
            free(arn);
            d->status = codec_get_u8(&f) == KINESIS_ACTIVE ? KINESIS_ACTIVE : KINESIS_DISABLED;
            free(d->precision);
            d->precision = codec_get_str(&f);
            break;
        }
        default: break; /* written by a newer ddbemu */
        }
        if (f.bad) in->bad = true;
    }
    if (codec_ok(in)) return true;
    table_meta_clear(out);
    return false;
}
