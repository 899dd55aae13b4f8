/*
 * sigv4.h - AWS Signature Version 4: the canonical request, the string to
 * sign and the signature, for either side of a request.
 *
 * Pure mechanics from AWS's "Create a canonical request for Signature Version
 * 4" page: no DynamoDB rule and no error here. The server (auth.c) rebuilds
 * what the client must have signed and compares; the project's own client
 * (api/client/http_client.c) signs with the same functions, so the two can
 * never disagree on a rule. Hashes and HMACs come from OpenSSL's libcrypto;
 * signatures are compared in constant time (CRYPTO_memcmp).
 *
 * Canonical form, as AWS defines it for services other than S3:
 *   METHOD \n URI \n QUERY \n HEADERS \n SIGNED-HEADERS \n PAYLOAD-HASH
 * URI: the path as the client sent it, percent-encoded once more (the path
 * here is the decoded one, so it is encoded twice); "/" when empty. QUERY:
 * each argument's name and value percent-encoded (RFC 3986 unreserved
 * characters kept), sorted by name then value, joined with '&'. HEADERS: one
 * "name:value\n" line per signed header, in the order SignedHeaders lists
 * them, the values of repeated headers joined with ',', each trimmed with
 * inner runs of blanks collapsed to one space.
 *
 * Reentrant; every output goes into a buffer the caller owns.
 */
#ifndef DDB_API_SIGV4_H
#define DDB_API_SIGV4_H

#include "storage/base/text.h"

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define SIGV4_ALGORITHM  "AWS4-HMAC-SHA256"
#define SIGV4_TERMINATOR "aws4_request"
/* A SHA-256 or HMAC-SHA256 as lowercase hex, and its NUL. */
#define SIGV4_HEX_SIZE 65

/* One header or query argument (same layout as server.h's http_field, kept
 * apart so that the client, which has its own http_response, can use this). */
struct sigv4_field {
    const char *name;
    const char *value; /* a query argument without '=' has NULL */
};

/* What a signature covers. Everything is borrowed. */
struct sigv4_message {
    const char *method;
    const char *path; /* decoded, as the server saw it */
    const struct sigv4_field *query;
    size_t query_count;
    const char *skip_query; /* an argument left out (X-Amz-Signature when presigned), or NULL */
    const struct sigv4_field *headers;
    size_t header_count;
    const char *signed_headers; /* "host;x-amz-date", as the request names them */
    const char *payload_hash;   /* hex SHA-256 of the body */
};

/* Appends the canonical request of m to out. */
void sigv4_canonical_request(const struct sigv4_message *m, struct text_buf *out);
/* Appends the string to sign: algorithm, date (ISO 8601 basic), scope
 * ("20150830/us-east-1/dynamodb/aws4_request") and the canonical request's hash. */
void sigv4_string_to_sign(const char *amz_date, const char *scope, const char *canonical,
                          struct text_buf *out);
/* The signature of string_to_sign by the key derived from secret and the
 * scope's date (YYYYMMDD), region and service, as hex into out. */
void sigv4_signature(const char *secret, const char *date, const char *region, const char *service,
                     const char *string_to_sign, char out[SIGV4_HEX_SIZE]);
/* The hex SHA-256 of len bytes. */
void sigv4_sha256_hex(const void *data, size_t len, char out[SIGV4_HEX_SIZE]);
/* Whether a and b are the same string; the time taken does not depend on
 * where they differ (only on their lengths). */
bool sigv4_equal(const char *a, const char *b);
/* Appends s percent-encoded as SigV4 wants: RFC 3986 unreserved characters
 * (A-Z a-z 0-9 - _ . ~) kept, '/' kept when keep_slash, the rest %XX. */
void sigv4_uri_encode(const char *s, bool keep_slash, struct text_buf *out);

/* Parses an ISO 8601 basic date-time "20150830T123600Z" into *out (UTC);
 * -1 when s has any other shape. */
int sigv4_parse_date(const char *s, time_t *out);
/* Formats t (UTC) as "20150830T123600Z" into out (17 bytes). */
void sigv4_format_date(time_t t, char out[17]);

#endif
