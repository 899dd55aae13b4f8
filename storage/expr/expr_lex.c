/*
 * expr_lex.c - tokens of DynamoDB's expression language, and its reserved words.
 *
 * The token rules are DynamoDB's own (Tokens.g4 in the DAX client, which is the
 * grammar DynamoDB parses expressions with):
 *
 *   whitespace [ \t\n\r]+ is skipped (a hidden channel: "near" still shows it);
 *   = <> < <= > >= + - , ( ) . [ ]
 *   keywords IN BETWEEN NOT AND OR SET ADD DELETE REMOVE, in any case;
 *   INDEX '0' | [1-9][0-9]*          (so "01" is two tokens, "0" and "1")
 *   ID [a-zA-Z][a-zA-Z0-9_]*          (so "_a" and "1a" are not names)
 *   #name '#' [a-zA-Z0-9_]+, :value ':' [a-zA-Z0-9_]+
 *   a quoted string '"..."' or '\'...\'' (a token that no grammar rule accepts)
 *   anything else: one UNKNOWN token per character.
 *
 * The lexer takes the longest match and, on a tie, the earlier rule, so "set"
 * is the keyword SET while "settings" is an ID. It never fails: errors are the
 * parser's, reported at a token.
 *
 * Reserved words: the 573 words of developerguide/ReservedWords.html (checked
 * against awsdocs/amazon-dynamodb-developer-guide doc_source/ReservedWords.md,
 * and dynalite's RESERVED_WORDS), kept sorted so that a lookup is a bsearch.
 * DynamoDB refuses them as bare attribute names in any case ("abOrt" in
 * dynalite test/updateItem.js), but not behind a #name.
 */
