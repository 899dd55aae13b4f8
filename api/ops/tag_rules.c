/*
 * tag_rules.c - the tag key and value rules (see tag_rules.h).
 *
 * The character rule is AWS's Java pattern [\p{L}\p{Z}\p{N}_.:/=+\-@]. Without
 * Unicode tables here, letters, separators and numbers outside ASCII are
 * approximated: every code point is accepted except the ranges that hold
 * controls, punctuation, symbols, combining marks, emoji and private use
 * (the cases the lab recorded - emoji refused; Cyrillic, Latin-1 letters,
 * CJK, NBSP and the ideographic space accepted - are exact; see
 * docs/differences.md).
 */
#include "api/ops/tag_rules.h"

#include "api/wire/body.h"
#include "storage/base/limits.h"
#include "storage/base/text.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

/* Code point ranges that are not letters, separators or numbers. */
static const struct {
    uint32_t lo, hi;
} refused[] = {
    {0x7F, 0x9F},     {0xA1, 0xA9},     {0xAB, 0xB1},       {0xB4, 0xB4},        {0xB6, 0xB8},
    {0xBB, 0xBB},     {0xBF, 0xBF},     {0xD7, 0xD7},       {0xF7, 0xF7},        {0x2C2, 0x2C5},
    {0x2D2, 0x2DF},   {0x2E5, 0x2EB},   {0x2ED, 0x2ED},     {0x2EF, 0x36F},      {0x200B, 0x200F},
    {0x2010, 0x2027}, {0x202A, 0x202E}, {0x2030, 0x205E},   {0x2060, 0x206F},    {0x20A0, 0x20FF},
    {0x2190, 0x245F}, {0x2500, 0x2BFF}, {0x2E00, 0x2E7F},   {0x3001, 0x3004},    {0x3008, 0x3020},
    {0xD800, 0xF8FF}, {0xFE00, 0xFE6F}, {0xFF01, 0xFF0F},   {0xFF1A, 0xFF20},    {0xFF3B, 0xFF40},
    {0xFF5B, 0xFF65}, {0xFFF0, 0xFFFF}, {0x1F000, 0x1FBFF}, {0xE0000, 0x10FFFF},
};

static bool char_allowed(uint32_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               strchr(" _.:/=+-@", (int) c) != NULL;
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (c >= refused[i].lo && c <= refused[i].hi) return false;
    return true;
}

/* The number of code points of s when every one is allowed, or -1 (also for
 * bytes that are not UTF-8, which a JSON request cannot hold). */
static long allowed_length(const char *s, size_t len)
{
    long n = 0;

    for (size_t i = 0; i < len; n++) {
        uint32_t c;
        size_t used = text_utf8_decode(s + i, len - i, &c);
        if (used == 0 || c == 0 || !char_allowed(c)) return -1;
        i += used;
    }
    return n;
}

static bool reserved_prefix(const char *key, size_t len)
{
    return len >= 4 && strncasecmp(key, "aws:", 4) == 0;
}

int tag_rules_check_key(const char *key, size_t len, struct ddb_error *err)
{
    long n = key ? allowed_length(key, len) : -1;

    if (n < 1 || n > DDB_MAX_TAG_KEY_LEN)
        return ddb_error_set(err, DDB_VALIDATION, "The Tag Key provided is invalid, Key: %s",
                             key ? key : "null");
    if (reserved_prefix(key, len))
        return ddb_error_set(err, DDB_VALIDATION, "Tag Key cannot be prefixed with aws:, Key: %s",
                             key);
    return 0;
}

int tag_rules_check_tags(const json_t *tags, struct ddb_error *err)
{
    size_t i;
    json_t *tag;

    json_array_foreach(tags, i, tag)
    {
        json_t *k = body_member(tag, "Key"), *v = body_member(tag, "Value");
        const char *value = json_string_value(v);
        long n;
        if (tag_rules_check_key(json_string_value(k), json_string_length(k), err) != 0) return -1;
        n = value ? allowed_length(value, json_string_length(v)) : -1;
        if (n < 0 || n > DDB_MAX_TAG_VALUE_LEN)
            return ddb_error_set(err, DDB_VALIDATION,
                                 "The Tag Value provided is invalid, Value: %s",
                                 value ? value : "null");
    }
    json_array_foreach(tags, i, tag)
    {
        const char *key = body_member_str(tag, "Key");
        for (size_t j = 0; j < i; j++) {
            if (strcmp(key, body_member_str(json_array_get(tags, j), "Key")) == 0)
                return ddb_error_set(err, DDB_VALIDATION,
                                     "Duplicate Tag Keys provided as input: Duplicate Tag Key "
                                     "found %s",
                                     key);
        }
    }
    return 0;
}
