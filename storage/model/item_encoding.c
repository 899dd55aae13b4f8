/*
 * item_encoding.c - an item's compact byte form; see item_encoding.h.
 *
 * The encoder writes into a text_buf in one pass: a container's byte length
 * goes in front of its body once the body is written (body_end). The decoder
 * reads through bounds-checked primitives and fails, never reads past the
 * end, on damage.
 */
#include "storage/model/item_encoding.h"

#include "storage/base/alloc.h"
#include "storage/base/error.h"
#include "storage/model/codec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* value = 0.d1..dn * 10^exponent, exponent in -129..126 (number.c): one byte. */
#define EXP_BIAS 129

enum { CLASS_NEGATIVE = 0, CLASS_ZERO = 1, CLASS_POSITIVE = 2 };

size_t number_to_comparable(const struct number *n, uint8_t out[NUMBER_COMPARABLE_MAX])
{
    size_t k = 0;
    uint8_t flip;

    if (n->digit_count == 0) {
        out[0] = CLASS_ZERO;
        return 1;
    }
    flip = n->negative ? 0xFF : 0x00;
    out[k++] = n->negative ? CLASS_NEGATIVE : CLASS_POSITIVE;
    out[k++] = (uint8_t) (n->exponent + EXP_BIAS) ^ flip;
    for (size_t i = 0; i < n->digit_count; i += 2) {
        uint8_t hi = (uint8_t) (n->digits[i] + 1);
        uint8_t lo = i + 1 < n->digit_count ? (uint8_t) (n->digits[i + 1] + 1) : 0;
        out[k++] = (uint8_t) ((hi << 4) | lo) ^ flip;
    }
    if (n->negative) out[k++] = 0xFF; /* a shorter negative sorts after its extensions */
    return k;
}

bool number_from_comparable(const uint8_t *p, size_t len, struct number *out)
{
    uint8_t flip;
    size_t end;

    memset(out, 0, sizeof *out);
    if (len == 1 && p[0] == CLASS_ZERO) return true;
    if (len < 3 || (p[0] != CLASS_NEGATIVE && p[0] != CLASS_POSITIVE)) return false;
    out->negative = p[0] == CLASS_NEGATIVE;
    flip = out->negative ? 0xFF : 0x00;
    end = len;
    if (out->negative) {
        if (p[len - 1] != 0xFF || len < 4) return false;
        end = len - 1;
    }
    out->exponent = (int16_t) ((p[1] ^ flip) - EXP_BIAS);
    for (size_t i = 2; i < end; i++) {
        uint8_t b = p[i] ^ flip, hi = b >> 4, lo = b & 0x0F;
        if (hi < 1 || hi > 10 || lo > 10 || out->digit_count + 2 > DDB_NUMBER_MAX_DIGITS + 1)
            return false;
        out->digits[out->digit_count++] = (uint8_t) (hi - 1);
        if (lo == 0) {
            if (i + 1 != end) return false; /* only the last byte pads */
            break;
        }
        if (out->digit_count == DDB_NUMBER_MAX_DIGITS) return false;
        out->digits[out->digit_count++] = (uint8_t) (lo - 1);
    }
    /* Normalized: no leading or trailing zero digit (number.h). */
    if (out->digits[0] == 0 || out->digits[out->digit_count - 1] == 0) return false;
    return true;
}

/* ---- encoding ---- */

size_t enc_uvar_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t number_text_to_comparable(const char *text, size_t len, uint8_t out[NUMBER_COMPARABLE_MAX])
{
    struct ddb_error err = {0};
    struct number n;
    int rc = number_parse(text, len, &n, &err);
    assert(rc == 0); /* stored numbers are canonical texts of valid numbers (value.h) */
    (void) rc;
    ddb_error_clear(&err);
    return number_to_comparable(&n, out);
}

static enum enc_type enc_type_of(const struct value *v)
{
    switch (v->type) {
    case VALUE_S: return ENC_S;
    case VALUE_N: return ENC_N;
    case VALUE_B: return ENC_B;
    case VALUE_BOOL: return v->u.boolean ? ENC_TRUE : ENC_FALSE;
    case VALUE_NULL: return ENC_NULL;
    case VALUE_M: return ENC_M;
    case VALUE_L: return ENC_L;
    case VALUE_SS: return ENC_SS;
    case VALUE_NS: return ENC_NS;
    case VALUE_BS: return ENC_BS;
    }
    abort();
}

