/*
 * wire_vector.h - vector indexes <-> DynamoDB JSON: the VectorIndex /
 * CreateVectorIndexAction members of CreateTable and UpdateTable, and the
 * VectorIndexDescription list of a TableDescription.
 *
 * Decoders trust their input (shape.c and vector_rules.c checked it) and fill
 * caller-owned structs (schema.h's clear functions free them). Encoders return
 * new references owned by the caller.
 */
#ifndef DDB_API_WIRE_VECTOR_H
#define DDB_API_WIRE_VECTOR_H

#include "storage/model/schema.h"

#include <jansson.h>

/* One VectorIndex (or CreateVectorIndexAction) object -> *out. */
void wire_vector_def_from_json(const json_t *obj, struct vector_index_def *out);
/* A VectorIndexes list -> a new array (NULL when empty) of *count definitions. */
void wire_vector_defs_from_json(const json_t *list, struct vector_index_def **out, size_t *count);
/* The VectorIndexes member of a TableDescription (VectorIndexDescription, model order). */
json_t *wire_vector_descs_to_json(const struct table_desc *d);
/* A definition as CreateTable's VectorIndexes states it (restores, imports). */
json_t *wire_vector_defs_to_json(const struct table_def *def);

#endif
