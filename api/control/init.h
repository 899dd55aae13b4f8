/*
 * init.h - POST /ddbemu/init: tables from a design document sent as
 * the body (see api/design/design.h for the formats), for the namespace of
 * ?access_key=..&region=.. (default: access key "local", us-east-1, as
 * --init uses). Answers {"tables_created": N, "items_written": N}, or
 * {"error": "..."} with 400.
 */
#ifndef DDB_API_CONTROL_INIT_H
#define DDB_API_CONTROL_INIT_H

#include "api/design/design.h"
#include "api/http/server.h"

#include <stdbool.h>

#define DESIGN_HTTP_PATH "/ddbemu/init"

/* The credential --init and POST /ddbemu/init use when none is named. */
#define DESIGN_DEFAULT_ACCESS_KEY "local"
#define DESIGN_DEFAULT_REGION     "us-east-1"

/* call/arg replay each request through the api's front (dispatch.c). */
void design_http_handle(const struct http_request *req, design_call_fn *call, void *arg,
                        struct http_response *resp);

#endif
