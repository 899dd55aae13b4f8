/*
 * codec.c - the binary encoding of values and definitions; see codec.h.
 */
#include "storage/model/codec.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/model/number.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Values nest at most 32 levels (DynamoDB's limit); a deeper input is corrupt. */
#define CODEC_MAX_DEPTH (DDB_MAX_NESTING_DEPTH + 2)

/* ---- writing ---- */

void codec_put_u8(struct text_buf *b, uint8_t v)
{
    char c = (char) v;
    text_buf_add(b, &c, 1);
}

void codec_put_uvar(struct text_buf *b, uint64_t v)
{
    char out[10];
    size_t n = 0;

    do {
        unsigned char c = v & 0x7F;
        v >>= 7;
        if (v) c |= 0x80;
        out[n++] = (char) c;
    } while (v);
    text_buf_add(b, out, n);
}

void codec_put_ivar(struct text_buf *b, int64_t v)
{
    codec_put_uvar(b, ((uint64_t) v << 1) ^ (uint64_t) (v >> 63));
}

void codec_put_bool(struct text_buf *b, bool v)
{
    codec_put_u8(b, v ? 1 : 0);
}

void codec_put_bytes(struct text_buf *b, const void *data, size_t len)
{
    codec_put_uvar(b, len);
    text_buf_add(b, data, len);
}

void codec_put_strn(struct text_buf *b, const char *s, size_t len)
{
    codec_put_uvar(b, len + 1);
    text_buf_add(b, s, len);
}

void codec_put_str(struct text_buf *b, const char *s)
{
    if (!s) {
        codec_put_uvar(b, 0);
        return;
    }
    codec_put_uvar(b, strlen(s) + 1);
    text_buf_add(b, s, strlen(s));
}

void codec_put_value(struct text_buf *b, const struct value *v)
{
    codec_put_u8(b, (uint8_t) v->type);
    switch (v->type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B: codec_put_bytes(b, v->u.str.data, v->u.str.len); break;
    case VALUE_BOOL: codec_put_bool(b, v->u.boolean); break;
    case VALUE_NULL: break;
    case VALUE_M:
        codec_put_uvar(b, v->u.map.count);
        for (size_t i = 0; i < v->u.map.count; i++) {
            codec_put_bytes(b, v->u.map.attrs[i].name, v->u.map.attrs[i].name_len);
            codec_put_value(b, &v->u.map.attrs[i].value);
        }
        break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        assert(v->type == VALUE_L || value_set_is_sorted(v)); /* set order: value.h */
        codec_put_uvar(b, v->u.list.count);
        for (size_t i = 0; i < v->u.list.count; i++)
            codec_put_value(b, &v->u.list.elems[i]);
        break;
    }
}

size_t codec_field_begin(struct text_buf *b, uint64_t tag)
{
    size_t mark;

    codec_put_uvar(b, tag);
    /* The payload's length goes in a fixed 5-byte varint, patched at the end. */
    mark = b->len;
    text_buf_add(b, "\x80\x80\x80\x80\x00", 5);
    return mark;
}

void codec_field_end(struct text_buf *b, size_t mark)
{
    uint64_t len = b->len - mark - 5;

    for (size_t i = 0; i < 5; i++) {
        unsigned char c = (unsigned char) ((len >> (7 * i)) & 0x7F);
        if (i < 4) c |= 0x80;
        b->data[mark + i] = (char) c;
    }
}

void codec_put_u8_field(struct text_buf *b, uint64_t tag, uint8_t v)
{
    size_t m = codec_field_begin(b, tag);
    codec_put_u8(b, v);
    codec_field_end(b, m);
}

void codec_put_uvar_field(struct text_buf *b, uint64_t tag, uint64_t v)
{
    size_t m = codec_field_begin(b, tag);
    codec_put_uvar(b, v);
    codec_field_end(b, m);
}

void codec_put_ivar_field(struct text_buf *b, uint64_t tag, int64_t v)
{
    size_t m = codec_field_begin(b, tag);
    codec_put_ivar(b, v);
    codec_field_end(b, m);
}

void codec_put_bool_field(struct text_buf *b, uint64_t tag, bool v)
{
    size_t m = codec_field_begin(b, tag);
    codec_put_bool(b, v);
    codec_field_end(b, m);
}

