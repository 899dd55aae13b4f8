/*
 * transfer_files.h - the files of table exports and imports, in AWS's S3
 * layout, on a local directory that stands for the bucket.
 *
 * An export writes, under <bucket dir>/<S3Prefix>/AWSDynamoDB/<export id>/:
 * _started (empty), data/<name>.json.gz (or .ion.gz) holding one item per
 * line ({"Item": {...}} in DynamoDB JSON, or an Ion line), manifest-files.json
 * (one JSON line per data file: itemCount, md5Checksum (base64 MD5), etag
 * (hex MD5), dataFileS3Key), manifest-summary.json, and a .md5 beside each
 * manifest (its MD5, base64; as observed in AWS exports) - the developer guide's layout
 * (S3DataExport.Output), so an export made here imports into AWS and one
 * made by AWS imports here. An incremental export writes its manifests
 * there too, and its data file - one line per changed item: Metadata, Keys,
 * NewImage, OldImage - under <bucket dir>/<S3Prefix>/AWSDynamoDB/data/, the
 * folder AWS's incremental exports share.
 *
 * An import reads every object under <bucket dir>/<S3KeyPrefix> (a key
 * prefix, not only a folder) but the manifests, checksums and _started that
 * an export writes beside its data, decompressed as InputCompressionType says
 * (GZIP, ZSTD or NONE), one item per line for DYNAMODB_JSON and ION, and CSV
 * rows (RFC 4180; a header line or HeaderList names the columns; values are
 * strings but for the key attributes, typed by the table's definition). As on
 * AWS, the first line of an object that is no item of the table (bad syntax,
 * a key attribute missing or of another type) ends that object and counts as
 * one error.
 *
 * These run outside the engine's lock; items are borrowed (export) or owned
 * by the caller (import). MD5 comes from OpenSSL's libcrypto, gzip from
 * zlib, zstd from libzstd.
 */
#ifndef DDB_API_TRANSFER_FILES_H
#define DDB_API_TRANSFER_FILES_H

#include "storage/base/text.h"
#include "storage/engine/db.h"
#include "storage/jobs/transfer_record.h"
#include "storage/model/item.h"

#include <stddef.h>
#include <stdint.h>

/* Writes an export's files into bucket_dir (which must exist). On success
 * res->item_count, res->billed_size_bytes and *manifest_key (owned: the
 * summary manifest's key) are set; on failure -1 with *why (owned). */
int transfer_write_export(const char *bucket_dir, const struct export_desc *d, int64_t end_ms,
                          struct item *const *items, size_t count, struct export_result *res,
                          char **manifest_key, char **why);

/* Writes an incremental export's files (d's view type and span), one line
 * per change (borrowed), as transfer_write_export does; its data file is in
 * the data/ folder AWS's incremental exports share. */
int transfer_write_incremental_export(const char *bucket_dir, const struct export_desc *d,
                                      int64_t end_ms, const struct item_change *changes,
                                      size_t count, struct export_result *res, char **manifest_key,
                                      char **why);

/* Not an InputCompressionType: each object as its first bytes say (gzip, zstd
 * or none). The command-line import uses it for a folder of mixed files. */
#define TRANSFER_COMPRESSION_AUTO "AUTO"

/* Where and how an import reads. */
struct import_source {
    const char *bucket_dir;
    const char *prefix;      /* S3KeyPrefix; "" for the whole bucket */
    const char *format;      /* DYNAMODB_JSON, ION or CSV */
    const char *compression; /* GZIP, ZSTD, NONE or TRANSFER_COMPRESSION_AUTO */
    char csv_delimiter;
    const char *const *csv_header; /* HeaderList, or NULL: the first line of each file */
    size_t csv_header_count;
    const struct table_def *def; /* for the key attributes' types (CSV) */
};

/* Reads every item of the source. *items is an owned array of owned items;
 * an object holding a line that is no item counts one in *errors (its items
 * before that line are kept), as AWS counts them; *bytes is the decompressed
 * size of the objects read. -1 with *why (owned)
 * when an object cannot be read at all. */
int transfer_read_import(const struct import_source *src, struct item ***items, size_t *count,
                         int64_t *bytes, int64_t *errors, char **why);

/* The keys of the objects under prefix in bucket_dir, sorted (owned strings
 * in an owned array), but the files an export writes beside its data; at
 * most 50,001, so that a caller sees when there are more than 50,000. */
void transfer_list_objects(const char *bucket_dir, const char *prefix, char ***keys, size_t *count);
/* Appends the content of the object at path, decompressed as compression
 * says (GZIP, ZSTD, NONE or TRANSFER_COMPRESSION_AUTO), to *out and its
 * decompressed length to *size; -1 with *why (owned) when it cannot be read. */
int transfer_read_object(const char *path, const char *compression, struct text_buf *out,
                         int64_t *size, char **why);

/* Writes data as the object key of bucket_dir, with the folders it needs;
 * -1 with *why (owned) when it cannot. */
int transfer_write_object(const char *bucket_dir, const char *key, const void *data, size_t len,
                          char **why);

#endif
