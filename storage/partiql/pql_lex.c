/*
 * pql_lex.c - splits a PartiQL statement into tokens (see pql_lex.h).
 *
 * PartiQL's lexical rules as DynamoDB uses them: identifiers are bare
 * (case-insensitive keywords are recognized by the parser, not here) or in
 * double quotes, strings are in single quotes, a quote is doubled to escape
 * it, and << >> delimit bags (DynamoDB's sets). Nothing here allocates per
 * token beyond the one array.
 */
#include "storage/partiql/pql_lex.h"

#include "storage/base/alloc.h"
#include "storage/base/text.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void push(struct pql_tokens *t, size_t *cap, enum pql_tok type, size_t start, size_t len)
{
    if (t->count == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        t->toks = xrealloc(t->toks, *cap * sizeof *t->toks);
    }
    t->toks[t->count].type = type;
    t->toks[t->count].start = (uint32_t) start;
    t->toks[t->count].len = (uint32_t) len;
    t->count++;
}

static bool ident_start(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ident_char(unsigned char c)
{
    return ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}

static bool digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

/* The end of a quoted token starting at i (the quote), or len when unterminated. */
static size_t quoted_end(const char *s, size_t len, size_t i, char q, bool *ok)
{
    for (i++; i < len; i++) {
        if (s[i] != q) continue;
        if (i + 1 < len && s[i + 1] == q) {
            i++;
            continue;
        }
        *ok = true;
        return i + 1;
    }
    *ok = false;
    return len;
}

static size_t number_end(const char *s, size_t len, size_t i)
{
    while (i < len && digit((unsigned char) s[i]))
        i++;
    if (i < len && s[i] == '.') {
        i++;
        while (i < len && digit((unsigned char) s[i]))
            i++;
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < len && (s[j] == '+' || s[j] == '-')) j++;
        if (j < len && digit((unsigned char) s[j])) {
            i = j;
            while (i < len && digit((unsigned char) s[i]))
                i++;
        }
    }
    return i;
}

void pql_lex(const char *s, size_t len, struct pql_tokens *out)
{
    size_t cap = 0, i = 0;

    memset(out, 0, sizeof *out);
    while (i < len) {
        unsigned char c = (unsigned char) s[i];
        size_t start = i;
        bool ok;

        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '-' && i + 1 < len && s[i + 1] == '-') {
            while (i < len && s[i] != '\n')
                i++;
            continue;
        }
        if (c == '/' && i + 1 < len && s[i + 1] == '*') {
            const char *end = NULL;
            for (size_t j = i + 2; j + 1 < len; j++) {
                if (s[j] == '*' && s[j + 1] == '/') {
                    end = s + j + 2;
                    break;
                }
            }
            if (!end) {
                push(out, &cap, PT_UNTERMINATED, start, len - start);
                break;
            }
            i = (size_t) (end - s);
            continue;
        }
        if (ident_start(c)) {
            while (i < len && ident_char((unsigned char) s[i]))
                i++;
            push(out, &cap, PT_IDENT, start, i - start);
            continue;
        }
        if (c == '"' || c == '\'') {
            i = quoted_end(s, len, i, (char) c, &ok);
            push(out, &cap, ok ? (c == '"' ? PT_QIDENT : PT_STRING) : PT_UNTERMINATED, start,
                 i - start);
            continue;
        }
        if (digit(c) || (c == '.' && i + 1 < len && digit((unsigned char) s[i + 1]))) {
            i = number_end(s, len, i);
            push(out, &cap, PT_NUMBER, start, i - start);
            continue;
        }
        if (i + 1 < len) {
            char d = s[i + 1];
            enum pql_tok two = PT_EOF;
            if (c == '<' && d == '<') two = PT_LBAG;
            if (c == '>' && d == '>') two = PT_RBAG;
            if (c == '<' && d == '>') two = PT_NE;
            if (c == '!' && d == '=') two = PT_NE;
            if (c == '<' && d == '=') two = PT_LE;
            if (c == '>' && d == '=') two = PT_GE;
            if (two != PT_EOF) {
                push(out, &cap, two, start, 2);
                i += 2;
                continue;
            }
        }
        {
            enum pql_tok one = PT_UNKNOWN;
            size_t n = 1;
            switch (c) {
            case ',': one = PT_COMMA; break;
            case '(': one = PT_LPAREN; break;
            case ')': one = PT_RPAREN; break;
            case '[': one = PT_LBRACKET; break;
            case ']': one = PT_RBRACKET; break;
            case '{': one = PT_LBRACE; break;
            case '}': one = PT_RBRACE; break;
            case '.': one = PT_DOT; break;
            case '*': one = PT_STAR; break;
            case '?': one = PT_QUESTION; break;
            case ':': one = PT_COLON; break;
            case ';': one = PT_SEMICOLON; break;
            case '=': one = PT_EQ; break;
            case '<': one = PT_LT; break;
            case '>': one = PT_GT; break;
            case '+': one = PT_PLUS; break;
            case '-': one = PT_MINUS; break;
            default:
                /* one UTF-8 code point, or one byte where none starts */
                n = text_utf8_decode(s + i, len - i, NULL);
                if (n == 0) n = 1;
                break;
            }
            push(out, &cap, one, start, n);
            i += n;
        }
    }
    push(out, &cap, PT_EOF, len, 0);
}

void pql_tokens_clear(struct pql_tokens *t)
{
    free(t->toks);
    memset(t, 0, sizeof *t);
}

bool pql_tok_is(const char *src, const struct pql_token *t, const char *kw)
{
    return t->type == PT_IDENT && strlen(kw) == t->len &&
           strncasecmp(src + t->start, kw, t->len) == 0;
}