void codec_put_str_field(struct text_buf *b, uint64_t tag, const char *s)
{
    size_t m = codec_field_begin(b, tag);
    codec_put_str(b, s);
    codec_field_end(b, m);
}

/* ---- reading ---- */

void codec_in_init(struct codec_in *in, const void *data, size_t len)
{
    /* An empty record may come as NULL (SQLite's zero-length blob), and
     * NULL + 0 is undefined in C: such a reader is simply at its end. */
    in->p = data;
    in->end = len ? in->p + len : in->p;
    in->bad = false;
}

bool codec_ok(const struct codec_in *in)
{
    return !in->bad;
}

bool codec_at_end(const struct codec_in *in)
{
    return in->bad || in->p >= in->end;
}

uint8_t codec_get_u8(struct codec_in *in)
{
    if (in->bad || in->p >= in->end) {
        in->bad = true;
        return 0;
    }
    return *in->p++;
}

uint64_t codec_get_uvar(struct codec_in *in)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift < 64; shift += 7) {
        uint8_t c = codec_get_u8(in);
        if (in->bad) return 0;
        v |= (uint64_t) (c & 0x7F) << shift;
        if (!(c & 0x80)) return v;
    }
    in->bad = true;
    return 0;
}

int64_t codec_get_ivar(struct codec_in *in)
{
    uint64_t u = codec_get_uvar(in);
    return (int64_t) (u >> 1) ^ -(int64_t) (u & 1);
}

bool codec_get_bool(struct codec_in *in)
{
    uint8_t c = codec_get_u8(in);
    if (c > 1) in->bad = true;
    return c == 1;
}

const void *codec_get_bytes(struct codec_in *in, size_t *len)
{
    uint64_t n = codec_get_uvar(in);
    const void *p;

    *len = 0;
    if (in->bad || n > (uint64_t) (in->end - in->p)) {
        in->bad = true;
        return NULL;
    }
    p = in->p;
    in->p += n;
    *len = (size_t) n;
    return p;
}

char *codec_get_strn(struct codec_in *in, size_t *len)
{
    uint64_t n = codec_get_uvar(in);
    char *s;

    *len = 0;
    if (in->bad || n == 0) return NULL;
    n--;
    if (n > (uint64_t) (in->end - in->p)) {
        in->bad = true;
        return NULL;
    }
    s = xmemdup(in->p, (size_t) n);
    in->p += n;
    *len = (size_t) n;
    return s;
}

char *codec_get_str(struct codec_in *in)
{
    uint64_t n = codec_get_uvar(in);
    char *s;

    if (in->bad || n == 0) return NULL;
    n--;
    if (n > (uint64_t) (in->end - in->p)) {
        in->bad = true;
        return NULL;
    }
    s = xmemdup(in->p, (size_t) n);
    in->p += n;
    return s;
}

/* A number's text as a file holds it parses (a damaged file's may not): every
 * stored number is a valid one (value.h), and the item encoding relies on it. */
static bool number_text_ok(const void *text, size_t len)
{
    struct ddb_error err = {0};
    struct number n;

    if (number_parse(text, len, &n, &err) == 0) return true;
    ddb_error_clear(&err);
    return false;
}