#include "storage/base/alloc.h"
#include "storage/base/text.h"
#include "storage/base/thread_cache.h"
#include "storage/expr/expr_ast.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Sorted by strcmp (all upper case); expr_lex_reserved_sorted asserts it in tests. */
/* clang-format off */
static const char *const reserved_words[] = {
    "ABORT", "ABSOLUTE", "ACTION", "ADD", "AFTER", "AGENT", "AGGREGATE", "ALL", "ALLOCATE",
    "ALTER", "ANALYZE", "AND", "ANY", "ARCHIVE", "ARE", "ARRAY", "AS", "ASC", "ASCII",
    "ASENSITIVE", "ASSERTION", "ASYMMETRIC", "AT", "ATOMIC", "ATTACH", "ATTRIBUTE", "AUTH",
    "AUTHORIZATION", "AUTHORIZE", "AUTO", "AVG", "BACK", "BACKUP", "BASE", "BATCH", "BEFORE",
    "BEGIN", "BETWEEN", "BIGINT", "BINARY", "BIT", "BLOB", "BLOCK", "BOOLEAN", "BOTH", "BREADTH",
    "BUCKET", "BULK", "BY", "BYTE", "CALL", "CALLED", "CALLING", "CAPACITY", "CASCADE", "CASCADED",
    "CASE", "CAST", "CATALOG", "CHAR", "CHARACTER", "CHECK", "CLASS", "CLOB", "CLOSE", "CLUSTER",
    "CLUSTERED", "CLUSTERING", "CLUSTERS", "COALESCE", "COLLATE", "COLLATION", "COLLECTION",
    "COLUMN", "COLUMNS", "COMBINE", "COMMENT", "COMMIT", "COMPACT", "COMPILE", "COMPRESS",
    "CONDITION", "CONFLICT", "CONNECT", "CONNECTION", "CONSISTENCY", "CONSISTENT", "CONSTRAINT",
    "CONSTRAINTS", "CONSTRUCTOR", "CONSUMED", "CONTINUE", "CONVERT", "COPY", "CORRESPONDING",
    "COUNT", "COUNTER", "CREATE", "CROSS", "CUBE", "CURRENT", "CURSOR", "CYCLE", "DATA",
    "DATABASE", "DATE", "DATETIME", "DAY", "DEALLOCATE", "DEC", "DECIMAL", "DECLARE", "DEFAULT",
    "DEFERRABLE", "DEFERRED", "DEFINE", "DEFINED", "DEFINITION", "DELETE", "DELIMITED", "DEPTH",
    "DEREF", "DESC", "DESCRIBE", "DESCRIPTOR", "DETACH", "DETERMINISTIC", "DIAGNOSTICS",
    "DIRECTORIES", "DISABLE", "DISCONNECT", "DISTINCT", "DISTRIBUTE", "DO", "DOMAIN", "DOUBLE",
    "DROP", "DUMP", "DURATION", "DYNAMIC", "EACH", "ELEMENT", "ELSE", "ELSEIF", "EMPTY", "ENABLE",
    "END", "EQUAL", "EQUALS", "ERROR", "ESCAPE", "ESCAPED", "EVAL", "EVALUATE", "EXCEEDED",
    "EXCEPT", "EXCEPTION", "EXCEPTIONS", "EXCLUSIVE", "EXEC", "EXECUTE", "EXISTS", "EXIT",
    "EXPLAIN", "EXPLODE", "EXPORT", "EXPRESSION", "EXTENDED", "EXTERNAL", "EXTRACT", "FAIL",
    "FALSE", "FAMILY", "FETCH", "FIELDS", "FILE", "FILTER", "FILTERING", "FINAL", "FINISH",
    "FIRST", "FIXED", "FLATTERN", "FLOAT", "FOR", "FORCE", "FOREIGN", "FORMAT", "FORWARD", "FOUND",
    "FREE", "FROM", "FULL", "FUNCTION", "FUNCTIONS", "GENERAL", "GENERATE", "GET", "GLOB",
    "GLOBAL", "GO", "GOTO", "GRANT", "GREATER", "GROUP", "GROUPING", "HANDLER", "HASH", "HAVE",
    "HAVING", "HEAP", "HIDDEN", "HOLD", "HOUR", "IDENTIFIED", "IDENTITY", "IF", "IGNORE",
    "IMMEDIATE", "IMPORT", "IN", "INCLUDING", "INCLUSIVE", "INCREMENT", "INCREMENTAL", "INDEX",
    "INDEXED", "INDEXES", "INDICATOR", "INFINITE", "INITIALLY", "INLINE", "INNER", "INNTER",
    "INOUT", "INPUT", "INSENSITIVE", "INSERT", "INSTEAD", "INT", "INTEGER", "INTERSECT",
    "INTERVAL", "INTO", "INVALIDATE", "IS", "ISOLATION", "ITEM", "ITEMS", "ITERATE", "JOIN", "KEY",
    "KEYS", "LAG", "LANGUAGE", "LARGE", "LAST", "LATERAL", "LEAD", "LEADING", "LEAVE", "LEFT",
    "LENGTH", "LESS", "LEVEL", "LIKE", "LIMIT", "LIMITED", "LINES", "LIST", "LOAD", "LOCAL",
    "LOCALTIME", "LOCALTIMESTAMP", "LOCATION", "LOCATOR", "LOCK", "LOCKS", "LOG", "LOGED", "LONG",
    "LOOP", "LOWER", "MAP", "MATCH", "MATERIALIZED", "MAX", "MAXLEN", "MEMBER", "MERGE", "METHOD",
    "METRICS", "MIN", "MINUS", "MINUTE", "MISSING", "MOD", "MODE", "MODIFIES", "MODIFY", "MODULE",
    "MONTH", "MULTI", "MULTISET", "NAME", "NAMES", "NATIONAL", "NATURAL", "NCHAR", "NCLOB", "NEW",
    "NEXT", "NO", "NONE", "NOT", "NULL", "NULLIF", "NUMBER", "NUMERIC", "OBJECT", "OF", "OFFLINE",
    "OFFSET", "OLD", "ON", "ONLINE", "ONLY", "OPAQUE", "OPEN", "OPERATOR", "OPTION", "OR", "ORDER",
    "ORDINALITY", "OTHER", "OTHERS", "OUT", "OUTER", "OUTPUT", "OVER", "OVERLAPS", "OVERRIDE",
    "OWNER", "PAD", "PARALLEL", "PARAMETER", "PARAMETERS", "PARTIAL", "PARTITION", "PARTITIONED",
    "PARTITIONS", "PATH", "PERCENT", "PERCENTILE", "PERMISSION", "PERMISSIONS", "PIPE",
    "PIPELINED", "PLAN", "POOL", "POSITION", "PRECISION", "PREPARE", "PRESERVE", "PRIMARY",
    "PRIOR", "PRIVATE", "PRIVILEGES", "PROCEDURE", "PROCESSED", "PROJECT", "PROJECTION",
    "PROPERTY", "PROVISIONING", "PUBLIC", "PUT", "QUERY", "QUIT", "QUORUM", "RAISE", "RANDOM",
    "RANGE", "RANK", "RAW", "READ", "READS", "REAL", "REBUILD", "RECORD", "RECURSIVE", "REDUCE",
    "REF", "REFERENCE", "REFERENCES", "REFERENCING", "REGEXP", "REGION", "REINDEX", "RELATIVE",
    "RELEASE", "REMAINDER", "RENAME", "REPEAT", "REPLACE", "REQUEST", "RESET", "RESIGNAL",
    "RESOURCE", "RESPONSE", "RESTORE", "RESTRICT", "RESULT", "RETURN", "RETURNING", "RETURNS",
    "REVERSE", "REVOKE", "RIGHT", "ROLE", "ROLES", "ROLLBACK", "ROLLUP", "ROUTINE", "ROW", "ROWS",
    "RULE", "RULES", "SAMPLE", "SATISFIES", "SAVE", "SAVEPOINT", "SCAN", "SCHEMA", "SCOPE",
    "SCROLL", "SEARCH", "SECOND", "SECTION", "SEGMENT", "SEGMENTS", "SELECT", "SELF", "SEMI",
    "SENSITIVE", "SEPARATE", "SEQUENCE", "SERIALIZABLE", "SESSION", "SET", "SETS", "SHARD",
    "SHARE", "SHARED", "SHORT", "SHOW", "SIGNAL", "SIMILAR", "SIZE", "SKEWED", "SMALLINT",
    "SNAPSHOT", "SOME", "SOURCE", "SPACE", "SPACES", "SPARSE", "SPECIFIC", "SPECIFICTYPE", "SPLIT",
    "SQL", "SQLCODE", "SQLERROR", "SQLEXCEPTION", "SQLSTATE", "SQLWARNING", "START", "STATE",
    "STATIC", "STATUS", "STORAGE", "STORE", "STORED", "STREAM", "STRING", "STRUCT", "STYLE", "SUB",
    "SUBMULTISET", "SUBPARTITION", "SUBSTRING", "SUBTYPE", "SUM", "SUPER", "SYMMETRIC", "SYNONYM",
    "SYSTEM", "TABLE", "TABLESAMPLE", "TEMP", "TEMPORARY", "TERMINATED", "TEXT", "THAN", "THEN",
    "THROUGHPUT", "TIME", "TIMESTAMP", "TIMEZONE", "TINYINT", "TO", "TOKEN", "TOTAL", "TOUCH",
    "TRAILING", "TRANSACTION", "TRANSFORM", "TRANSLATE", "TRANSLATION", "TREAT", "TRIGGER", "TRIM",
    "TRUE", "TRUNCATE", "TTL", "TUPLE", "TYPE", "UNDER", "UNDO", "UNION", "UNIQUE", "UNIT",
    "UNKNOWN", "UNLOGGED", "UNNEST", "UNPROCESSED", "UNSIGNED", "UNTIL", "UPDATE", "UPPER", "URL",
    "USAGE", "USE", "USER", "USERS", "USING", "UUID", "VACUUM", "VALUE", "VALUED", "VALUES",
    "VARCHAR", "VARIABLE", "VARIANCE", "VARINT", "VARYING", "VIEW", "VIEWS", "VIRTUAL", "VOID",
    "WAIT", "WHEN", "WHENEVER", "WHERE", "WHILE", "WINDOW", "WITH", "WITHIN", "WITHOUT", "WORK",
    "WRAPPED", "WRITE", "YEAR", "ZONE",
};
/* clang-format on */

