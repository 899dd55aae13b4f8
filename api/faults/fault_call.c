/*
 * fault_call.c - the tables, index, items and keys a request names
 * (fault_call.h), read from its JSON by operation:
 *
 *   PutItem                     TableName, Item
 *   GetItem, UpdateItem,
 *   DeleteItem                  TableName, Key
 *   BatchWriteItem              RequestItems{table: [PutRequest.Item | DeleteRequest.Key]}
 *   BatchGetItem                RequestItems{table: {Keys: [...]}}
 *   TransactWriteItems          TransactItems[Put.Item | Update/Delete/ConditionCheck.Key]
 *   TransactGetItems            TransactItems[Get.Key]
 *   ExecuteTransaction          TransactStatements (counted; PartiQL is not read)
 *   anything else               TableName (and IndexName)
 */
#include "api/faults/fault_call.h"

#include "storage/base/alloc.h"

#include <string.h>

bool fault_is_batch(const char *operation)
{
    return strcmp(operation, "BatchWriteItem") == 0 || strcmp(operation, "BatchGetItem") == 0;
}

bool fault_is_transaction(const char *operation)
{
    return strcmp(operation, "TransactWriteItems") == 0 ||
           strcmp(operation, "TransactGetItems") == 0 ||
           strcmp(operation, "ExecuteTransaction") == 0;
}

static void add_table(struct fault_targets *t, const char *table)
{
    if (!table) return;
    for (size_t i = 0; i < t->table_count; i++)
        if (strcmp(t->tables[i], table) == 0) return;
    t->tables = xrealloc(t->tables, (t->table_count + 1) * sizeof *t->tables);
    t->tables[t->table_count++] = table;
}

static void add_target(struct fault_targets *t, const char *table, json_t *attrs, json_t *entry,
                       size_t action)
{
    add_table(t, table);
    if (!json_is_object(attrs)) return;
    t->v = xrealloc(t->v, (t->n + 1) * sizeof *t->v);
    t->v[t->n++] = (struct fault_target){table, attrs, entry, action};
}

static void collect_batch_write(json_t *body, struct fault_targets *t)
{
    const char *table;
    json_t *requests;
    size_t at = 0;

    json_object_foreach(json_object_get(body, "RequestItems"), table, requests)
    {
        size_t i;
        json_t *r;
        add_table(t, table);
        json_array_foreach(requests, i, r)
        {
            json_t *put = json_object_get(r, "PutRequest"),
                   *del = json_object_get(r, "DeleteRequest");
            add_target(t, table, put ? json_object_get(put, "Item") : json_object_get(del, "Key"),
                       r, at++);
        }
    }
}

static void collect_batch_get(json_t *body, struct fault_targets *t)
{
    const char *table;
    json_t *request;
    size_t at = 0;

    json_object_foreach(json_object_get(body, "RequestItems"), table, request)
    {
        size_t i;
        json_t *key;
        add_table(t, table);
        json_array_foreach(json_object_get(request, "Keys"), i, key)
            add_target(t, table, key, key, at++);
    }
}

static void collect_transaction(json_t *body, struct fault_targets *t)
{
    static const char *const kinds[] = {"Put", "Update", "Delete", "ConditionCheck", "Get"};
    size_t i;
    json_t *action;

    json_array_foreach(json_object_get(body, "TransactItems"), i, action)
    {
        for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
            json_t *a = json_object_get(action, kinds[k]);
            if (!a) continue;
            add_target(t, json_string_value(json_object_get(a, "TableName")),
                       json_object_get(a, k == 0 ? "Item" : "Key"), NULL, i);
        }
    }
    t->action_count = json_array_size(json_object_get(body, "TransactItems"));
}

void fault_targets_collect(const char *operation, json_t *body, struct fault_targets *out)
{
    const char *table = json_string_value(json_object_get(body, "TableName"));

    memset(out, 0, sizeof *out);
    out->index = json_string_value(json_object_get(body, "IndexName"));
    if (strcmp(operation, "BatchWriteItem") == 0)
        collect_batch_write(body, out);
    else if (strcmp(operation, "BatchGetItem") == 0)
        collect_batch_get(body, out);
    else if (strcmp(operation, "TransactWriteItems") == 0 ||
             strcmp(operation, "TransactGetItems") == 0)
        collect_transaction(body, out);
    else if (strcmp(operation, "ExecuteTransaction") == 0)
        out->action_count = json_array_size(json_object_get(body, "TransactStatements"));
    else if (strcmp(operation, "PutItem") == 0)
        add_target(out, table, json_object_get(body, "Item"), NULL, 0);
    else
        add_target(out, table, json_object_get(body, "Key"), NULL, 0);
}

void fault_targets_clear(struct fault_targets *t)
{
    free(t->v);
    free(t->tables);
    memset(t, 0, sizeof *t);
}

bool fault_key_matches(const json_t *want, const json_t *attrs)
{
    const char *name;
    json_t *v;

    json_object_foreach((json_t *) want, name, v)
    {
        if (!json_equal(v, json_object_get(attrs, name))) return false;
    }
    return true;
}
