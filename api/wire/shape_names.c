/*
 * shape_names.c - DynamoDB's naming rule; see shape_names.h.
 */
#include "api/wire/shape_names.h"

#include "storage/base/limits.h"
#include "storage/base/text.h"

/* The pattern [a-zA-Z0-9_.-]+ (shape.h's SHAPE_TABLE_NAME_PATTERN). */
static bool has_table_name_chars(const char *s, size_t len)
{
    if (len == 0) return false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-'))
            return false;
    }
    return true;
}

int shape_name_length_cmp(const char *s, size_t len)
{
    size_t chars = text_utf16_length(s, len);

    if (chars < DDB_MIN_TABLE_NAME_LEN) return -1;
    return chars > DDB_MAX_TABLE_NAME_LEN ? 1 : 0;
}

int shape_check_name_length(const char *member, const char *s, size_t len, struct ddb_error *err)
{
    if (shape_name_length_cmp(s, len) == 0) return 0;
    return ddb_error_set(err, DDB_VALIDATION,
                         "%s must be at least %d characters long and at most %d characters long",
                         member, DDB_MIN_TABLE_NAME_LEN, DDB_MAX_TABLE_NAME_LEN);
}

bool shape_is_table_name(const char *s, size_t len)
{
    return shape_name_length_cmp(s, len) == 0 && has_table_name_chars(s, len);
}
