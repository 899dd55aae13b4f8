/*
 * failure.h - what a failed write hands back besides its error.
 *
 * Two DynamoDB errors carry data in their answer: ConditionalCheckFailed
 * with ReturnValuesOnConditionCheckFailure = ALL_OLD carries the item as it
 * was, and TransactionCanceledException carries one CancellationReason per
 * action (with the item, when asked). struct ddb_error stays a plain code and
 * text (base/ knows nothing of items); these payloads travel beside it, in the
 * write results that produce them, and api/http/response.c writes both.
 *
 * Ownership: a struct failure_details owns its item references and reasons;
 * failure_details_clear releases them.
 */
#ifndef DDB_FAILURE_H
#define DDB_FAILURE_H

#include "storage/model/item.h"

#include <stddef.h>

/* One entry of TransactionCanceledException's CancellationReasons. */
struct cancel_reason {
    char *code;        /* owned; "None", "ConditionalCheckFailed", ... */
    char *message;     /* owned; NULL when AWS sends none */
    struct item *item; /* owned reference; only with ReturnValuesOnConditionCheckFailure */
};

struct failure_details {
    struct item *item;             /* ConditionalCheckFailed with ALL_OLD; owned reference */
    struct cancel_reason *reasons; /* TransactionCanceledException only; owned */
    size_t reason_count;
};

/* Releases the item and the reasons; leaves f empty. */
void failure_details_clear(struct failure_details *f);
/* Moves src into dst (dst must be empty); src is left empty. */
void failure_details_move(struct failure_details *dst, struct failure_details *src);

#endif
