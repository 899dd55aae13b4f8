/*
 * ion.c - DynamoDB items in Amazon Ion text; see ion.h.
 */
#include "api/transfer/ion.h"

#include "storage/base/alloc.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"
#include "storage/model/number.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* writing                                                                   */
/* ------------------------------------------------------------------------ */

/* A string or symbol text with Ion's escapes (the JSON ones, and \xHH for
 * other control bytes). */
static void write_escaped(struct text_buf *b, const char *s, size_t len, char quote)
{
    text_buf_add(b, &quote, 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s[i];
        switch (c) {
        case '\\': text_buf_puts(b, "\\\\"); break;
        case '\n': text_buf_puts(b, "\\n"); break;
        case '\r': text_buf_puts(b, "\\r"); break;
        case '\t': text_buf_puts(b, "\\t"); break;
        default:
            if (c == (unsigned char) quote)
                text_buf_printf(b, "\\%c", quote);
            else if (c < 0x20 || c == 0x7f)
                text_buf_printf(b, "\\x%02x", c);
            else
                text_buf_add(b, (const char *) &c, 1);
        }
    }
    text_buf_add(b, &quote, 1);
}

/* A field name: a bare symbol when it is one (as AWS's exports write
 * "Item:", "Authors:"), otherwise a quoted symbol. */
static void write_field_name(struct text_buf *b, const char *name, size_t len)
{
    static const char *const keywords[] = {"null", "true", "false", "nan", NULL};
    bool bare = len > 0 && !(name[0] >= '0' && name[0] <= '9');

    for (size_t i = 0; bare && i < len; i++) {
        char c = name[i];
        bare = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '$';
    }
    for (size_t k = 0; bare && keywords[k]; k++)
        bare = !(strlen(keywords[k]) == len && memcmp(keywords[k], name, len) == 0);
    if (bare)
        text_buf_add(b, name, len);
    else
        write_escaped(b, name, len, '\'');
}

/* A DynamoDB number as an Ion decimal, in AWS's forms: "103." (an integer),
 * "6d2" (600: the coefficient without its trailing zeros), "1.5". */
static void write_decimal(struct text_buf *b, const char *text, size_t len)
{
    struct number n;
    struct ddb_error err = {0};
    int scale; /* the decimal exponent of the last digit */

    if (number_parse(text, len, &n, &err) != 0) {
        /* Stored numbers are canonical; this cannot happen. */
        ddb_error_clear(&err);
        text_buf_puts(b, "0.");
        return;
    }
    if (n.digit_count == 0) {
        text_buf_puts(b, "0.");
        return;
    }
    if (n.negative) text_buf_puts(b, "-");
    scale = n.exponent - n.digit_count;
    if (scale > 0) {
        for (int i = 0; i < n.digit_count; i++)
            text_buf_printf(b, "%d", n.digits[i]);
        text_buf_printf(b, "d%d", scale);
    } else if (scale == 0) {
        for (int i = 0; i < n.digit_count; i++)
            text_buf_printf(b, "%d", n.digits[i]);
        text_buf_puts(b, ".");
    } else if (n.exponent > 0) {
        for (int i = 0; i < n.digit_count; i++) {
            if (i == n.exponent) text_buf_puts(b, ".");
            text_buf_printf(b, "%d", n.digits[i]);
        }
    } else if (n.exponent > -20) {
        text_buf_puts(b, "0.");
        for (int i = 0; i < -n.exponent; i++)
            text_buf_puts(b, "0");
        for (int i = 0; i < n.digit_count; i++)
            text_buf_printf(b, "%d", n.digits[i]);
    } else {
        for (int i = 0; i < n.digit_count; i++)
            text_buf_printf(b, "%d", n.digits[i]);
        text_buf_printf(b, "d%d", scale);
    }
}

