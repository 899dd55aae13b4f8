/*
 * encoding.h - compressed HTTP bodies: gzip/deflate requests in, gzip/deflate answers out.
 *
 * Requests: DynamoDB accepts a body sent with "Content-Encoding: gzip"
 * (SDK request compression), concatenated gzip members being one body, and
 * one sent with "Content-Encoding: deflate": the zlib format of RFC 9110
 * 8.4.1.2, one stream (scylla's test_compressed_request.py records both
 * against AWS, and that AWS refuses two concatenated zlib streams). A
 * deflate body that is not a zlib stream is also tried as raw deflate, which
 * some clients send under that name (RFC 9110's note on non-conformant
 * implementations); what AWS does with raw deflate is not recorded
 * (docs/differences.md). Any other encoding, an empty body, and a stream that
 * does not decode to its end (or, for deflate, has bytes after it) are
 * answered 500 InternalServerError without running the request - what AWS
 * answers, as the same tests record. The decoded body is capped like a plain
 * one (16 MiB: a small compressed body cannot make the server inflate
 * gigabytes).
 *
 * Answers: when the request's Accept-Encoding admits gzip (preferred) or
 * deflate (the zlib format, RFC 9110), bodies from
 * ENCODING_MIN_COMPRESS_BYTES up are compressed and x-amz-crc32 becomes the
 * CRC32 of the compressed bytes, the ones on the wire: the checksum the AWS
 * SDKs validate before they decompress (aws-sdk-go-v2
 * service/dynamodb/internal/customizations: "If the response body is
 * content-encoding: gzip, the checksum is of the gzipped response content";
 * the Java SDK's calculateCrc32FromCompressedData). Smaller answers go out
 * as they are: DynamoDB compresses from 4 KB (4,096 bytes) up, as scylla's
 * test/alternator/test_compressed_response.py records against AWS
 * (DDB_RESPONSE_COMPRESSION_THRESHOLD = 4096: an answer just over it is
 * compressed, one just under it is not). Exactly 4,096 bytes is compressed
 * here; which side of the line AWS puts it is not recorded.
 *
 * Reentrant; no state. Allocations are returned to the caller (malloc).
 */
#ifndef DDB_API_ENCODING_H
#define DDB_API_ENCODING_H

#include "api/http/server.h"

#include <stddef.h>

/* Answers of at least this many bytes are compressed when the client asks. */
#define ENCODING_MIN_COMPRESS_BYTES 4096

enum encoding_result {
    ENCODING_NONE,      /* no Content-Encoding: use the body as it is */
    ENCODING_DECODED,   /* *out holds the decoded body */
    ENCODING_BAD,       /* unsupported encoding or a broken stream: 500 */
    ENCODING_TOO_LARGE, /* decodes to more than max bytes: 413 */
};

/* Decodes req's body by its Content-Encoding (gzip, deflate, identity). On ENCODING_DECODED, *out
 * (malloc, NUL-terminated, caller frees) holds *out_len bytes. */
enum encoding_result encoding_decode_request(const struct http_request *req, size_t max, char **out,
                                             size_t *out_len);

/* Compresses resp's body in place when req's Accept-Encoding allows it and
 * the body is large enough; sets Content-Encoding and replaces x-amz-crc32. */
void encoding_compress_response(const struct http_request *req, struct http_response *resp);

#endif