static bool get_value(struct codec_in *in, struct value *out, int depth)
{
    uint8_t type = codec_get_u8(in);
    const void *data;
    size_t len;
    uint64_t count;

    value_init_null(out);
    if (in->bad || type > VALUE_BS || depth > CODEC_MAX_DEPTH) goto bad;
    switch ((enum value_type) type) {
    case VALUE_S:
    case VALUE_N:
    case VALUE_B:
        data = codec_get_bytes(in, &len);
        if (in->bad || (type == VALUE_N && !number_text_ok(data, len))) goto bad;
        if (type == VALUE_B)
            value_init_binary(out, data, len);
        else if (type == VALUE_N)
            value_init_number_text(out, data, len);
        else
            value_init_string(out, data, len);
        return true;
    case VALUE_BOOL: value_init_bool(out, codec_get_bool(in)); return !in->bad;
    case VALUE_NULL: return true;
    case VALUE_M:
        count = codec_get_uvar(in);
        value_init_map(out);
        for (uint64_t i = 0; i < count && !in->bad; i++) {
            struct value v;
            data = codec_get_bytes(in, &len);
            if (in->bad || !get_value(in, &v, depth + 1)) goto bad;
            value_map_set(out, data, len, &v);
        }
        return !in->bad;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        count = codec_get_uvar(in);
        value_init_list(out, (enum value_type) type);
        for (uint64_t i = 0; i < count && !in->bad; i++) {
            struct value v;
            if (!get_value(in, &v, depth + 1)) goto bad;
            if (type != VALUE_L && v.type != value_set_element_type((enum value_type) type)) {
                value_clear(&v);
                goto bad;
            }
            value_list_append(out, &v);
        }
        if (in->bad) goto bad;
        /* Into set order (value.h): files written before it kept insertion
         * order. Duplicates mean a corrupt file. */
        if (type != VALUE_L && !value_set_sort(out)) goto bad;
        return true;
    }
bad:
    in->bad = true;
    value_clear(out);
    return false;
}

bool codec_get_value(struct codec_in *in, struct value *out)
{
    return get_value(in, out, 0);
}

bool codec_next_field(struct codec_in *in, uint64_t *tag, struct codec_in *field)
{
    const void *data;
    size_t len;

    if (codec_at_end(in)) return false;
    *tag = codec_get_uvar(in);
    /* Refused here, once for every decoder: a larger tag, cast to a decoder's
     * enum, could wrap onto a real one and slip past its repeated-field check
     * (2^32 + 1 read as the name a second time: fuzz_persist_load). */
    if (*tag >= CODEC_MAX_TAG) in->bad = true;
    data = codec_get_bytes(in, &len);
    if (in->bad) return false;
    codec_in_init(field, data, len);
    return true;
}

/* ---- definitions ---- */

void codec_put_key_schema(struct text_buf *b, const struct key_schema *k)
{
    codec_put_uvar(b, k->hash_count);
    for (size_t i = 0; i < k->hash_count; i++)
        codec_put_str(b, k->hash_names[i]);
    codec_put_uvar(b, k->range_count);
    for (size_t i = 0; i < k->range_count; i++)
        codec_put_str(b, k->range_names[i]);
}

void codec_get_key_schema(struct codec_in *in, struct key_schema *out)
{
    memset(out, 0, sizeof *out);
    /* A count past the array is damage; it is not kept, so that the clear
     * below frees only names that were read (fuzz_persist_load). */
    out->hash_count = (size_t) codec_get_uvar(in);
    if (out->hash_count > DDB_MAX_KEY_PARTS) {
        out->hash_count = 0;
        goto bad;
    }
    for (size_t i = 0; i < out->hash_count; i++)
        out->hash_names[i] = codec_get_str(in);
    out->range_count = (size_t) codec_get_uvar(in);
    if (out->range_count > DDB_MAX_KEY_PARTS) {
        out->range_count = 0;
        goto bad;
    }
    for (size_t i = 0; i < out->range_count; i++)
        out->range_names[i] = codec_get_str(in);
    for (size_t i = 0; i < out->hash_count + out->range_count; i++) {
        const char *n =
            i < out->hash_count ? out->hash_names[i] : out->range_names[i - out->hash_count];
        if (!n) goto bad;
    }
    if (!in->bad) return;
bad:
    in->bad = true;
    key_schema_clear(out);
    memset(out, 0, sizeof *out);
}

static void put_index_def(struct text_buf *b, const struct index_def *d)
{
    codec_put_str(b, d->name);
    codec_put_bool(b, d->is_global);
    codec_put_key_schema(b, &d->key);
    codec_put_u8(b, (uint8_t) d->projection.type);
    codec_put_uvar(b, d->projection.non_key_count);
    for (size_t i = 0; i < d->projection.non_key_count; i++)
        codec_put_strn(b, d->projection.non_key_attrs[i], d->projection.non_key_lens[i]);
    codec_put_ivar(b, d->throughput.read_units);
    codec_put_ivar(b, d->throughput.write_units);
}

