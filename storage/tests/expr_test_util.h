/*
 * expr_test_util.h - a compact literal notation for attribute values, so that
 * expression tests can be tables of (expression, names, values, item, expected).
 *
 *   "text"          S            b"bytes"       B (raw bytes, \xNN escapes)
 *   12, -1.5e3      N            true, false    BOOL
 *   null            NULL         [v, ...]       L
 *   {"k": v, ...}   M            <<v, ...>>     SS, NS or BS (by element type)
 *
 * Strings take \" \\ and \xNN escapes. Numbers go through number_parse, so they
 * are canonical. Test helpers only: they abort on malformed literals.
 */
#ifndef DDB_EXPR_TEST_UTIL_H
#define DDB_EXPR_TEST_UTIL_H

#include "storage/base/error.h"
#include "storage/expr/expr.h"
#include "storage/model/number.h"
#include "storage/model/value.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct lit {
    const char *s;
};

static void lit_die(const struct lit *p, const char *what)
{
    fprintf(stderr, "bad test literal (%s) at: %s\n", what, p->s);
    abort();
}

static void lit_ws(struct lit *p)
{
    while (*p->s == ' ' || *p->s == '\n' || *p->s == '\t')
        p->s++;
}

static size_t lit_string(struct lit *p, char *buf, size_t cap)
{
    size_t n = 0;
    if (*p->s != '"') lit_die(p, "expected \"");
    p->s++;
    while (*p->s != '"') {
        char c = *p->s++;
        if (c == '\0') lit_die(p, "unterminated string");
        if (c == '\\') {
            c = *p->s++;
            if (c == 'x') {
                unsigned v = 0;
                for (int i = 0; i < 2; i++) {
                    char h = *p->s++;
                    v = v * 16 + (unsigned) (h >= 'a'   ? h - 'a' + 10
                                             : h >= 'A' ? h - 'A' + 10
                                                        : h - '0');
                }
                c = (char) v;
            }
        }
        if (n + 1 >= cap) lit_die(p, "string too long");
        buf[n++] = c;
    }
    p->s++;
    buf[n] = '\0';
    return n;
}

static void lit_value(struct lit *p, struct value *out);

static void lit_number(struct lit *p, struct value *out)
{
    const char *start = p->s;
    struct number n;
    struct ddb_error err = {0};
    char buf[NUMBER_TEXT_MAX];

    while (*p->s && strchr("+-0123456789.eE", *p->s))
        p->s++;
    if (number_parse(start, (size_t) (p->s - start), &n, &err) != 0) lit_die(p, "number");
    value_init_number_text(out, buf, number_format(&n, buf, sizeof buf));
}

static void lit_value(struct lit *p, struct value *out)
{
    static char buf[65536];
    size_t n;

    lit_ws(p);
    if (*p->s == '"') {
        n = lit_string(p, buf, sizeof buf);
        value_init_string(out, buf, n);
    } else if (p->s[0] == 'b' && p->s[1] == '"') {
        p->s++;
        n = lit_string(p, buf, sizeof buf);
        value_init_binary(out, buf, n);
    } else if (strncmp(p->s, "true", 4) == 0) {
        p->s += 4;
        value_init_bool(out, true);
    } else if (strncmp(p->s, "false", 5) == 0) {
        p->s += 5;
        value_init_bool(out, false);
    } else if (strncmp(p->s, "null", 4) == 0) {
        p->s += 4;
        value_init_null(out);
    } else if (*p->s == '[') {
        p->s++;
        value_init_list(out, VALUE_L);
        for (lit_ws(p); *p->s != ']';) {
            struct value e;
            lit_value(p, &e);
            value_list_append(out, &e);
            lit_ws(p);
            if (*p->s == ',') p->s++;
            lit_ws(p);
        }
        p->s++;
    } else if (p->s[0] == '<' && p->s[1] == '<') {
        p->s += 2;
        value_init_null(out);
        for (lit_ws(p); !(p->s[0] == '>' && p->s[1] == '>');) {
            struct value e;
            lit_value(p, &e);
            if (out->type == VALUE_NULL)
                value_init_list(out, e.type == VALUE_S   ? VALUE_SS
                                     : e.type == VALUE_N ? VALUE_NS
                                                         : VALUE_BS);
            value_list_append(out, &e);
            lit_ws(p);
            if (*p->s == ',') p->s++;
            lit_ws(p);
        }
        p->s += 2;
        value_set_sort(out); /* a set is kept in set order (value.h), as decoders leave it */
    } else if (*p->s == '{') {
        p->s++;
        value_init_map(out);
        for (lit_ws(p); *p->s != '}';) {
            struct value e;
            char *name = malloc(4096);
            size_t len = lit_string(p, name, 4096);
            lit_ws(p);
            if (*p->s != ':') lit_die(p, "expected :");
            p->s++;
            lit_value(p, &e);
            value_map_set(out, name, len, &e);
            free(name);
            lit_ws(p);
            if (*p->s == ',') p->s++;
            lit_ws(p);
        }
        p->s++;
    } else {
        lit_number(p, out);
    }
}

