/*
 * consistency.h - /ddbemu/consistency: the consistency model of the engine or
 * of one namespace (docs/consistency.md).
 *
 *   GET|POST /ddbemu/consistency  {"access_key", "region"  (optional: one namespace,
 *                                   formed as /ddbemu/reset forms it; else the engine)
 *                                  "mode": "aws" | "off" | "default" (the namespace
 *                                   follows the engine again),
 *                                  "read_lag_ms", "gsi_lag_ms", "transaction_ms",
 *                                  "seed" (an integer, or null: no seed)}
 *     -> the setting in force: {"scope", "mode", "read_lag_ms", "gsi_lag_ms",
 *        "transaction_ms", "seed"}; members left out keep their value.
 */
#ifndef DDB_API_CONTROL_CONSISTENCY_H
#define DDB_API_CONTROL_CONSISTENCY_H

#include "api/http/dispatch.h"

#include <jansson.h>

void consistency_http_handle(struct db *db, const struct api_config *config,
                             const struct http_request *req, json_t *body,
                             struct http_response *resp);

#endif