/* A container's body length goes before the body, which is written first:
 * PREFIX_GUESS bytes are kept for it, and the body moves once it is known
 * when its varint needs fewer or more (one memmove of the body). Measuring
 * the body first instead would measure every nested level once per level
 * above it, numbers parsed again each time. */
#define PREFIX_GUESS 1

static size_t body_begin(struct text_buf *b)
{
    text_buf_reserve(b, PREFIX_GUESS);
    b->len += PREFIX_GUESS;
    return b->len;
}

static void body_end(struct text_buf *b, size_t start)
{
    size_t body = b->len - start;
    uint8_t prefix[10];
    size_t need = (size_t) (enc_put_uvar(prefix, body) - prefix);

    if (need != PREFIX_GUESS) {
        text_buf_reserve(b, need - PREFIX_GUESS);
        memmove(b->data + start - PREFIX_GUESS + need, b->data + start, body);
        b->len = b->len - PREFIX_GUESS + need;
    }
    memcpy(b->data + start - PREFIX_GUESS, prefix, need);
    b->data[b->len] = '\0';
}

/* The encoder's writes. Each piece makes its room first (room: a compare,
 * text_buf_reserve only when the buffer must grow - item_new's buffer is
 * the thread's, so after its first items it never does), then bytes go in
 * without a call each: the encoder writes a dozen pieces an item, and a
 * call to codec_put_uvar or text_buf_add for each was a third of its cost
 * (bench/README.md, "The stored item is its encoding"). */
static inline void room(struct text_buf *b, size_t n)
{
    if (!b->data || b->cap - b->len <= n) text_buf_reserve(b, n);
}

static inline void emit_byte(struct text_buf *b, uint8_t c)
{
    b->data[b->len++] = (char) c;
}

static inline void emit_uvar(struct text_buf *b, uint64_t v)
{
    uint8_t *at = (uint8_t *) b->data + b->len;
    b->len += (size_t) (enc_put_uvar(at, v) - at);
}

static inline void emit_bytes(struct text_buf *b, const void *data, size_t len)
{
    if (len) memcpy(b->data + b->len, data, len);
    b->len += len;
}

/* A length and the bytes it counts. */
static inline void emit_counted(struct text_buf *b, const void *data, size_t len)
{
    room(b, 10 + len);
    emit_uvar(b, len);
    emit_bytes(b, data, len);
}

static void put_value(struct text_buf *b, const struct value *v)
{
    uint8_t num[NUMBER_COMPARABLE_MAX];
    size_t n, start;
    switch (v->type) {
    case VALUE_S:
    case VALUE_B: emit_counted(b, v->u.str.data, v->u.str.len); return;
    case VALUE_N:
        n = number_text_to_comparable(v->u.str.data, v->u.str.len, num);
        emit_counted(b, num, n);
        return;
    case VALUE_BOOL:
    case VALUE_NULL: return;
    case VALUE_M:
        start = body_begin(b);
        room(b, 10);
        emit_uvar(b, v->u.map.count);
        for (size_t i = 0; i < v->u.map.count; i++) {
            const struct attr *a = &v->u.map.attrs[i];
            emit_counted(b, a->name, a->name_len);
            room(b, 1);
            emit_byte(b, (uint8_t) enc_type_of(&a->value));
            put_value(b, &a->value);
        }
        body_end(b, start);
        return;
    case VALUE_L:
        start = body_begin(b);
        room(b, 10);
        emit_uvar(b, v->u.list.count);
        for (size_t i = 0; i < v->u.list.count; i++) {
            room(b, 1);
            emit_byte(b, (uint8_t) enc_type_of(&v->u.list.elems[i]));
            put_value(b, &v->u.list.elems[i]);
        }
        body_end(b, start);
        return;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        start = body_begin(b);
        room(b, 10);
        emit_uvar(b, v->u.list.count);
        for (size_t i = 0; i < v->u.list.count; i++)
            put_value(b, &v->u.list.elems[i]);
        body_end(b, start);
        return;
    }
}

