/*
 * design_internal.h - what the readers of each format share (design_send.c)
 * and the readers design.c calls.
 */
#ifndef DDB_API_DESIGN_INTERNAL_H
#define DDB_API_DESIGN_INTERNAL_H

#include "api/design/design.h"

#include <jansson.h>
#include <stdbool.h>

/* Where a load is, for messages: the document's name, and the resource. */
struct design_ctx {
    const char *name;
    const struct design_target *to;
    struct design_summary *summary;
    char *error; /* owned; the first error */
};

/* Records the first error as "NAME: <formatted>" and returns -1. */
int design_fail(struct design_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends one request (body borrowed) as `what` ("resource X: CreateTable") says;
 * a DynamoDB error becomes this load's error, with AWS's message. *answer
 * (may be NULL) receives the parsed answer. */
int design_send(struct design_ctx *c, const char *what, const char *target, const json_t *body,
                json_t **answer);

/* Writes items (an array of AttributeValue maps, borrowed) to table in
 * BatchWriteItem requests of 25. */
int design_put_items(struct design_ctx *c, const char *what, const char *table,
                     const json_t *items);

int design_workbench(struct design_ctx *c, const json_t *model);
int design_cloudformation(struct design_ctx *c, const json_t *template_);

#endif