static void write_value(struct text_buf *b, const struct value *v)
{
    char *encoded;

    switch (v->type) {
    case VALUE_S: write_escaped(b, v->u.str.data, v->u.str.len, '"'); break;
    case VALUE_N: write_decimal(b, v->u.str.data, v->u.str.len); break;
    case VALUE_B:
        encoded = text_base64_encode_new(v->u.str.data, v->u.str.len);
        text_buf_printf(b, "{{%s}}", encoded);
        free(encoded);
        break;
    case VALUE_BOOL: text_buf_puts(b, v->u.boolean ? "true" : "false"); break;
    case VALUE_NULL: text_buf_puts(b, "null"); break;
    case VALUE_M:
        text_buf_puts(b, "{");
        for (size_t i = 0; i < v->u.map.count; i++) {
            if (i) text_buf_puts(b, ",");
            write_field_name(b, v->u.map.attrs[i].name, v->u.map.attrs[i].name_len);
            text_buf_puts(b, ":");
            write_value(b, &v->u.map.attrs[i].value);
        }
        text_buf_puts(b, "}");
        break;
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        text_buf_printf(b, "$dynamodb_%s::", value_type_name(v->type));
        __attribute__((fallthrough)); /* the elements are a list */
    case VALUE_L:
        text_buf_puts(b, "[");
        for (size_t i = 0; i < v->u.list.count; i++) {
            if (i) text_buf_puts(b, ",");
            write_value(b, &v->u.list.elems[i]);
        }
        text_buf_puts(b, "]");
        break;
    }
}

void ion_write_item_line(struct text_buf *b, const struct value *item)
{
    text_buf_puts(b, "$ion_1_0 {Item:");
    write_value(b, item);
    text_buf_puts(b, "}\n");
}

void ion_write_change_line(struct text_buf *b, int64_t micros, const struct value *keys,
                           const struct value *new_image, const struct value *old_image)
{
    text_buf_printf(b, "$ion_1_0 {Metadata:{WriteTimestampMicros:%lld.},Keys:", (long long) micros);
    write_value(b, keys);
    if (new_image) {
        text_buf_puts(b, ",NewImage:");
        write_value(b, new_image);
    }
    if (old_image) {
        text_buf_puts(b, ",OldImage:");
        write_value(b, old_image);
    }
    text_buf_puts(b, "}\n");
}

/* ------------------------------------------------------------------------ */
/* reading                                                                   */
/* ------------------------------------------------------------------------ */

struct reader {
    const char *p, *end;
    char *why; /* owned; the first error */
};

static int fail(struct reader *r, const char *what)
{
    if (!r->why) r->why = xstrdup(what);
    return -1;
}

static void skip_space(struct reader *r)
{
    while (r->p < r->end) {
        if (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n' || *r->p == ',') {
            /* Commas separate values; skip_space is called where one may stand. */
            if (*r->p == ',') return;
            r->p++;
        } else if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '/') {
            while (r->p < r->end && *r->p != '\n')
                r->p++;
        } else if (r->end - r->p >= 2 && r->p[0] == '/' && r->p[1] == '*') {
            const char *close = NULL;
            for (const char *q = r->p + 2; q + 1 < r->end; q++) {
                if (q[0] == '*' && q[1] == '/') {
                    close = q;
                    break;
                }
            }
            r->p = close ? close + 2 : r->end;
        } else {
            return;
        }
    }
}

static bool is_symbol_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$' ||
           (!first && c >= '0' && c <= '9');
}