void item_encode_attr(struct text_buf *out, const char *name, size_t name_len,
                      const struct value *v, struct name_dict *dict)
{
    uint32_t id;

    room(out, 11 + name_len);
    if (dict && name_dict_intern(dict, name, name_len, &id)) {
        emit_uvar(out, (uint64_t) id << 1);
    } else {
        emit_uvar(out, ((uint64_t) name_len << 1) | 1);
        emit_bytes(out, name, name_len);
    }
    emit_byte(out, (uint8_t) enc_type_of(v));
    put_value(out, v);
    out->data[out->len] = '\0'; /* text_buf's promise (room kept space for it) */
}

void item_encode(struct text_buf *out, const struct value *attrs, struct name_dict *dict)
{
    assert(attrs->type == VALUE_M);
    room(out, 10);
    emit_uvar(out, attrs->u.map.count);
    for (size_t i = 0; i < attrs->u.map.count; i++) {
        const struct attr *a = &attrs->u.map.attrs[i];
        item_encode_attr(out, a->name, a->name_len, &a->value, dict);
    }
    out->data[out->len] = '\0'; /* text_buf's promise (room kept space for it) */
}

/* ---- decoding ---- */

struct reader {
    const uint8_t *p, *end;
};

static inline bool get_uvar(struct reader *r, uint64_t *v)
{
    uint64_t x = 0;
    /* Almost every length, count and name id is below 128: one byte. */
    if (r->p < r->end && !(*r->p & 0x80)) {
        *v = *r->p++;
        return true;
    }
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) return false;
        uint8_t c = *r->p++;
        x |= (uint64_t) (c & 0x7F) << shift;
        if (!(c & 0x80)) {
            *v = x;
            return true;
        }
    }
    return false;
}

/* Length-prefixed bytes: *data points into the input. */
static inline bool get_bytes(struct reader *r, const uint8_t **data, size_t *len)
{
    uint64_t n;
    if (!get_uvar(r, &n) || n > (uint64_t) (r->end - r->p)) return false;
    *data = r->p;
    *len = (size_t) n;
    r->p += n;
    return true;
}

/* Skips one value of type t; its bytes are [start, r->p). */
static inline bool skip_value(struct reader *r, enum enc_type t)
{
    const uint8_t *data;
    size_t len;
    switch (t) {
    case ENC_TRUE:
    case ENC_FALSE:
    case ENC_NULL: return true;
    case ENC_S:
    case ENC_N:
    case ENC_B:
    case ENC_M:
    case ENC_L:
    case ENC_SS:
    case ENC_NS:
    case ENC_BS: return get_bytes(r, &data, &len);
    }
    return false;
}

/* Values nest no deeper than DynamoDB's 32 levels; a bound keeps damage from recursing far. */
#define DECODE_MAX_DEPTH 64

void enc_cursor_init(struct enc_cursor *c, const void *data, size_t len,
                     const struct name_dict *dict)
{
    struct reader r = {data, (const uint8_t *) data + len};
    c->dict = dict;
    c->names = dict ? name_dict_count(dict) : 0;
    c->first_names = c->names ? name_dict_chunk(dict, 0) : NULL;
    c->left = 0;
    c->bad = !get_uvar(&r, &c->left);
    c->p = r.p;
    c->end = r.end;
}

bool enc_cursor_next_any(struct enc_cursor *c, struct enc_attr *out)
{
    struct reader r = {c->p, c->end};
    uint64_t name;
    if (c->bad || c->left == 0) return false;
    c->bad = true;
    if (!get_uvar(&r, &name)) return false;
    if (name & 1) {
        uint64_t len = name >> 1;
        if (len > (uint64_t) (r.end - r.p)) return false;
        out->name = (const char *) r.p;
        out->name_len = (size_t) len;
        out->name_plain = false;
        r.p += len;
    } else {
        if ((name >> 1) >= c->names) return false;
        enc_cursor_name(c, (uint32_t) (name >> 1), out);
    }
    if (r.p >= r.end) return false;
    out->type = *r.p++;
    out->value = r.p;
    if (!skip_value(&r, out->type)) return false;
    out->value_len = (size_t) (r.p - out->value);
    c->p = r.p;
    c->left--;
    c->bad = false;
    return true;
}

size_t item_encoded_length(const void *data, size_t max, const struct name_dict *dict)
{
    struct enc_cursor c;
    struct enc_attr a;

    enc_cursor_init(&c, data, max, dict);
    while (enc_cursor_next(&c, &a))
        ;
    return c.bad ? 0 : (size_t) (c.p - (const uint8_t *) data);
}

