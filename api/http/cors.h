/*
 * cors.h - Cross-Origin Resource Sharing, as DynamoDB answers it.
 *
 * A request with an Origin header from an allowed origin gets
 * Access-Control-Allow-Origin and Access-Control-Expose-Headers on every
 * answer; a preflight (OPTIONS with Origin) is answered 200 with an empty
 * body, echoing Access-Control-Request-Headers/-Method as
 * Access-Control-Allow-Headers/-Methods, with Access-Control-Max-Age 172800
 * (what AWS answers: scylla's test_cors.py and dynalite's connection tests,
 * both run against DynamoDB). Answers without Origin carry none of these.
 *
 * The allowed origins are DynamoDB Local's -cors setting: "*" (the default)
 * answers Allow-Origin "*" to everyone, as DynamoDB does; a comma-separated
 * list answers only those origins, echoing the origin (with Vary: Origin),
 * and gives other origins no CORS header at all, so browsers refuse them.
 *
 * Reentrant; no state.
 */
#ifndef DDB_API_CORS_H
#define DDB_API_CORS_H

#include "api/http/server.h"

#include <stdbool.h>

/* The headers a browser page may read from an answer. */
#define CORS_EXPOSE_HEADERS  "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date,x-amz-crc32"
#define CORS_MAX_AGE_SECONDS "172800"

/* Adds the CORS headers req calls for to resp; allowed is "*", NULL (the
 * same) or a comma list. Returns true when req is a preflight that resp now
 * answers completely. */
bool cors_apply(const char *allowed, const struct http_request *req, struct http_response *resp);

#endif