static void get_index_def(struct codec_in *in, struct index_def *d)
{
    uint64_t n;

    memset(d, 0, sizeof *d);
    d->name = codec_get_str(in);
    d->is_global = codec_get_bool(in);
    codec_get_key_schema(in, &d->key);
    d->projection.type = (enum projection_type) codec_get_u8(in);
    if (d->projection.type > PROJECTION_INCLUDE) in->bad = true;
    n = codec_get_uvar(in);
    if (n > 1000) in->bad = true;
    if (!in->bad && n) {
        d->projection.non_key_attrs = xcalloc((size_t) n, sizeof *d->projection.non_key_attrs);
        d->projection.non_key_lens = xcalloc((size_t) n, sizeof *d->projection.non_key_lens);
        d->projection.non_key_count = (size_t) n;
        for (size_t i = 0; i < n; i++) {
            d->projection.non_key_attrs[i] = codec_get_strn(in, &d->projection.non_key_lens[i]);
            if (!d->projection.non_key_attrs[i]) in->bad = true;
        }
    }
    d->throughput.read_units = codec_get_ivar(in);
    d->throughput.write_units = codec_get_ivar(in);
    if (!d->name) in->bad = true;
}

/* The fields of a table definition. New fields take new tags; a tag is never
 * reused with another meaning. */
enum table_def_tag {
    TD_NAME = 1,
    TD_ATTR_DEFS = 2,
    TD_KEY = 3,
    TD_BILLING = 4,
    TD_THROUGHPUT = 5,
    TD_GSIS = 6,
    TD_LSIS = 7,
    TD_STREAM = 8,
    TD_SSE = 9,
    TD_DELETION_PROTECTION = 10,
    TD_TABLE_CLASS = 11,
    TD_TAGS = 12,
    /* Far from the tags above, so that fields other changes add never meet them. */
    TD_ON_DEMAND = 40,
    TD_WARM = 41,
    TD_GSI_LIMITS = 42, /* per GSI with any: name, on-demand maxima, warm throughput */
    TD_VECTORS = 48,    /* vector indexes (codec_put_vector_defs); absent in older files: none */
    /* Global-table settings: the replication mode (a string, absent when
     * never set) and disassociation protection (0 never set, 1 off, 2 on). */
    TD_REPLICATION_MODE = 60,
    TD_DISASSOCIATION_PROTECTION = 61,
};

static void put_indexes(struct text_buf *b, const struct index_def *defs, size_t count)
{
    codec_put_uvar(b, count);
    for (size_t i = 0; i < count; i++)
        put_index_def(b, &defs[i]);
}

static void get_indexes(struct codec_in *in, struct index_def **defs, size_t *count)
{
    uint64_t n = codec_get_uvar(in);

    if (n > DDB_MAX_GSIS + DDB_MAX_LSIS) in->bad = true;
    if (in->bad || !n) return;
    *defs = xcalloc((size_t) n, sizeof **defs);
    *count = (size_t) n;
    for (size_t i = 0; i < n; i++)
        get_index_def(in, &(*defs)[i]);
}