/* A quoted string ("..." or '...') into b, its escapes decoded. */
static int read_quoted(struct reader *r, char quote, struct text_buf *b)
{
    r->p++;
    while (r->p < r->end && *r->p != quote) {
        char c = *r->p++;
        if (c != '\\') {
            text_buf_add(b, &c, 1);
            continue;
        }
        if (r->p >= r->end) return fail(r, "unterminated escape");
        c = *r->p++;
        switch (c) {
        case 'n': text_buf_add(b, "\n", 1); break;
        case 'r': text_buf_add(b, "\r", 1); break;
        case 't': text_buf_add(b, "\t", 1); break;
        case '0': text_buf_add(b, "\0", 1); break;
        case '\\':
        case '"':
        case '\'':
        case '/': text_buf_add(b, &c, 1); break;
        case 'x': {
            unsigned v;
            if (r->end - r->p < 2 || sscanf(r->p, "%2x", &v) != 1) return fail(r, "bad \\x escape");
            c = (char) v;
            text_buf_add(b, &c, 1);
            r->p += 2;
            break;
        }
        case 'u': {
            unsigned v;
            char utf8[TEXT_UTF8_MAX_BYTES];
            if (r->end - r->p < 4 || sscanf(r->p, "%4x", &v) != 1) return fail(r, "bad \\u escape");
            r->p += 4;
            text_buf_add(b, utf8, text_utf8_encode(v, utf8));
            break;
        }
        default: return fail(r, "unknown escape in a string");
        }
    }
    if (r->p >= r->end) return fail(r, "unterminated string");
    r->p++;
    return 0;
}

/* A string: "...", or one or more '''...''' parts (concatenated). */
static int read_string(struct reader *r, struct text_buf *b)
{
    if (*r->p == '"') return read_quoted(r, '"', b);
    while (r->end - r->p >= 3 && strncmp(r->p, "'''", 3) == 0) {
        const char *close = NULL;
        for (const char *q = r->p + 3; q + 2 < r->end; q++) {
            if (strncmp(q, "'''", 3) == 0) {
                close = q;
                break;
            }
        }
        if (!close) return fail(r, "unterminated long string");
        text_buf_add(b, r->p + 3, (size_t) (close - r->p - 3));
        r->p = close + 3;
        skip_space(r);
    }
    return 0;
}

/* A field name or annotation: a symbol, a 'quoted symbol' or a "string". */
static int read_symbol(struct reader *r, struct text_buf *b)
{
    if (r->p >= r->end) return fail(r, "a name was expected");
    if (*r->p == '\'' && !(r->end - r->p >= 3 && strncmp(r->p, "'''", 3) == 0))
        return read_quoted(r, '\'', b);
    if (*r->p == '"' || *r->p == '\'') return read_string(r, b);
    if (!is_symbol_char(*r->p, true)) return fail(r, "a name was expected");
    while (r->p < r->end && is_symbol_char(*r->p, false))
        text_buf_add(b, r->p++, 1);
    return 0;
}

/* Reads one value into *out (initialized first). On failure *out holds what
 * was built before the error, and the caller clears it. */
static int read_value(struct reader *r, struct value *out, int depth);

/* A number: int, decimal (d exponent) or float (e exponent), as exact N text. */
static int read_number(struct reader *r, struct value *out)
{
    char text[NUMBER_TEXT_MAX];
    size_t n = 0;
    struct number num;
    struct ddb_error err = {0};
    char canonical[NUMBER_TEXT_MAX];

    while (r->p < r->end && n + 1 < sizeof text &&
           ((*r->p >= '0' && *r->p <= '9') || *r->p == '-' || *r->p == '+' || *r->p == '.' ||
            *r->p == 'd' || *r->p == 'D' || *r->p == 'e' || *r->p == 'E' || *r->p == '_')) {
        char c = *r->p++;
        if (c == '_') continue; /* digit separators */
        text[n++] = c == 'd' || c == 'D' ? 'E' : c;
    }
    /* "103." is 103 */
    if (n && text[n - 1] == '.') n--;
    if (number_parse(text, n, &num, &err) != 0) {
        ddb_error_clear(&err);
        return fail(r, "a number DynamoDB cannot hold");
    }
    n = number_format(&num, canonical, sizeof canonical);
    value_init_number_text(out, canonical, n);
    return 0;
}

