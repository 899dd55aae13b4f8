/*
 * table_check_stored.c - table_check_item for an item already encoded,
 * read in place; see table.h.
 *
 * Every PutItem, BatchWriteItem put and transaction Put checks its item
 * against the schema under the table's lock, after item_new has encoded it.
 * Decoding the whole item for that costs ~2.7k instructions for bench/run's
 * chat item, while the rules read only the key attributes: one walk of the
 * top-level attributes (enc_cursor) answers whether every rule holds. Only
 * when one does not - or the table has vector indexes, whose rules read a
 * list - is the item decoded and given to table_check_item, which words the
 * refusal exactly as for any other caller; so the two can never disagree
 * on the text, and the walk only has to be right when it says yes.
 */
#include "storage/base/limits.h"
#include "storage/base/lock_check.h"
#include "storage/table/table.h"

#include <stdint.h>
#include <string.h>

/* A key part read in place fits a key of the declared type (non-empty and
 * within max_bytes for S and B: table.c's check_not_empty, check_key_size
 * and check_index_keys). */
static bool part_fits(const struct enc_attr *at, enum value_type declared, size_t max_bytes)
{
    static const enum value_type scalar[] = {
        [ENC_S] = VALUE_S, [ENC_N] = VALUE_N, [ENC_B] = VALUE_B};
    struct enc_value v = {at->type, at->value, at->value_len};
    const uint8_t *bytes;
    size_t len;

    if (at->type != ENC_S && at->type != ENC_N && at->type != ENC_B) return false;
    if (scalar[at->type] != declared || !enc_value_bytes(&v, &bytes, &len)) return false;
    return declared == VALUE_N || (len > 0 && len <= max_bytes);
}

/* One key attribute a rule names: the table's (must be present) or an index's. */
struct key_rule {
    const char *name;
    size_t len;
    enum value_type type;
    size_t max_bytes;
    bool required;
};

/* The rules of the table's keys and every GSI's and LSI's, names measured
 * once per call rather than per attribute; SIZE_MAX when more than cap. */
static size_t key_rules(const struct table_def *def, struct key_rule *out, size_t cap)
{
    size_t n = 0;

    for (size_t s = 0; s < 1 + def->gsi_count + def->lsi_count; s++) {
        const struct key_schema *k = s == 0                ? &def->key
                                     : s <= def->gsi_count ? &def->gsis[s - 1].key
                                                           : &def->lsis[s - 1 - def->gsi_count].key;
        for (size_t r = 0; r < 2; r++) {
            size_t names = r == 0 ? k->hash_count : k->range_count;
            for (size_t i = 0; i < names; i++) {
                struct key_rule *rule = &out[n];
                if (n++ == cap) return SIZE_MAX;
                rule->name = r == 0 ? k->hash_names[i] : k->range_names[i];
                rule->len = strlen(rule->name);
                rule->type = VALUE_S;
                table_def_attr_type(def, rule->name, &rule->type);
                rule->max_bytes = r == 0 ? DDB_MAX_PARTITION_KEY_BYTES : DDB_MAX_SORT_KEY_BYTES;
                rule->required = s == 0;
            }
        }
    }
    return n;
}

/* Whether item passes every rule of table_check_item without a vector index. */
static bool passes_in_place(const struct table *t, const struct item *item)
{
    struct key_rule rules[2 + 8 * (DDB_MAX_GSIS + DDB_MAX_LSIS)];
    size_t count = key_rules(&t->def, rules, sizeof rules / sizeof *rules), required = 0;
    size_t found = 0;
    struct enc_cursor c;
    struct enc_attr at;

    if (count == SIZE_MAX) return false; /* the tree check has no such limit */
    for (size_t i = 0; i < count; i++)
        required += rules[i].required;
    enc_cursor_init(&c, item->encoded, item->encoded_len, item_names());
    while (enc_cursor_next(&c, &at)) {
        for (size_t i = 0; i < count; i++) {
            const struct key_rule *rule = &rules[i];
            if (rule->len != at.name_len || memcmp(rule->name, at.name, at.name_len) != 0) continue;
            if (!part_fits(&at, rule->type, rule->max_bytes)) return false;
            found += rule->required;
        }
    }
    return !c.bad && found == required;
}

int table_check_item_stored(const struct table *t, const struct item *item, struct ddb_error *err)
{
    assert_table_held(&t->lock);
    struct decode_mark mark;
    int rc;

    if (t->def.vector_count == 0 && passes_in_place(t, item)) return 0;
    mark = item_scratch_mark(); /* the tree dies here */
    rc = table_check_item(t, item_attrs(item), err);
    item_scratch_release(mark);
    return rc;
}