#define RESERVED_COUNT (sizeof reserved_words / sizeof reserved_words[0])
_Static_assert(RESERVED_COUNT == 573, "developerguide/ReservedWords.html lists 573 words");

struct word_key {
    const char *s;
    size_t len;
};

static int upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c;
}

/* Compares a key (any case) with a reserved word (upper case) as strcmp would
 * compare the upper-cased key. */
static int compare_word(const void *key, const void *elem)
{
    const struct word_key *k = key;
    const char *w = *(const char *const *) elem;
    size_t i = 0;

    for (; i < k->len && w[i] != '\0'; i++) {
        int a = upper((unsigned char) k->s[i]), b = (unsigned char) w[i];
        if (a != b) return a < b ? -1 : 1;
    }
    if (i < k->len) return 1;
    return w[i] == '\0' ? 0 : -1;
}

/* True when s is a reserved word, compared without regard to case. */
bool expr_is_reserved_word(const char *s, size_t len)
{
    struct word_key key = {s, len};
    return bsearch(&key, reserved_words, RESERVED_COUNT, sizeof reserved_words[0], compare_word) !=
           NULL;
}

/* Number of reserved words (573). */
size_t expr_reserved_word_count(void)
{
    return RESERVED_COUNT;
}

/* The i-th reserved word in sorted order (i < expr_reserved_word_count()). */
const char *expr_reserved_word(size_t i)
{
    assert(i < RESERVED_COUNT);
    return reserved_words[i];
}

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool is_id_char(unsigned char c)
{
    return is_alpha(c) || is_digit(c) || c == '_';
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const struct {
    const char *word;
    enum expr_tok tok;
} keywords[] = {
    {"IN", TOK_IN},   {"BETWEEN", TOK_BETWEEN}, {"NOT", TOK_NOT},
    {"AND", TOK_AND}, {"OR", TOK_OR},           {"SET", TOK_SET},
    {"ADD", TOK_ADD}, {"DELETE", TOK_DELETE},   {"REMOVE", TOK_REMOVE},
};

static enum expr_tok keyword_or_id(const char *s, size_t len)
{
    for (size_t k = 0; k < sizeof keywords / sizeof keywords[0]; k++) {
        const char *w = keywords[k].word;
        size_t i = 0;

        /* No strlen per word: every name of every expression comes here, and
         * those were half a percent of a Query's CPU. A shorter word stops at
         * its NUL, which no name's byte equals. */
        while (i < len && upper((unsigned char) s[i]) == w[i])
            i++;
        if (i == len && w[len] == '\0') return keywords[k].tok;
    }
    return TOK_ID;
}

/* Length of the UTF-8 sequence starting at s[0] if it is well formed, else 1:
 * an UNKNOWN token is one character, and a message quoting it stays UTF-8. */
static size_t char_len(const char *s, size_t avail)
{
    size_t n = text_utf8_decode(s, avail, NULL);
    return n ? n : 1;
}

static void push(struct expr_tokens *t, size_t *cap, enum expr_tok type, size_t start, size_t len)
{
    if (t->count == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        t->toks = thread_cache_grow(t->toks, t->count * sizeof *t->toks, *cap * sizeof *t->toks);
    }
    t->toks[t->count++] = (struct expr_token){type, (uint32_t) start, (uint32_t) len};
}

/* Single-character punctuation and the one- or two-character comparators. */
static size_t punct(const char *s, size_t avail, enum expr_tok *type)
{
    switch (s[0]) {
    case ',': *type = TOK_COMMA; return 1;
    case '(': *type = TOK_LPAREN; return 1;
    case ')': *type = TOK_RPAREN; return 1;
    case '.': *type = TOK_DOT; return 1;
    case '[': *type = TOK_LBRACKET; return 1;
    case ']': *type = TOK_RBRACKET; return 1;
    case '=': *type = TOK_EQ; return 1;
    case '+': *type = TOK_PLUS; return 1;
    case '-': *type = TOK_MINUS; return 1;
    case '<':
        if (avail > 1 && s[1] == '>') {
            *type = TOK_NE;
            return 2;
        }
        if (avail > 1 && s[1] == '=') {
            *type = TOK_LE;
            return 2;
        }
        *type = TOK_LT;
        return 1;
    case '>':
        if (avail > 1 && s[1] == '=') {
            *type = TOK_GE;
            return 2;
        }
        *type = TOK_GT;
        return 1;
    default: return 0;
    }
}

/*
 * Splits src into tokens (see the file comment). Expressions are at most 4 KB
 * when they get here, but any length works; offsets are 32-bit, so the caller
 * refuses sources of 4 GB and more before lexing. *out owns its array.
 */
void expr_lex(const char *src, size_t len, struct expr_tokens *out)
{
    const unsigned char *s = (const unsigned char *) src;
    size_t cap = 0, i = 0;

    out->toks = NULL;
    out->count = 0;
    out->src = src;
    out->src_len = len;
    while (i < len) {
        size_t start = i, n;
        enum expr_tok type;

        if (is_space(s[i])) {
            i++;
            continue;
        }
        if (is_alpha(s[i])) {
            while (i < len && is_id_char(s[i]))
                i++;
            push(out, &cap, keyword_or_id(src + start, i - start), start, i - start);
            continue;
        }
        if (is_digit(s[i])) {
            if (s[i] == '0')
                i++;
            else
                while (i < len && is_digit(s[i]))
                    i++;
            push(out, &cap, TOK_INDEX, start, i - start);
            continue;
        }
        if ((s[i] == '#' || s[i] == ':') && i + 1 < len && is_id_char(s[i + 1])) {
            i++;
            while (i < len && is_id_char(s[i]))
                i++;
            push(out, &cap, src[start] == '#' ? TOK_NAME_REF : TOK_VALUE_REF, start, i - start);
            continue;
        }
        if (s[i] == '"' || s[i] == '\'') {
            /* Tokens.g4: '"' ('\\"' | .)*? '"' - non-greedy, so it ends at the
             * first closing quote. Unterminated, the quote is UNKNOWN. */
            const void *close = memchr(src + i + 1, src[i], len - i - 1);
            if (close) {
                i = (size_t) ((const char *) close - src) + 1;
                push(out, &cap, TOK_STRING, start, i - start);
                continue;
            }
        }
        n = punct(src + i, len - i, &type);
        if (n == 0) {
            type = TOK_UNKNOWN;
            n = char_len(src + i, len - i);
        }
        i += n;
        push(out, &cap, type, start, n);
    }
    push(out, &cap, TOK_EOF, len, 0);
}

/* Frees the token array; t becomes empty. */
void expr_tokens_clear(struct expr_tokens *t)
{
    thread_cache_free(t->toks);
    t->toks = NULL;
    t->count = 0;
}