void codec_put_table_def(struct text_buf *b, const struct table_def *def)
{
    size_t m;

    codec_put_str_field(b, TD_NAME, def->name);
    m = codec_field_begin(b, TD_ATTR_DEFS);
    codec_put_uvar(b, def->attr_def_count);
    for (size_t i = 0; i < def->attr_def_count; i++) {
        codec_put_str(b, def->attr_defs[i].name);
        codec_put_u8(b, (uint8_t) def->attr_defs[i].type);
    }
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_KEY);
    codec_put_key_schema(b, &def->key);
    codec_field_end(b, m);
    codec_put_u8_field(b, TD_BILLING, (uint8_t) def->billing);
    m = codec_field_begin(b, TD_THROUGHPUT);
    codec_put_ivar(b, def->throughput.read_units);
    codec_put_ivar(b, def->throughput.write_units);
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_GSIS);
    put_indexes(b, def->gsis, def->gsi_count);
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_LSIS);
    put_indexes(b, def->lsis, def->lsi_count);
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_STREAM);
    codec_put_bool(b, def->stream.enabled);
    codec_put_u8(b, (uint8_t) def->stream.view);
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_SSE);
    codec_put_bool(b, def->sse.enabled);
    codec_put_str(b, def->sse.sse_type);
    codec_put_str(b, def->sse.kms_master_key_id);
    codec_field_end(b, m);
    codec_put_bool_field(b, TD_DELETION_PROTECTION, def->deletion_protection);
    codec_put_str_field(b, TD_TABLE_CLASS, def->table_class);
    m = codec_field_begin(b, TD_TAGS);
    codec_put_uvar(b, def->tag_count);
    for (size_t i = 0; i < def->tag_count; i++) {
        codec_put_str(b, def->tags[i].key);
        codec_put_str(b, def->tags[i].value);
    }
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_ON_DEMAND);
    codec_put_ivar(b, def->on_demand.max_read);
    codec_put_ivar(b, def->on_demand.max_write);
    codec_field_end(b, m);
    m = codec_field_begin(b, TD_WARM);
    codec_put_ivar(b, def->warm.read_per_s);
    codec_put_ivar(b, def->warm.write_per_s);
    codec_field_end(b, m);
    for (size_t i = 0; i < def->gsi_count; i++) {
        const struct index_def *g = &def->gsis[i];
        if (!g->on_demand.max_read && !g->on_demand.max_write && !g->warm.read_per_s &&
            !g->warm.write_per_s)
            continue;
        m = codec_field_begin(b, TD_GSI_LIMITS);
        codec_put_str(b, g->name);
        codec_put_ivar(b, g->on_demand.max_read);
        codec_put_ivar(b, g->on_demand.max_write);
        codec_put_ivar(b, g->warm.read_per_s);
        codec_put_ivar(b, g->warm.write_per_s);
        codec_field_end(b, m);
    }
    if (def->vector_count) {
        m = codec_field_begin(b, TD_VECTORS);
        codec_put_vector_defs(b, def);
        codec_field_end(b, m);
    }
    /* Written only when set, so that tables without them encode as before. */
    if (def->replication_mode) codec_put_str_field(b, TD_REPLICATION_MODE, def->replication_mode);
    if (def->has_disassociation_protection)
        codec_put_u8_field(b, TD_DISASSOCIATION_PROTECTION,
                           (uint8_t) (1 + def->disassociation_protection));
}

/* TD_GSI_LIMITS: written after TD_GSIS, so the index is already decoded. */
static void get_gsi_limits(struct codec_in *f, struct table_def *out)
{
    char *name = codec_get_str(f);
    struct index_def tmp = {0}, *g = &tmp;

    for (size_t i = 0; name && i < out->gsi_count; i++)
        if (strcmp(out->gsis[i].name, name) == 0) g = &out->gsis[i];
    if (!name || g == &tmp) f->bad = true;
    g->on_demand.max_read = codec_get_ivar(f);
    g->on_demand.max_write = codec_get_ivar(f);
    g->warm.read_per_s = codec_get_ivar(f);
    g->warm.write_per_s = codec_get_ivar(f);
    free(name);
}

/* Whether every key attribute of the table and of its indexes has a
 * definition: the engine relies on it (index_init), and a damaged record
 * must be refused rather than trusted. */
static bool key_schema_defined(const struct table_def *def, const struct key_schema *k)
{
    enum value_type type;

    for (size_t i = 0; i < k->hash_count; i++) {
        if (!k->hash_names[i] || !table_def_attr_type(def, k->hash_names[i], &type)) return false;
    }
    for (size_t i = 0; i < k->range_count; i++) {
        if (!k->range_names[i] || !table_def_attr_type(def, k->range_names[i], &type)) return false;
    }
    return true;
}

static bool keys_defined(const struct table_def *def)
{
    if (!key_schema_defined(def, &def->key)) return false;
    for (size_t i = 0; i < def->gsi_count; i++) {
        if (!key_schema_defined(def, &def->gsis[i].key)) return false;
    }
    for (size_t i = 0; i < def->lsi_count; i++) {
        if (!key_schema_defined(def, &def->lsis[i].key)) return false;
    }
    return true;
}

