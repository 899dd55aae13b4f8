/*
 * transfer_client.h - a table to and from AWS's export layout through the
 * DynamoDB API of a running ddbemu (or any endpoint that speaks it): what
 * `ddbemu export` and `ddbemu import` do.
 *
 * The server may run on another machine, so nothing here touches its files:
 * an export is a paged, consistent Scan written as a DYNAMODB_JSON (or ION)
 * export into a local folder, in the very layout ExportTableToPointInTime
 * writes (api/transfer/transfer_files.c); an import reads such a folder (or any
 * folder of data files: DYNAMODB_JSON, ION or CSV, each plain, gzip'd or
 * zstd'd), creates the table from a CreateTable request (what
 * `aws dynamodb create-table --cli-input-json` takes), waits until it is
 * ACTIVE and writes the items with BatchWriteItem, retrying
 * UnprocessedItems and throttling.
 *
 * Both run on the calling thread and block; every allocation is freed before
 * they return but the report's. Errors come back as one line of text (*why,
 * owned) naming the call and AWS's error type and message.
 */
#ifndef DDB_API_CLIENT_TRANSFER_CLIENT_H
#define DDB_API_CLIENT_TRANSFER_CLIENT_H

#include "api/client/http_client.h"

#include <stddef.h>
#include <stdint.h>

struct transfer_report {
    size_t items;         /* exported, or written by the import */
    int64_t bad_objects;  /* import: files with a line that is no item of the table */
    size_t refused_items; /* import: items the table refused (a GSI key of another type, ...) */
    char *path;           /* export: the manifest-summary.json written; owned */
};

void transfer_report_clear(struct transfer_report *r);

/* Exports table into out_dir/AWSDynamoDB/<export id>/ in format
 * ("DYNAMODB_JSON" or "ION"). 0, or -1 with *why (owned). */
int transfer_client_export(const struct http_target *t, const char *table, const char *out_dir,
                           const char *format, struct transfer_report *report, char **why);

/* Creates the table of definition_path (TableName replaced by table_name
 * when not NULL) and imports every data file under in_dir (manifests,
 * checksums and _started are skipped). format NULL: the outputFormat of a
 * manifest-summary.json under in_dir, else DYNAMODB_JSON. 0 when every item
 * was written; -1 with *why (owned) otherwise (the report says how far it
 * got). */
int transfer_client_import(const struct http_target *t, const char *in_dir,
                           const char *definition_path, const char *table_name, const char *format,
                           struct transfer_report *report, char **why);

#endif
