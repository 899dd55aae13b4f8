/*
 * shapes.h - GET /ddbemu/shapes: the request members of every operation, as
 * the field tables declare them (what the model test compares with the AWS
 * SDK's service model).
 */
#ifndef DDB_API_CONTROL_SHAPES_H
#define DDB_API_CONTROL_SHAPES_H

#include "api/ops/ops.h"

#include <jansson.h>

/* {"operations": {target: {member path: type}}} for every row of operations
 * (a table terminated by a NULL target); owned by the caller. */
json_t *shapes_json(const struct operation *operations);

#endif
