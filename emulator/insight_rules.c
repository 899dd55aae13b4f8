/*
 * insight_rules.c - the design gate's rules and their file (insight_rules.h).
 *
 * The defaults are a starting point a reviewer can argue with, each chosen
 * from DynamoDB's own numbers: a Scan is fine on a table that fits one 1 MB
 * page or so (1,000 items), a filter that throws away more than nine items of
 * ten is a missing index (and only judged from 100 items read, below which it
 * costs nothing), a partition key past its per-partition limit throttles, an
 * index that costs more than the table it serves deserves a second look, and
 * an item past a quarter of the 400 KB limit is on its way to it.
 */
#include "emulator/insight_rules.h"

#include "api/design/yaml_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const gate_rule_names[] = {
    "scan_max_items",
    "max_read_amplification",
    "min_items_read",
    "partition_limit_share",
    "index_cost_ratio",
    "max_item_bytes",
    NULL,
};

static double *field(struct gate_rules *r, const char *name)
{
    if (strcmp(name, "scan_max_items") == 0) return &r->scan_max_items;
    if (strcmp(name, "max_read_amplification") == 0) return &r->max_read_amplification;
    if (strcmp(name, "min_items_read") == 0) return &r->min_items_read;
    if (strcmp(name, "partition_limit_share") == 0) return &r->partition_limit_share;
    if (strcmp(name, "index_cost_ratio") == 0) return &r->index_cost_ratio;
    if (strcmp(name, "max_item_bytes") == 0) return &r->max_item_bytes;
    return NULL;
}

double gate_rule_value(const struct gate_rules *r, const char *name)
{
    return *field((struct gate_rules *) r, name);
}

void gate_config_defaults(struct gate_config *c)
{
    c->defaults = (struct gate_rules){
        .scan_max_items = 1000,
        .max_read_amplification = 10,
        .min_items_read = 100,
        .partition_limit_share = 1.0,
        .index_cost_ratio = 1.0,
        .max_item_bytes = 100 * 1024,
    };
    c->tables = json_object();
}

void gate_config_clear(struct gate_config *c)
{
    json_decref(c->tables);
    c->tables = NULL;
}

/* Applies the members of obj to r; -1 after saying which is wrong. */
static int apply(struct gate_rules *r, const json_t *obj, const char *path, const char *where)
{
    const char *name;
    json_t *v;

    if (!json_is_object(obj)) {
        fprintf(stderr, "ddbemu insight: %s: %s must be a mapping of rules\n", path, where);
        return -1;
    }
    json_object_foreach((json_t *) obj, name, v)
    {
        double *f = field(r, name);
        if (!f) {
            fprintf(stderr,
                    "ddbemu insight: %s: %s: no rule \"%s\" (scan_max_items, "
                    "max_read_amplification, min_items_read, partition_limit_share, "
                    "index_cost_ratio, max_item_bytes)\n",
                    path, where, name);
            return -1;
        }
        if (json_is_null(v) || json_is_false(v))
            *f = -1;
        else if (json_is_number(v) && json_number_value(v) >= 0)
            *f = json_number_value(v);
        else {
            fprintf(stderr,
                    "ddbemu insight: %s: %s.%s must be a number >= 0, or null/false "
                    "(off)\n",
                    path, where, name);
            return -1;
        }
    }
    return 0;
}

static json_t *read_document(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    size_t len = 0, cap = 0, n, line = 0;
    char why[256];
    const char *s;
    json_t *doc;

    if (!f) {
        perror(path);
        return NULL;
    }
    do {
        if (cap - len < 4096) text = realloc(text, cap = cap ? cap * 2 : 8192);
        if (!text) abort();
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
    } while (n > 0);
    fclose(f);
    text[len] = '\0';
    for (s = text; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; s++)
        ;
    if (*s == '{') {
        json_error_t jerr;
        doc = json_loadb(text, len, 0, &jerr);
        if (!doc) fprintf(stderr, "ddbemu insight: %s: line %d: %s\n", path, jerr.line, jerr.text);
    } else {
        doc = yaml_to_json(text, len, &line, why, sizeof why);
        if (!doc) fprintf(stderr, "ddbemu insight: %s: line %zu: %s\n", path, line, why);
    }
    free(text);
    return doc;
}

int gate_config_load(struct gate_config *c, const char *path)
{
    json_t *doc = read_document(path), *tables;
    const char *name;
    json_t *v;
    int rc = -1;

    if (!doc) return -1;
    if (!json_is_object(doc)) {
        fprintf(stderr, "ddbemu insight: %s: give a mapping with defaults and tables\n", path);
        goto out;
    }
    json_object_foreach(doc, name, v)
    {
        if (strcmp(name, "defaults") != 0 && strcmp(name, "tables") != 0) {
            fprintf(stderr, "ddbemu insight: %s: unknown member \"%s\" (defaults, tables)\n", path,
                    name);
            goto out;
        }
    }
    if (json_object_get(doc, "defaults") &&
        apply(&c->defaults, json_object_get(doc, "defaults"), path, "defaults") != 0)
        goto out;
    tables = json_object_get(doc, "tables");
    if (tables && !json_is_object(tables)) {
        fprintf(stderr, "ddbemu insight: %s: tables must map table names to rules\n", path);
        goto out;
    }
    json_object_foreach(tables, name, v)
    {
        struct gate_rules probe = c->defaults;
        char where[300];
        snprintf(where, sizeof where, "tables.%s", name);
        if (apply(&probe, v, path, where) != 0) goto out;
        json_object_set(c->tables, name, v);
    }
    rc = 0;
out:
    json_decref(doc);
    return rc;
}

void gate_rules_for(const struct gate_config *c, const char *table, struct gate_rules *out)
{
    const json_t *own = json_object_get(c->tables, table);

    *out = c->defaults;
    if (own) apply(out, own, "", ""); /* checked when loaded */
}
