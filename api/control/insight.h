/*
 * insight.h - the access-pattern report's endpoints under /ddbemu/insight
 * (see insight.c for the routes). control.c routes here; everything is
 * answered as plain JSON, errors as {"error": "..."} with 404.
 */
#ifndef DDB_API_CONTROL_INSIGHT_H
#define DDB_API_CONTROL_INSIGHT_H

#include "api/http/server.h"
#include "api/ops/request.h"
#include "storage/engine/db.h"

#include <jansson.h>
#include <stdbool.h>

/* Answers one insight request; body is the request's JSON object (borrowed). */
void insight_handle(struct db *db, const struct api_config *config, const struct http_request *req,
                    const char *what, json_t *body, struct http_response *resp);

/* The whole report (every namespace, every table) as GET /ddbemu/insight
 * writes it: owned text, *len its length. The server writes it into
 * --db-path when it stops (emulator/main.c), where `ddbemu insight --check
 * --db-path` reads it. */
char *insight_report_text(struct db *db, size_t *len);

#endif