/* Parses a literal; NULL text gives a NULL-typed value. */
static inline void lit(const char *text, struct value *out)
{
    struct lit p = {text};
    if (!text) {
        value_init_null(out);
        return;
    }
    lit_value(&p, out);
    lit_ws(&p);
    if (*p.s) lit_die(&p, "trailing text");
}

/* Appends v in the literal notation (maps in stored order). */
static void lit_render(const struct value *v, char *buf, size_t cap, size_t *len)
{
#define PUT(...) (*len += (size_t) snprintf(buf + *len, *len < cap ? cap - *len : 0, __VA_ARGS__))
    switch (v->type) {
    case VALUE_S: PUT("\"%.*s\"", (int) v->u.str.len, v->u.str.data); break;
    case VALUE_B: PUT("b\"%.*s\"", (int) v->u.str.len, v->u.str.data); break;
    case VALUE_N: PUT("%.*s", (int) v->u.str.len, v->u.str.data); break;
    case VALUE_BOOL: PUT("%s", v->u.boolean ? "true" : "false"); break;
    case VALUE_NULL: PUT("null"); break;
    case VALUE_L:
    case VALUE_SS:
    case VALUE_NS:
    case VALUE_BS:
        PUT("%s", v->type == VALUE_L ? "[" : "<<");
        for (size_t i = 0; i < v->u.list.count; i++) {
            if (i) PUT(", ");
            lit_render(&v->u.list.elems[i], buf, cap, len);
        }
        PUT("%s", v->type == VALUE_L ? "]" : ">>");
        break;
    case VALUE_M:
        PUT("{");
        for (size_t i = 0; i < v->u.map.count; i++) {
            if (i) PUT(", ");
            PUT("\"%.*s\": ", (int) v->u.map.attrs[i].name_len, v->u.map.attrs[i].name);
            lit_render(&v->u.map.attrs[i].value, buf, cap, len);
        }
        PUT("}");
        break;
    }
#undef PUT
}

/* The literal of v in a static buffer (for failure messages). */
static inline const char *lit_str(const struct value *v)
{
    static char buf[8192];
    size_t len = 0;
    buf[0] = '\0';
    lit_render(v, buf, sizeof buf, &len);
    return buf;
}

/*
 * Parses one expression with names/values given as literals ({"#n": "x"});
 * returns the tree (NULL on error) and the error message (or "") in msg.
 * The names/values live in *names / *values, which the caller clears after
 * freeing the tree. Unused names/values are checked too, as the api does after
 * the last expression of a request.
 */
static inline struct expr *parse_lit(enum expr_kind kind, const char *param, const char *text,
                                     const char *names_lit, const char *values_lit,
                                     struct value *names, struct value *values, char *msg,
                                     size_t msg_cap)
{
    struct expr_ctx ctx;
    struct ddb_error err = {0};
    struct expr *e = NULL;

    lit(names_lit, names);
    lit(values_lit, values);
    expr_ctx_init(&ctx, names_lit ? names : NULL, values_lit ? values : NULL);
    msg[0] = '\0';
    if (expr_parse(kind, param, text, strlen(text), &ctx, &e, &err) != 0 ||
        expr_ctx_check_unused(&ctx, &err) != 0) {
        snprintf(msg, msg_cap, "%s", err.message ? err.message : "(no message)");
        expr_free(e);
        e = NULL;
    }
    ddb_error_clear(&err);
    expr_ctx_clear(&ctx);
    return e;
}

#endif