/* ---- reading in place ---- */

bool enc_value_bytes(const struct enc_value *v, const uint8_t **data, size_t *len)
{
    struct reader r = {v->p, v->p + v->len};
    if (v->type != ENC_S && v->type != ENC_N && v->type != ENC_B) return false;
    return get_bytes(&r, data, len) && r.p == r.end;
}

/* A digit byte's two characters ('0' - 1 + nibble: '/' for a padding 0) and
 * whether it is damage anywhere but last (a nibble outside 1..10). */
struct digit_pair {
    char text[2];
    uint8_t bad;
};
#define DP(b)                                                                                      \
    {                                                                                              \
        {(char) ('0' - 1 + (b) / 16), (char) ('0' - 1 + (b) % 16)},                                \
            (b) / 16 - 1u > 9u || (b) % 16 - 1u > 9u                                               \
    }
#define DP4(b)  DP(b), DP((b) + 1), DP((b) + 2), DP((b) + 3)
#define DP16(b) DP4(b), DP4((b) + 4), DP4((b) + 8), DP4((b) + 12)
#define DP64(b) DP16(b), DP16((b) + 16), DP16((b) + 32), DP16((b) + 48)
static const struct digit_pair digit_pairs[256] = {DP64(0), DP64(64), DP64(128), DP64(192)};

/*
 * The answer writers' number: the comparable bytes straight to
 * number_format's text (plain notation; value = 0.d1..dn * 10^e), checked as
 * number_from_comparable checks them but without a struct number between,
 * each byte's two digits looked up (digit_pairs) and written where they go,
 * no call for a text without padding zeros (bench/README.md, "Memory per item":
 * the compact encoding). test_item_encoding compares both on its table of
 * numbers. buf may be an answer's buffer: the writer passes its room.
 */
size_t enc_number_text(const uint8_t *data, size_t len, char *buf)
{
    size_t end = len, count, k = 0;
    unsigned bad = 0, flip, last;
    char *d;
    int e;

    if (len == 1 && data[0] == CLASS_ZERO) {
        buf[0] = '0';
        buf[1] = '\0';
        return 1;
    }
    if (len < 3 || (data[0] != CLASS_NEGATIVE && data[0] != CLASS_POSITIVE)) return 0;
    flip = data[0] == CLASS_NEGATIVE ? 0xFF : 0x00;
    if (flip) {
        if (len < 4 || data[len - 1] != 0xFF) return 0;
        end = len - 1;
    }
    if (end - 2 > (DDB_NUMBER_MAX_DIGITS + 1) / 2) return 0;
    e = (data[1] ^ flip) - EXP_BIAS;
    if (flip) buf[k++] = '-';
    if (e <= 0) {
        buf[k++] = '0';
        buf[k++] = '.';
        if (e < 0) memset(buf + k, '0', (size_t) -e);
        k += (size_t) -e;
    }
    /* Digit + 1 in each nibble: 1..10, and 0 (padding) only in the last low one. */
    d = buf + k;
    for (size_t i = 2; i + 1 < end; i++, d += 2) {
        const struct digit_pair *pair = &digit_pairs[data[i] ^ flip];
        memcpy(d, pair->text, 2);
        bad |= pair->bad;
    }
    last = data[end - 1] ^ flip;
    bad |= (last >> 4) - 1u > 9u || (last & 0x0F) > 10u;
    memcpy(d, digit_pairs[last].text, 2);
    count = 2 * (end - 2) - ((last & 0x0F) == 0);
    d = buf + k;
    /* Normalized: no leading or trailing zero digit (number.h). */
    if (bad || d[0] == '0' || d[count - 1] == '0') return 0;
    if (e <= 0) {
        k += count;
    } else if ((size_t) e >= count) {
        if ((size_t) e > count) memset(d + count, '0', (size_t) e - count);
        k += (size_t) e;
    } else {
        for (size_t i = count; i > (size_t) e; i--)
            d[i] = d[i - 1];
        d[e] = '.';
        k += count + 1;
    }
    buf[k] = '\0';
    return k;
}

