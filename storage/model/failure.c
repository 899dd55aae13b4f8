/*
 * failure.c - the payloads of failed writes; see failure.h.
 */
#include "storage/model/failure.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void failure_details_clear(struct failure_details *f)
{
    item_unref(f->item);
    for (size_t i = 0; i < f->reason_count; i++) {
        free(f->reasons[i].code);
        free(f->reasons[i].message);
        item_unref(f->reasons[i].item);
    }
    free(f->reasons);
    memset(f, 0, sizeof *f);
}

void failure_details_move(struct failure_details *dst, struct failure_details *src)
{
    assert(!dst->item && !dst->reasons);
    *dst = *src;
    memset(src, 0, sizeof *src);
}
