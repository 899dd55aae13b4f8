/*
 * error.c - the per-request error record; see error.h for the convention.
 */
#include "storage/base/error.h"

#include "storage/base/alloc.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int status;
    const char *type;
    const char *message_key;
} error_table[] = {[DDB_OK] = {200, "", "message"},
#define X(name, status, type, key) [DDB_##name] = {status, type, key},
                   DDB_ERRORS(X)
#undef X
};

int ddb_error_set(struct ddb_error *err, enum ddb_error_code code, const char *fmt, ...)
{
    va_list ap;
    int len;

    assert(err->code == DDB_OK);
    assert(code != DDB_OK);
    err->code = code;
    va_start(ap, fmt);
    len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    err->message = xmalloc((size_t) len + 1);
    va_start(ap, fmt);
    vsnprintf(err->message, (size_t) len + 1, fmt, ap);
    va_end(ap);
    return -1;
}

int ddb_error_set_bare(struct ddb_error *err, enum ddb_error_code code)
{
    assert(err->code == DDB_OK);
    err->code = code;
    err->message = NULL;
    return -1;
}

void ddb_error_clear(struct ddb_error *err)
{
    free(err->message);
    memset(err, 0, sizeof *err);
}

void ddb_error_move(struct ddb_error *dst, struct ddb_error *src)
{
    assert(dst->code == DDB_OK);
    *dst = *src;
    memset(src, 0, sizeof *src);
}

bool ddb_error_is_set(const struct ddb_error *err)
{
    return err->code != DDB_OK;
}

int ddb_error_http_status(enum ddb_error_code code)
{
    return error_table[code].status;
}

const char *ddb_error_type(enum ddb_error_code code)
{
    return error_table[code].type;
}

const char *ddb_error_message_key(enum ddb_error_code code)
{
    return error_table[code].message_key;
}
