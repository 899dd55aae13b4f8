/*
 * auth.h - who sent a request: the SigV4 checks DynamoDB applies, in its order.
 *
 * Without a credentials store (the default, as DynamoDB Local) only the
 * signature's shape is checked and any key is accepted: the access key and
 * the region of the credential scope just select the namespace. With one
 * (--credentials), the signature is verified exactly as DynamoDB verifies
 * it, header-signed and presigned (query-string) alike; auth.c's header
 * lists the checks, their order and where their texts come from.
 *
 * The time a signature is judged against is the caller's `now`: the wall
 * clock (dispatch.c), never the engine's clock, which the control interface
 * moves for TTL tests while SDKs keep signing with the real time.
 *
 * Reentrant; nothing is kept between calls.
 */
#ifndef DDB_API_AUTH_H
#define DDB_API_AUTH_H

#include "api/http/server.h"
#include "api/sigv4/credentials.h"
#include "storage/base/error.h"

#include <time.h>

/* The clock skew DynamoDB allows either way between a signature's date and now. */
#define AUTH_MAX_SKEW_S (15 * 60)

/* Who the request is from, as its credential scope names them. */
struct auth_identity {
    char access_key[256];
    char region[64];
};

/* Checks req's signature information. store NULL: the shape only (any key,
 * any signature); else everything, against the time now. Fills *who and
 * returns 0, or sets err to DynamoDB's answer (MissingAuthenticationToken,
 * IncompleteSignature, InvalidSignature, UnrecognizedClient) and returns -1. */
int auth_check(const struct http_request *req, const struct credentials *store, time_t now,
               struct auth_identity *who, struct ddb_error *err);

/* After auth_check, for a request to DynamoDB's API: 0 when req is at "/",
 * else sets err to the InvalidSignatureException DynamoDB answers a request
 * sent to another path (auth.c, check_path) and returns -1. Control
 * requests, which have paths of their own, do not call it. */
int auth_check_path(const struct http_request *req, struct ddb_error *err);

#endif
