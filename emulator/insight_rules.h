/*
 * insight_rules.h - the rules of the design gate (`ddbemu insight --check
 * [RULES]`, insight_check.h): what the recorded traffic may not do, with
 * defaults, overridden for every table or per table by a RULES file.
 *
 * The file is JSON or YAML (told apart by its first character: '{' is
 * JSON), of the shape
 *
 *   defaults: {scan_max_items: 1000, ...}     # every table
 *   tables:   {Orders: {scan_max_items: 0}}   # one table (its name)
 *
 * A rule set to null or false is off. Unknown names are refused, so a typo
 * cannot switch a check off unseen.
 */
#ifndef DDB_EMULATOR_INSIGHT_RULES_H
#define DDB_EMULATOR_INSIGHT_RULES_H

#include <jansson.h>
#include <stdbool.h>

/* Every rule is a limit; a negative one is off. */
struct gate_rules {
    double scan_max_items;         /* a Scan on a table (or index) with more items than this */
    double max_read_amplification; /* items read per item returned, by a Query or Scan ... */
    double min_items_read;         /* ... that read at least this many (small runs are noise) */
    double partition_limit_share;  /* a partition key's busiest second, as a share of 3,000
                                      RCU/s or 1,000 WCU/s */
    double index_cost_ratio;       /* an index's on-demand cost per its table's */
    double max_item_bytes;         /* the largest item */
};

struct gate_config {
    struct gate_rules defaults;
    json_t *tables; /* owned: table name -> its rules object, as given */
};

/* The defaults, with no file. */
void gate_config_defaults(struct gate_config *c);
/* Reads a RULES file over the defaults. Returns 0, or -1 after saying why
 * (the file, the member) on stderr. */
int gate_config_load(struct gate_config *c, const char *path);
void gate_config_clear(struct gate_config *c);

/* The rules for one table: the defaults with its overrides. */
void gate_rules_for(const struct gate_config *c, const char *table, struct gate_rules *out);

/* The rule names, in the order the report lists them; the value of one. */
extern const char *const gate_rule_names[];
double gate_rule_value(const struct gate_rules *r, const char *name);

#endif