bool enc_members_init(struct enc_members *m, const struct enc_value *v)
{
    struct reader r = {v->p, v->p + v->len};
    const uint8_t *body;
    size_t body_len;

    memset(m, 0, sizeof *m);
    m->bad = true;
    if (v->type != ENC_M && v->type != ENC_L && v->type != ENC_SS && v->type != ENC_NS &&
        v->type != ENC_BS)
        return false;
    if (!get_bytes(&r, &body, &body_len) || r.p != r.end) return false;
    r = (struct reader){body, body + body_len};
    if (!get_uvar(&r, &m->left)) return false;
    m->p = r.p;
    m->end = r.end;
    m->container = v->type;
    m->bad = false;
    return true;
}

bool enc_members_next(struct enc_members *m, const char **name, size_t *name_len,
                      struct enc_value *out)
{
    struct reader r = {m->p, m->end};
    const uint8_t *n;

    if (m->bad || m->left == 0) {
        if (!m->bad && m->p != m->end) m->bad = true; /* bytes after the last member */
        return false;
    }
    m->bad = true;
    if (m->container == ENC_M) {
        if (!get_bytes(&r, &n, name_len)) return false;
        *name = (const char *) n;
    }
    if (m->container == ENC_M || m->container == ENC_L) {
        if (r.p >= r.end) return false;
        out->type = *r.p++;
    } else {
        out->type = m->container == ENC_SS ? ENC_S : m->container == ENC_NS ? ENC_N : ENC_B;
    }
    out->p = r.p;
    if (!skip_value(&r, out->type)) return false;
    out->len = (size_t) (r.p - out->p);
    m->p = r.p;
    m->left--;
    m->bad = false;
    return true;
}

/*
 * value_size_bytes (value.c) over the encoding. A number costs one byte per
 * two significant digits, rounded up, plus one: its comparable form holds
 * the significant digits two to a byte after the class and exponent bytes
 * (a negative's 0xFF after them), so its size is its digit bytes plus one,
 * and zero (the class byte alone) is 1.
 */
size_t enc_value_size_bytes(const struct enc_value *v)
{
    struct enc_members m;
    struct enc_value member;
    const uint8_t *data;
    const char *name = NULL;
    size_t len, name_len = 0, size = 0;

    switch (v->type) {
    case ENC_S:
    case ENC_B: return enc_value_bytes(v, &data, &len) ? len : 0;
    case ENC_N:
        if (!enc_value_bytes(v, &data, &len) || len < 3) return 1;
        return len - (data[0] == CLASS_NEGATIVE ? 2 : 1);
    case ENC_TRUE:
    case ENC_FALSE:
    case ENC_NULL: return 1;
    case ENC_M:
    case ENC_L:
        if (!enc_members_init(&m, v)) return 0;
        size = 3;
        while (enc_members_next(&m, &name, &name_len, &member))
            size += 1 + (v->type == ENC_M ? name_len : 0) + enc_value_size_bytes(&member);
        return size;
    case ENC_SS:
    case ENC_NS:
    case ENC_BS:
        if (!enc_members_init(&m, v)) return 0;
        while (enc_members_next(&m, &name, &name_len, &member))
            size += enc_value_size_bytes(&member);
        return size;
    }
    return 0;
}

/* ---- decoding into an arena ---- */

struct decode_block {
    struct decode_block *older;
    size_t size; /* bytes after the header */
    _Alignas(8) char data[];
};

#define ARENA_FIRST_BLOCK 4096

void decode_arena_init(struct decode_arena *a)
{
    memset(a, 0, sizeof *a);
}

void decode_arena_clear(struct decode_arena *a)
{
    while (a->blocks) {
        struct decode_block *older = a->blocks->older;
        free(a->blocks);
        a->blocks = older;
    }
    free(a->spare);
    decode_arena_init(a);
}

void decode_arena_reset(struct decode_arena *a)
{
    struct decode_block *newest = a->blocks;
#ifdef DDB_SANITIZE_ARENA
    decode_arena_clear(a); /* nothing kept: a use after the reset is reported */
    return;
#endif
    if (!newest) return;
    /* The newest block is the largest: keep it, so the next request of this
     * size decodes without a malloc. */
    while (newest->older) {
        struct decode_block *older = newest->older->older;
        free(newest->older);
        newest->older = older;
    }
    a->next = newest->data;
    a->end = newest->data + newest->size;
}

