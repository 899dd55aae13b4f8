/*
 * request.h - one DynamoDB request as the handlers see it: the contract between
 * the front (api/http/dispatch.c) and every handler (op_*.c).
 *
 * dispatch.c builds a struct api_request for every call: the parsed JSON body
 * (owned, released once by dispatch.c after the reply is sent), the scope derived from the
 * SigV4 credential, and the engine. A handler (op_*.c, typed op_handler_fn)
 * decodes the body into C args, makes one db_* call, and either answers and
 * returns 0, or leaves rq->err set and returns -1. Handlers never build error
 * JSON: response.c does.
 *
 * A handler answers in one of two ways: it writes the whole answer object
 * into rq->reply_body (json_out.h; the answers that carry items, where a
 * json_t tree would cost most of the request), or it sets rq->reply to a new
 * JSON object. dispatch.c sends reply_body as is, or serializes reply; with
 * neither the answer is {}, or no body at all when the handler set
 * reply_empty (TagResource, UntagResource: DynamoDB sends Content-Length 0). Whatever a failing
 * handler wrote is discarded.
 *
 * Everything in api/ is reentrant: all per-request state lives here.
 */
#ifndef DDB_API_REQUEST_H
#define DDB_API_REQUEST_H

#include "api/wire/json_out.h"
#include "storage/base/error.h"
#include "storage/engine/db.h"
#include "storage/model/failure.h"

#include <jansson.h>
#include <time.h>

struct credentials;

struct api_config {
    bool shared_db;           /* --shared-db: one namespace for every credential */
    bool control_enabled;     /* emulator-only control interface (clock, reset) */
    bool mcp_read_only;       /* --mcp-read-only: /ddbemu/mcp refuses changes (mcp.h) */
    const char *s3_dir;       /* --s3-dir: the directory whose folders are S3 buckets; NULL: none */
    const char *cors_origins; /* --cors: "*" or a comma list of origins; NULL: "*" (cors.h) */
    /* --credentials: every signature is verified against these keys (auth.h);
     * NULL: any key is accepted. Borrowed. */
    const struct credentials *credentials;
    /* Control requests (/ddbemu/) must be signed too: with credentials and
     * not on loopback (dispatch.c). */
    bool control_needs_auth;
    /* GET / answers as DynamoDB Local does (400 MissingAuthenticationToken)
     * rather than as DynamoDB (200 "healthy: <host>"): --as-dynamodb-local,
     * for tools that wait for DynamoDB Local's answer (dispatch.c). */
    bool root_as_dynamodb_local;
    /* Seconds since the epoch signatures are judged against; NULL: time(NULL).
     * Tests fix it. */
    time_t (*wall_clock)(void);
};

struct api_request {
    struct db *db;                   /* borrowed */
    const struct api_config *config; /* borrowed */
    struct db_scope scope;           /* strings point into namespace_buf/region_buf */
    char namespace_buf[256];
    char region_buf[64];
    const char *host;           /* borrowed: the Host header the client sent; NULL when none */
    json_t *body;               /* owned: the request body, a JSON object */
    json_t *reply;              /* owned: the success body; NULL until the handler sets it */
    struct json_out reply_body; /* the success body as written text; empty unless used */
    bool reply_empty;           /* success answers with no body at all, not {} */
    struct ddb_error err;       /* set when the handler fails */
    /* What the error's answer carries besides its text (an item, cancellation
     * reasons): a failing handler moves it here from the storage result. */
    struct failure_details failure;
};

typedef int op_handler_fn(struct api_request *rq);

#endif