static int read_list(struct reader *r, struct value *out, enum value_type type, int depth)
{
    value_init_list(out, type);
    r->p++;
    for (;;) {
        struct value e;
        skip_space(r);
        if (r->p < r->end && *r->p == ']') break;
        if (read_value(r, &e, depth + 1) != 0) {
            value_clear(&e); /* what it built before failing */
            return -1;
        }
        if (type != VALUE_L && e.type != value_set_element_type(type)) {
            value_clear(&e);
            return fail(r, "a set element of another type");
        }
        value_list_append(out, &e);
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == ']') break;
        return fail(r, "',' or ']' was expected");
    }
    r->p++;
    /* Sets are kept in set order (storage/model/value.h), and hold no
     * duplicates (as the DynamoDB JSON lines, whose decoder refuses them). */
    if (type != VALUE_L && !value_set_sort(out)) return fail(r, "a set with duplicate members");
    return 0;
}

static int read_struct(struct reader *r, struct value *out, int depth)
{
    value_init_map(out);
    r->p++;
    for (;;) {
        struct text_buf name = {0};
        struct value v;
        skip_space(r);
        if (r->p < r->end && *r->p == '}') break;
        if (read_symbol(r, &name) != 0) {
            text_buf_clear(&name);
            return -1;
        }
        skip_space(r);
        if (r->p >= r->end || *r->p != ':') {
            text_buf_clear(&name);
            return fail(r, "':' was expected");
        }
        r->p++;
        skip_space(r);
        if (read_value(r, &v, depth + 1) != 0) {
            value_clear(&v); /* what it built before failing */
            text_buf_clear(&name);
            return -1;
        }
        value_map_set(out, name.data ? name.data : "", name.len, &v);
        text_buf_clear(&name);
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == '}') break;
        return fail(r, "',' or '}' was expected");
    }
    r->p++;
    return 0;
}

/* {{base64}} */
static int read_blob(struct reader *r, struct value *out)
{
    const char *start, *close;
    struct text_buf clean = {0};
    size_t len;
    char *data;

    r->p += 2;
    start = r->p;
    close = NULL;
    for (const char *q = start; q + 1 < r->end; q++) {
        if (q[0] == '}' && q[1] == '}') {
            close = q;
            break;
        }
    }
    if (!close) return fail(r, "unterminated blob");
    for (const char *q = start; q < close; q++) {
        if (*q != ' ' && *q != '\n' && *q != '\t' && *q != '\r') text_buf_add(&clean, q, 1);
    }
    r->p = close + 2;
    if (!text_base64_valid(clean.data ? clean.data : "", clean.len)) {
        text_buf_clear(&clean);
        return fail(r, "a blob that is not base64");
    }
    data = text_base64_decode(clean.data ? clean.data : "", clean.len, &len);
    value_init_binary(out, data, len);
    free(data);
    text_buf_clear(&clean);
    return 0;
}

