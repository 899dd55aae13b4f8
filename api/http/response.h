/*
 * response.h - the bodies and headers of DynamoDB's answers.
 *
 * The only place that turns a struct ddb_error into wire JSON
 * ({"__type": ..., "message"|"Message": ...}), and that puts on every answer
 * the headers SDKs expect: Content-Type, x-amzn-RequestId (52 characters of
 * [0-9A-Z], as AWS sends) and x-amz-crc32 (the CRC32 of the exact body bytes,
 * which SDKs verify). Bodies are compact JSON, as AWS's are, so the CRC of
 * e.g. an UnknownOperationException equals AWS's.
 */
#ifndef DDB_API_RESPONSE_H
#define DDB_API_RESPONSE_H

#include "api/http/server.h"
#include "storage/base/error.h"
#include "storage/model/failure.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define RESPONSE_CONTENT_TYPE_AMZ_JSON "application/x-amz-json-1.0"
#define RESPONSE_CONTENT_TYPE_JSON     "application/json"

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32()) of len bytes. */
uint32_t response_crc32(const void *data, size_t len);
/* The CRC-32 of what crc32 covered followed by len more bytes (crc32 0 for
 * none), as zlib's crc32(crc, buf, len): a body's CRC from its pieces. */
uint32_t response_crc32_update(uint32_t crc32, const void *data, size_t len);

/* Writes a fresh 52-character request id and its NUL into out. Thread-safe. */
void response_request_id(char out[53]);

/* Sets body (owned, from malloc), the Content-Type header and x-amz-crc32.
 * content_type may be NULL for none. */
void response_set_body(struct http_response *resp, int status, const char *content_type, char *body,
                       size_t len);

/* A 200 answer carrying reply serialized compactly (reply is borrowed; NULL is "{}"). */
void response_success(struct http_response *resp, const char *content_type, json_t *reply);

/* The error answer for err (borrowed): its HTTP status and
 * {"__type": ddb_error_type(code), <ddb_error_message_key(code)>: message},
 * the message left out when err->message is NULL. failure (borrowed; NULL
 * when there is none) adds what some errors carry: CancellationReasons for
 * TransactionCanceledException, the Item of a ConditionalCheckFailed. */
void response_error(struct http_response *resp, const char *content_type,
                    const struct ddb_error *err, const struct failure_details *failure);

/* DynamoDB Local's answer to a request without a signature, GET / among
 * them: 400 with its own __type (not AWS's MissingAuthenticationTokenException)
 * and message. Answered to GET / under --as-dynamodb-local (dispatch.c). */
void response_dynamodb_local_unsigned(struct http_response *resp);

#endif
