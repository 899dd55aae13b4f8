/*
 * design.h - tables from a design document: a NoSQL Workbench model with its
 * sample data, the AWS::DynamoDB::Table resources of a CloudFormation or SAM
 * template (JSON or YAML), or a CreateTable request as
 * `aws dynamodb create-table --cli-input-json` takes it.
 *
 * Nothing here creates a table itself: each document becomes the DynamoDB
 * requests that would build it on AWS (CreateTable, then UpdateTimeToLive,
 * UpdateContinuousBackups, BatchWriteItem of the sample data), which the
 * caller replays through the ordinary front of the api (dispatch.c), so every
 * rule of those operations applies and every error is AWS's. This room only
 * translates, and names the file, the resource and the field when something
 * is wrong or unsupported.
 *
 * Reentrant; no lock (the replayed requests take the engine's).
 */
#ifndef DDB_API_DESIGN_H
#define DDB_API_DESIGN_H

#include <stddef.h>

/* Replays one DynamoDB request (X-Amz-Target target, JSON body) as the
 * credential (access_key, region) would send it. Returns the HTTP status and
 * sets *answer to the response body (owned, NUL-terminated). */
typedef int design_call_fn(void *arg, const char *access_key, const char *region,
                           const char *target, const char *body, char **answer);

struct design_target {
    const char *access_key;
    const char *region;
    design_call_fn *call;
    void *arg;
};

struct design_summary {
    size_t tables; /* tables created */
    size_t items;  /* sample items written */
};

/* Loads the document text (len bytes; name is how errors refer to it, e.g.
 * the file name) into the target. On error returns -1 with *error set to an
 * owned message ("NAME: resource X: field Y: ..."); tables created before the
 * error stay. */
int design_load(const char *name, const char *text, size_t len, const struct design_target *to,
                struct design_summary *out, char **error);

#endif