static int read_value(struct reader *r, struct value *out, int depth)
{
    struct text_buf annotation = {0};
    enum value_type list_type = VALUE_L;

    value_init_null(out);
    if (depth > DDB_MAX_NESTING_DEPTH + 1) return fail(r, "nested too deeply");
    skip_space(r);
    if (r->p >= r->end) return fail(r, "a value was expected");
    /* Annotations: name::value. Only the set ones mean anything here. */
    for (;;) {
        const char *save = r->p;
        struct text_buf name = {0};
        if ((*r->p == '\'' || is_symbol_char(*r->p, true)) && read_symbol(r, &name) == 0 &&
            r->end - r->p >= 2 && r->p[0] == ':' && r->p[1] == ':') {
            r->p += 2;
            text_buf_clear(&annotation);
            annotation = name;
            skip_space(r);
            continue;
        }
        text_buf_clear(&name);
        free(r->why);
        r->why = NULL;
        r->p = save;
        break;
    }
    if (annotation.data) {
        if (strcmp(annotation.data, "$dynamodb_SS") == 0)
            list_type = VALUE_SS;
        else if (strcmp(annotation.data, "$dynamodb_NS") == 0)
            list_type = VALUE_NS;
        else if (strcmp(annotation.data, "$dynamodb_BS") == 0)
            list_type = VALUE_BS;
        text_buf_clear(&annotation);
    }
    if (r->p >= r->end) return fail(r, "a value was expected");
    if (*r->p == '{' && r->end - r->p >= 2 && r->p[1] == '{') return read_blob(r, out);
    if (*r->p == '{') return read_struct(r, out, depth);
    if (*r->p == '[') return read_list(r, out, list_type, depth);
    if (*r->p == '"' || (r->end - r->p >= 3 && strncmp(r->p, "'''", 3) == 0)) {
        struct text_buf s = {0};
        int rc = read_string(r, &s);
        if (rc == 0) value_init_string(out, s.data ? s.data : "", s.len);
        text_buf_clear(&s);
        return rc;
    }
    if ((*r->p >= '0' && *r->p <= '9') || *r->p == '-') return read_number(r, out);
    if (is_symbol_char(*r->p, true)) {
        struct text_buf word = {0};
        read_symbol(r, &word);
        /* null, null.<type>, true, false */
        if (word.data && strcmp(word.data, "null") == 0) {
            if (r->p < r->end && *r->p == '.') {
                r->p++;
                while (r->p < r->end && is_symbol_char(*r->p, false))
                    r->p++;
            }
            text_buf_clear(&word);
            return 0;
        }
        if (word.data && (strcmp(word.data, "true") == 0 || strcmp(word.data, "false") == 0)) {
            value_init_bool(out, word.data[0] == 't');
            text_buf_clear(&word);
            return 0;
        }
        text_buf_clear(&word);
        return fail(r, "a symbol value DynamoDB has no type for");
    }
    return fail(r, "a value of a type DynamoDB has no type for");
}

int ion_read_item_line(const char *line, size_t len, struct value *out, char **why)
{
    struct reader r = {line, line + len, NULL};
    struct value top;
    const struct value *item;

    *why = NULL;
    value_init_null(out);
    skip_space(&r);
    if (r.p >= r.end) return -1; /* blank */
    if (r.end - r.p >= 8 && strncmp(r.p, "$ion_1_0", 8) == 0) {
        r.p += 8;
        skip_space(&r);
    }
    if (read_value(&r, &top, 0) != 0) {
        value_clear(&top);
        *why = r.why ? r.why : xstrdup("not an Ion value");
        return -1;
    }
    skip_space(&r);
    item = top.type == VALUE_M ? value_map_get(&top, "Item", 4) : NULL;
    if (r.p < r.end || !item || item->type != VALUE_M) {
        value_clear(&top);
        free(r.why);
        *why = xstrdup("each line must hold one struct {Item: {...}}");
        return -1;
    }
    value_copy(out, item);
    value_clear(&top);
    free(r.why);
    return 0;
}

int ion_read_line(const char *line, size_t len, struct value *out, char **why)
{
    struct reader r = {line, line + len, NULL};

    *why = NULL;
    value_init_null(out);
    skip_space(&r);
    if (r.p >= r.end) return -1; /* blank */
    if (r.end - r.p >= 8 && strncmp(r.p, "$ion_1_0", 8) == 0) {
        r.p += 8;
        skip_space(&r);
    }
    if (read_value(&r, out, 0) != 0) {
        value_clear(out);
        value_init_null(out);
        *why = r.why ? r.why : xstrdup("not an Ion value");
        return -1;
    }
    skip_space(&r);
    free(r.why);
    if (r.p < r.end || out->type != VALUE_M) {
        value_clear(out);
        value_init_null(out);
        *why = xstrdup("each line must hold one struct");
        return -1;
    }
    return 0;
}
