/*
 * pql_lex.h - the tokens of a PartiQL statement (private to storage/partiql).
 *
 * The lexer never fails: a byte no rule accepts becomes PT_UNKNOWN and the
 * parser reports it where it stands. Whitespace and comments (-- to the end
 * of the line, block comments) are skipped. Offsets are bytes into the source.
 */
#ifndef DDB_PQL_LEX_H
#define DDB_PQL_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pql_tok {
    PT_EOF,
    PT_IDENT,  /* bare identifier or keyword: [A-Za-z_][A-Za-z0-9_$]* */
    PT_QIDENT, /* "double-quoted identifier" ("" inside is one ") */
    PT_STRING, /* 'single-quoted string' ('' inside is one ') */
    PT_NUMBER, /* 12, 1.5, .5, 1e3 (no sign) */
    PT_COMMA,
    PT_LPAREN,
    PT_RPAREN,
    PT_LBRACKET,
    PT_RBRACKET,
    PT_LBRACE,
    PT_RBRACE,
    PT_LBAG, /* << */
    PT_RBAG, /* >> */
    PT_DOT,
    PT_STAR,
    PT_QUESTION,
    PT_COLON,
    PT_SEMICOLON,
    PT_EQ,
    PT_NE, /* <> or != */
    PT_LT,
    PT_LE,
    PT_GT,
    PT_GE,
    PT_PLUS,
    PT_MINUS,
    PT_UNKNOWN,
    PT_UNTERMINATED, /* a string, quoted identifier or comment without its end */
};

struct pql_token {
    enum pql_tok type;
    uint32_t start; /* byte offset */
    uint32_t len;
};

struct pql_tokens {
    struct pql_token *toks; /* owned; the last is PT_EOF */
    size_t count;
};

void pql_lex(const char *src, size_t len, struct pql_tokens *out);
void pql_tokens_clear(struct pql_tokens *t);
/* True when the token is the bare identifier kw (ASCII, any case). */
bool pql_tok_is(const char *src, const struct pql_token *t, const char *kw);

#endif