struct decode_mark decode_arena_mark(const struct decode_arena *a)
{
    return (struct decode_mark){.block = a->blocks, .next = a->next};
}

void decode_arena_release(struct decode_arena *a, struct decode_mark mark)
{
    while (a->blocks != mark.block) {
        struct decode_block *b = a->blocks;
        assert(b); /* the mark's block is older than every block after it */
        a->blocks = b->older;
#ifdef DDB_SANITIZE_ARENA
        free(b);
#else
        /* Keep the largest block let go of: the next item of a loop that
         * marks and releases around each one decodes without a malloc. */
        if (a->spare && a->spare->size >= b->size) {
            free(b);
        } else {
            free(a->spare);
            a->spare = b;
        }
#endif
    }
    a->next = mark.next;
    a->end = mark.block ? mark.block->data + mark.block->size : NULL;
}

/* size bytes, 8-byte aligned, from a. */
static void *arena_alloc(struct decode_arena *a, size_t size)
{
    if (size == 0) return NULL; /* an empty map: a fresh arena has no block to point into */
    size = (size + 7) & ~(size_t) 7;
#ifdef DDB_SANITIZE_ARENA
    a->end = a->next; /* each allocation a block of its own (item_encoding.h) */
#endif
    if ((size_t) (a->end - a->next) < size) {
        size_t want = a->blocks ? a->blocks->size * 2 : ARENA_FIRST_BLOCK;
        struct decode_block *b;
#ifdef DDB_SANITIZE_ARENA
        want = size;
#endif
        while (want < size)
            want *= 2;
        if (a->spare && a->spare->size >= want) {
            b = a->spare;
            a->spare = NULL;
            want = b->size;
        } else {
            b = xmalloc(sizeof *b + want);
        }
        b->older = a->blocks;
        b->size = want;
        a->blocks = b;
        a->next = b->data;
        a->end = b->data + want;
    }
    void *out = a->next;
    a->next += size;
    return out;
}

static char *arena_bytes(struct decode_arena *a, const void *data, size_t len)
{
    char *out = arena_alloc(a, len + 1);
    if (len) memcpy(out, data, len);
    out[len] = '\0';
    return out;
}

static bool arena_value(struct decode_arena *a, struct reader *r, enum enc_type t,
                        struct value *out, int depth);

/* The members of a container whose body is r (exactly), into a. */
static bool arena_body(struct decode_arena *a, struct reader *r, enum enc_type t, struct value *out,
                       int depth)
{
    uint64_t count;
    if (!get_uvar(r, &count) || count > (uint64_t) (r->end - r->p)) return false;
    if (t == ENC_M) {
        value_frozen_map_init(out, arena_alloc(a, value_frozen_map_bytes(count)), count);
        for (uint64_t i = 0; i < count; i++) {
            struct attr *at = &out->u.map.attrs[i];
            const uint8_t *name;
            if (!get_bytes(r, &name, &at->name_len) || r->p >= r->end) return false;
            at->name = arena_bytes(a, name, at->name_len);
            enum enc_type vt = *r->p++;
            if (!arena_value(a, r, vt, &at->value, depth + 1)) return false;
        }
        value_frozen_map_seal(out);
        return r->p == r->end;
    }
    out->type = t == ENC_L ? VALUE_L : t == ENC_SS ? VALUE_SS : t == ENC_NS ? VALUE_NS : VALUE_BS;
    out->u.list.count = count;
    out->u.list.elems = count ? arena_alloc(a, count * sizeof(struct value)) : NULL;
    for (uint64_t i = 0; i < count; i++) {
        enum enc_type vt;
        if (t == ENC_L) {
            if (r->p >= r->end) return false;
            vt = *r->p++;
        } else {
            vt = t == ENC_SS ? ENC_S : t == ENC_NS ? ENC_N : ENC_B;
        }
        if (!arena_value(a, r, vt, &out->u.list.elems[i], depth + 1)) return false;
    }
    if (t != ENC_L && !value_set_is_sorted(out)) return false;
    return r->p == r->end;
}

static bool arena_value(struct decode_arena *a, struct reader *r, enum enc_type t,
                        struct value *out, int depth)
{
    const uint8_t *data;
    size_t len;
    char *text;

