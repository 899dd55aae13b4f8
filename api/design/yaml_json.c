/*
 * yaml_json.c - YAML to JSON with libyaml's event parser; see yaml_json.h.
 *
 * A recursive descent over events: each node event builds its value, a
 * mapping or sequence start recurses until its end event. Depth is bounded
 * so that a hostile document cannot exhaust the stack.
 */
#include "api/design/yaml_json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define MAX_DEPTH 64

struct reader {
    yaml_parser_t parser;
    size_t line;
    char *why;
    size_t why_size;
};

static bool next(struct reader *r, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&r->parser, ev)) {
        r->line = r->parser.problem_mark.line + 1;
        snprintf(r->why, r->why_size, "%s", r->parser.problem ? r->parser.problem : "bad YAML");
        return false;
    }
    return true;
}

static json_t *fail(struct reader *r, const yaml_event_t *ev, const char *why)
{
    r->line = ev->start_mark.line + 1;
    snprintf(r->why, r->why_size, "%s", why);
    return NULL;
}

/* A plain scalar's JSON type by YAML 1.1's core forms that templates use. */
static json_t *plain_scalar(const char *s, size_t len)
{
    char *end;
    if (len == 0 || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0)
        return json_null();
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        return json_true();
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        return json_false();
    if ((s[0] >= '0' && s[0] <= '9') || ((s[0] == '-' || s[0] == '+') && len > 1)) {
        long long i;
        double d;
        errno = 0;
        i = strtoll(s, &end, 10);
        if (!errno && end == s + len) return json_integer(i);
        d = strtod(s, &end);
        if (!errno && end == s + len) return json_real(d);
    }
    return json_stringn(s, len);
}

/* The long form of a CloudFormation short-form tag: "!Ref" -> "Ref", "!Sub" -> "Fn::Sub". */
static void intrinsic_name(const char *tag, char *out, size_t size)
{
    if (strcmp(tag, "!Ref") == 0 || strcmp(tag, "!Condition") == 0)
        snprintf(out, size, "%s", tag + 1);
    else
        snprintf(out, size, "Fn::%s", tag + 1);
}

static json_t *node(struct reader *r, yaml_event_t *ev, int depth);

static json_t *with_tag(const yaml_char_t *tag, json_t *v)
{
    char name[64];
    json_t *wrap;
    if (!tag || tag[0] != '!' || tag[1] == '!') return v; /* no tag, or a standard !!tag */
    intrinsic_name((const char *) tag, name, sizeof name);
    wrap = json_object();
    json_object_set_new(wrap, name, v);
    return wrap;
}

static json_t *collection(struct reader *r, yaml_event_t *start, int depth, bool is_map)
{
    json_t *out = is_map ? json_object() : json_array();
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;

    for (;;) {
        yaml_event_t ev;
        json_t *key = NULL, *value;
        if (!next(r, &ev)) goto bad;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return out;
        }
        if (is_map) {
            if (ev.type != YAML_SCALAR_EVENT) {
                fail(r, &ev, "a mapping key must be a plain string");
                yaml_event_delete(&ev);
                goto bad;
            }
            key = json_stringn((const char *) ev.data.scalar.value, ev.data.scalar.length);
            yaml_event_delete(&ev);
            if (!next(r, &ev)) {
                json_decref(key);
                goto bad;
            }
        }
        value = node(r, &ev, depth + 1);
        yaml_event_delete(&ev);
        if (!value) {
            json_decref(key);
            goto bad;
        }
        if (is_map) {
            json_object_set_new(out, json_string_value(key), value);
            json_decref(key);
        } else {
            json_array_append_new(out, value);
        }
    }
bad:
    (void) start;
    json_decref(out);
    return NULL;
}

static json_t *node(struct reader *r, yaml_event_t *ev, int depth)
{
    if (depth > MAX_DEPTH) return fail(r, ev, "the document nests too deeply");
    switch (ev->type) {
    case YAML_SCALAR_EVENT: {
        const char *s = (const char *) ev->data.scalar.value;
        size_t len = ev->data.scalar.length;
        json_t *v = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE && !ev->data.scalar.tag
                        ? plain_scalar(s, len)
                        : json_stringn(s, len);
        return with_tag(ev->data.scalar.tag, v);
    }
    case YAML_SEQUENCE_START_EVENT: {
        json_t *v = collection(r, ev, depth, false);
        return v ? with_tag(ev->data.sequence_start.tag, v) : NULL;
    }
    case YAML_MAPPING_START_EVENT: {
        json_t *v = collection(r, ev, depth, true);
        return v ? with_tag(ev->data.mapping_start.tag, v) : NULL;
    }
    case YAML_ALIAS_EVENT: return fail(r, ev, "anchors and aliases are not supported");
    default: return fail(r, ev, "unexpected YAML structure");
    }
}

json_t *yaml_to_json(const char *text, size_t len, size_t *line, char *why, size_t why_size)
{
    struct reader r = {.line = 0, .why = why, .why_size = why_size};
    json_t *out = NULL;
    yaml_event_t ev;

    why[0] = '\0';
    yaml_parser_initialize(&r.parser);
    yaml_parser_set_input_string(&r.parser, (const unsigned char *) text, len);
    /* STREAM-START, DOCUMENT-START, then the root node. */
    for (;;) {
        if (!next(&r, &ev)) break;
        if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (ev.type == YAML_STREAM_END_EVENT) {
            fail(&r, &ev, "the document is empty");
        } else {
            out = node(&r, &ev, 0);
        }
        yaml_event_delete(&ev);
        break;
    }
    yaml_parser_delete(&r.parser);
    *line = r.line;
    return out;
}
