/*
 * tag_rules.h - AWS's rules for tags, for TagResource, UntagResource and the
 * Tags of CreateTable: one place for the key and value rules.
 *
 * Keys are 1..128 and values 0..256 Unicode characters of letters, digits,
 * white space and + - = . _ : / @ (developerguide/Tagging.html, AWS's tag
 * pattern ^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$); keys may not start with "aws:"
 * in any case; at most 50 tags. The texts are AWS's (ack-api-quirks
 * DDB-TABLE-105/106/107/108/372, live service 2026-10).
 */
#ifndef DDB_API_TAG_RULES_H
#define DDB_API_TAG_RULES_H

#include "storage/base/error.h"

#include <jansson.h>

/* A list of {"Key", "Value"} objects (members may be absent): each key and
 * value valid, no reserved prefix, no key twice. The count is not checked. */
int tag_rules_check_tags(const json_t *tags, struct ddb_error *err);
/* One key of UntagResource (NULL when the element is null). */
int tag_rules_check_key(const char *key, size_t len, struct ddb_error *err);

#endif