    out->type = VALUE_NULL;
    if (depth > DECODE_MAX_DEPTH) return false;
    switch (t) {
    case ENC_TRUE:
    case ENC_FALSE:
        out->type = VALUE_BOOL;
        out->u.boolean = t == ENC_TRUE;
        return true;
    case ENC_NULL: return true;
    case ENC_S:
    case ENC_B:
        if (!get_bytes(r, &data, &len)) return false;
        out->type = t == ENC_S ? VALUE_S : VALUE_B;
        out->u.str.data = arena_bytes(a, data, len);
        out->u.str.len = len;
        return true;
    case ENC_N:
        if (!get_bytes(r, &data, &len)) return false;
        text = arena_alloc(a, NUMBER_TEXT_MAX);
        if (!(out->u.str.len = enc_number_text(data, len, text))) return false;
        /* Give back what the text did not use: it is the newest allocation. */
        a->next = text + ((out->u.str.len + 1 + 7) & ~(size_t) 7);
        out->type = VALUE_N;
        out->u.str.data = text;
        return true;
    case ENC_M:
    case ENC_L:
    case ENC_SS:
    case ENC_NS:
    case ENC_BS: {
        if (!get_bytes(r, &data, &len)) return false;
        struct reader body = {data, data + len};
        if (arena_body(a, &body, t, out, depth)) return true;
        out->type = VALUE_NULL;
        return false;
    }
    }
    return false;
}

bool item_decode_in(struct decode_arena *a, const void *data, size_t len,
                    const struct name_dict *dict, struct value *out)
{
    struct enc_cursor c;
    struct enc_attr at;
    size_t i = 0;

    enc_cursor_init(&c, data, len, dict);
    if (c.bad || c.left > len) goto bad;
    value_frozen_map_init(out, arena_alloc(a, value_frozen_map_bytes(c.left)), c.left);
    while (enc_cursor_next(&c, &at)) {
        struct attr *d = &out->u.map.attrs[i++];
        struct reader r = {at.value, at.value + at.value_len};
        /* An interned name is the dictionary's NUL-terminated copy; inline ones are copied. */
        d->name = at.name >= (const char *) data && at.name < (const char *) data + len
                      ? arena_bytes(a, at.name, at.name_len)
                      : (char *) at.name;
        d->name_len = at.name_len;
        if (!arena_value(a, &r, at.type, &d->value, 0) || r.p != r.end) goto bad;
    }
    if (c.bad || c.p != c.end) goto bad;
    value_frozen_map_seal(out);
    return true;
bad:
    out->type = VALUE_NULL;
    return false;
}

/* ---- decoding into malloc'd trees ----
 *
 * One decoder (arena_value above) serves both forms: a tree the caller owns
 * is decoded into a scratch arena, then value_copy-ed out (one malloc per
 * node, as value_clear expects) and the arena freed. */

/* The tree decoded into scratch arena a (when ok) copied into *out, which
 * is NULL-typed otherwise; a is freed either way. Returns ok. */
static bool copy_out(struct decode_arena *a, bool ok, const struct value *in, struct value *out)
{
    if (ok)
        value_copy(out, in);
    else
        value_init_null(out);
    decode_arena_clear(a);
    return ok;
}

void *decode_arena_alloc(struct decode_arena *a, size_t size)
{
    return arena_alloc(a, size);
}

bool enc_value_decode_in(struct decode_arena *a, enum enc_type type, const uint8_t *p, size_t len,
                         struct value *out)
{
    struct reader r = {p, p + len};
    if (arena_value(a, &r, type, out, 0) && r.p == r.end) return true;
    out->type = VALUE_NULL;
    return false;
}

bool enc_value_decode(enum enc_type type, const uint8_t *p, size_t len, struct value *out)
{
    struct decode_arena a;
    struct reader r = {p, p + len};
    struct value in;
    bool ok;

    decode_arena_init(&a);
    ok = arena_value(&a, &r, type, &in, 0) && r.p == r.end;
    return copy_out(&a, ok, &in, out);
}

bool item_decode(const void *data, size_t len, const struct name_dict *dict, struct value *out)
{
    struct decode_arena a;
    struct value in;
    bool ok;

    decode_arena_init(&a);
    ok = item_decode_in(&a, data, len, dict, &in);
    return copy_out(&a, ok, &in, out);
}