bool codec_get_table_def(struct codec_in *in, struct table_def *out)
{
    uint64_t tag, n, seen = 0;
    struct codec_in f;

    memset(out, 0, sizeof *out);
    while (codec_next_field(in, &tag, &f)) {
        /* Only TD_GSI_LIMITS comes more than once: a repeated field is damage,
         * refused (reading it again would leak the first; fuzz_persist_load). */
        if (tag < 64 && tag != TD_GSI_LIMITS) {
            if (seen & (UINT64_C(1) << tag)) {
                in->bad = true;
                break;
            }
            seen |= UINT64_C(1) << tag;
        }
        switch ((enum table_def_tag) tag) {
        case TD_NAME: out->name = codec_get_str(&f); break;
        case TD_ATTR_DEFS:
            n = codec_get_uvar(&f);
            if (n > 2 * (DDB_MAX_GSIS + DDB_MAX_LSIS + 1) * DDB_MAX_KEY_PARTS) f.bad = true;
            if (f.bad || !n) break;
            out->attr_defs = xcalloc((size_t) n, sizeof *out->attr_defs);
            out->attr_def_count = (size_t) n;
            for (size_t i = 0; i < n; i++) {
                out->attr_defs[i].name = codec_get_str(&f);
                out->attr_defs[i].type = (enum value_type) codec_get_u8(&f);
                if (!out->attr_defs[i].name || !value_is_scalar_key_type(out->attr_defs[i].type))
                    f.bad = true;
            }
            break;
        case TD_KEY: codec_get_key_schema(&f, &out->key); break;
        case TD_BILLING:
            out->billing = (enum billing_mode) codec_get_u8(&f);
            if (out->billing > BILLING_PAY_PER_REQUEST) f.bad = true;
            break;
        case TD_THROUGHPUT:
            out->throughput.read_units = codec_get_ivar(&f);
            out->throughput.write_units = codec_get_ivar(&f);
            break;
        case TD_GSIS: get_indexes(&f, &out->gsis, &out->gsi_count); break;
        case TD_LSIS: get_indexes(&f, &out->lsis, &out->lsi_count); break;
        case TD_STREAM:
            out->stream.enabled = codec_get_bool(&f);
            out->stream.view = (enum stream_view) codec_get_u8(&f);
            if (out->stream.view > STREAM_KEYS_ONLY) f.bad = true;
            break;
        case TD_SSE:
            out->sse.enabled = codec_get_bool(&f);
            out->sse.sse_type = codec_get_str(&f);
            out->sse.kms_master_key_id = codec_get_str(&f);
            break;
        case TD_DELETION_PROTECTION: out->deletion_protection = codec_get_bool(&f); break;
        case TD_TABLE_CLASS: out->table_class = codec_get_str(&f); break;
        case TD_TAGS:
            n = codec_get_uvar(&f);
            if (n > 10000) f.bad = true;
            if (f.bad || !n) break;
            out->tags = xcalloc((size_t) n, sizeof *out->tags);
            out->tag_count = (size_t) n;
            for (size_t i = 0; i < n; i++) {
                out->tags[i].key = codec_get_str(&f);
                out->tags[i].value = codec_get_str(&f);
            }
            break;
        case TD_ON_DEMAND:
            out->on_demand.max_read = codec_get_ivar(&f);
            out->on_demand.max_write = codec_get_ivar(&f);
            break;
        case TD_WARM:
            out->warm.read_per_s = codec_get_ivar(&f);
            out->warm.write_per_s = codec_get_ivar(&f);
            break;
        case TD_GSI_LIMITS: get_gsi_limits(&f, out); break;
        case TD_VECTORS: codec_get_vector_defs(&f, out); break;
        case TD_REPLICATION_MODE: out->replication_mode = codec_get_str(&f); break;
        case TD_DISASSOCIATION_PROTECTION:
            n = codec_get_u8(&f);
            if (n > 2) f.bad = true;
            out->has_disassociation_protection = n > 0;
            out->disassociation_protection = n == 2;
            break;
        default: break; /* a field of a newer ddbemu: skipped */
        }
        if (f.bad) in->bad = true;
    }
    if (!out->name || !out->key.hash_count) in->bad = true;
    if (!in->bad && !keys_defined(out)) in->bad = true;
    if (in->bad) {
        table_def_clear(out);
        memset(out, 0, sizeof *out);
        return false;
    }
    return true;
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

static void get_vector_projection(struct codec_in *in, struct projection *p)
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
    get_vector_projection(in, &d->projection);
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
