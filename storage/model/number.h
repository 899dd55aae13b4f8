/*
 * number.h - DynamoDB numbers: exact decimals, never doubles.
 *
 * A DynamoDB Number has up to 38 significant decimal digits and a magnitude
 * between 1E-130 and 9.9999999999999999999999999999999999999E+125 (or zero).
 * Values are kept normalized: digits[] holds the significant digits with no
 * leading or trailing zeros, so 1 = 1.0 = 1e0 = 10e-1 have one representation,
 * which is what makes them equal keys.
 *
 * Value = (negative ? -1 : 1) * 0.d1 d2 ... dn * 10^exponent, n = digit_count.
 * Zero has digit_count 0, negative false, exponent 0.
 */
#ifndef DDB_NUMBER_H
#define DDB_NUMBER_H

#include "storage/base/error.h"
#include "storage/base/limits.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest canonical text: "-0." + 129 zeros + 38 digits, plus NUL, with room. */
#define NUMBER_TEXT_MAX 176

struct number {
    uint8_t digits[DDB_NUMBER_MAX_DIGITS]; /* each 0..9, most significant first */
    uint8_t digit_count;                   /* 0 means zero */
    bool negative;
    int16_t exponent;
};

/* Parses DynamoDB's number syntax (optional sign, digits, optional fraction,
 * optional e/E exponent; leading/trailing spaces are not allowed). Raises
 * ValidationException with AWS's texts for malformed text, more than 38
 * significant digits, overflow and underflow. */
int number_parse(const char *text, size_t len, struct number *out, struct ddb_error *err);
/* Writes the canonical text DynamoDB returns (plain notation, no exponent,
 * no trailing fractional zeros, "0" for zero) into buf; returns its length. */
size_t number_format(const struct number *n, char *buf, size_t cap);
/* <0, 0, >0 as a < b, a == b, a > b, numerically. */
int number_compare(const struct number *a, const struct number *b);
/* Parses two canonical texts and compares them; for texts already validated. */
int number_compare_text(const char *a, size_t a_len, const char *b, size_t b_len);
/* Exact a+b / a-b. Raises ValidationException when the exact result needs
 * more than 38 digits or leaves the range, with AWS's texts. */
int number_add(const struct number *a, const struct number *b, struct number *out,
               struct ddb_error *err);
int number_subtract(const struct number *a, const struct number *b, struct number *out,
                    struct ddb_error *err);

#endif
