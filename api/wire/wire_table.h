/*
 * wire_table.h - table definitions and descriptions <-> DynamoDB JSON.
 *
 * Decoding turns the members of a CreateTable/UpdateTable body (KeySchema,
 * AttributeDefinitions, ProvisionedThroughput, indexes, StreamSpecification,
 * SSESpecification, Tags, ...) into the C structs of storage/model/schema.h. The
 * decoders trust their input: the request shape (shape.c) has checked the JSON
 * types and model constraints and op_table.c has made the cross-field checks
 * before anything is decoded, so they cannot fail; on unexpected JSON they
 * skip what does not fit rather than crash.
 *
 * Encoding produces a TableDescription exactly as AWS shapes it today (field
 * set, names, the PAY_PER_REQUEST zeros, sorted AttributeDefinitions and
 * NonKeyAttributes, epoch-seconds timestamps with a fraction).
 *
 * Ownership: decoders fill caller-owned structs (cleared with the schema.h
 * *_clear functions) and copy every string, so no json_t is referenced after
 * they return. Table descriptions are returned as new json_t references owned
 * by the caller; ConsumedCapacity and ItemCollectionMetrics, which ride on
 * the item answers, are written into a json_out (see json_out.h).
 */
#ifndef DDB_API_WIRE_TABLE_H
#define DDB_API_WIRE_TABLE_H

#include "api/wire/json_out.h"
#include "storage/engine/db.h"
#include "storage/engine/db_items.h"
#include "storage/model/schema.h"

#include <jansson.h>

/* ---- decoding (input already validated) ---- */

/* KeySchema list -> key_schema (HASH elements in order, then RANGE elements). */
void wire_table_key_schema_from_json(const json_t *list, struct key_schema *out);
/* AttributeDefinitions list -> a new array (xmalloc) of *count definitions. */
void wire_table_attr_defs_from_json(const json_t *list, struct attr_def **out, size_t *count);
/* ProvisionedThroughput structure -> throughput (zeros when absent). */
void wire_table_throughput_from_json(const json_t *pt, struct throughput *out);
/* Projection structure -> projection. */
void wire_table_projection_from_json(const json_t *p, struct projection *out);
/* One GlobalSecondaryIndex / LocalSecondaryIndex / Create action -> index_def. */
void wire_table_index_from_json(const json_t *idx, bool is_global, struct index_def *out);
/* StreamSpecification -> stream_spec (disabled when absent). */
void wire_table_stream_from_json(const json_t *spec, struct stream_spec *out);
/* SSESpecification -> sse_spec: Enabled true, or an SSEType of KMS, means KMS
 * encryption; absent, {} or Enabled false mean the AWS-owned default key. */
void wire_table_sse_from_json(const json_t *spec, struct sse_spec *out);
/* OnDemandThroughput / WarmThroughput members (NULL: all zero, as absent). */
void wire_table_on_demand_from_json(const json_t *obj, struct on_demand_throughput *out);
void wire_table_warm_from_json(const json_t *obj, struct warm_throughput *out);
/* A whole CreateTable body -> table_def. */
void wire_table_def_from_json(const json_t *body, struct table_def *out);

/* ---- encoding ---- */

/* [{"AttributeName": ..., "KeyType": "HASH"}, ...], HASH elements first. */
json_t *wire_table_key_schema_to_json(const struct key_schema *k);
/* ImportTable's TableCreationParameters for a definition (no LSIs, streams or tags). */
json_t *wire_table_creation_parameters_to_json(const struct table_def *def);
/* A definition as a CreateTable body would state it (AttributeDefinitions,
 * KeySchema, billing, throughput, both kinds of index, SSE, table class):
 * what a restore starts from before its overrides apply. */
json_t *wire_table_def_to_create_json(const struct table_def *def);
/* A Projection object; NonKeyAttributes sorted, as AWS describes them. */
json_t *wire_table_projection_to_json(const struct projection *p);
/* An SSEDescription for KMS encryption, the key reported as its ARN in region. */
json_t *wire_table_sse_to_json(const struct sse_spec *sse, const char *region);
/* The TableDescription object of CreateTable/DescribeTable/UpdateTable/DeleteTable
 * (and RestoreSummary for restored tables). */
json_t *wire_table_desc_to_json(const struct table_desc *d);

/* Whether a ConsumedCapacity is to be returned: mode not NONE, something recorded. */
bool wire_table_has_capacity(const struct consumed_capacity *c, enum return_capacity mode);
/* Writes the ConsumedCapacity of one table into w: {"TableName", "CapacityUnits"}
 * for TOTAL, plus "Table" and the per-index maps for INDEXES. Only when
 * wire_table_has_capacity(c, mode). */
void wire_table_write_capacity(struct json_out *w, const struct consumed_capacity *c,
                               enum return_capacity mode);
/* The same with "ReadCapacityUnits"/"WriteCapacityUnits" beside every
 * "CapacityUnits" (when not zero), as transactional answers have them. */
void wire_table_write_transact_capacity(struct json_out *w, const struct consumed_capacity *c,
                                        enum return_capacity mode);
/* Writes the member "ConsumedCapacity": {...} of a single-table answer, or nothing. */
void wire_table_write_capacity_member(struct json_out *w, const struct consumed_capacity *c,
                                      enum return_capacity mode);
/* Writes ItemCollectionMetrics: {"ItemCollectionKey": {...}, "SizeEstimateRangeGB": [lo, hi]}. */
void wire_table_write_collection_metrics(struct json_out *w,
                                         const struct item_collection_metrics *m);
/* Writes the member "ItemCollectionMetrics": {...} of a single-item write's answer when the
 * request asked for it (ReturnItemCollectionMetrics SIZE) and the table has metrics. */
void wire_table_write_collection_metrics_member(struct json_out *w, const json_t *body,
                                                const struct item_collection_metrics *m);

/* A time on the engine's clock as DynamoDB's JSON carries times: epoch
 * seconds with the milliseconds as a fraction. New reference. */
json_t *wire_epoch_seconds(int64_t ms);

/* ---- vector index definitions and descriptions ---- */

/* One VectorIndex (or CreateVectorIndexAction) object -> *out. */
void wire_vector_def_from_json(const json_t *obj, struct vector_index_def *out);
/* A VectorIndexes list -> a new array (NULL when empty) of *count definitions. */
void wire_vector_defs_from_json(const json_t *list, struct vector_index_def **out, size_t *count);
/* The VectorIndexes member of a TableDescription (VectorIndexDescription, model order). */
json_t *wire_vector_descs_to_json(const struct table_desc *d);
/* A definition as CreateTable's VectorIndexes states it (restores, imports). */
json_t *wire_vector_defs_to_json(const struct table_def *def);

#endif
