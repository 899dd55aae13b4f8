/*
 * number.c - DynamoDB numbers: parse, canonical text, compare, add, subtract.
 *
 * A number is a sign, up to 38 significant decimal digits and a decimal
 * exponent (see number.h). Everything here is exact integer arithmetic on
 * digit arrays: no double ever touches a DynamoDB number, because DynamoDB
 * itself is exact (1 + 10000000000000000000000 = 10000000000000000000001).
 *
 * Invariants of every struct number this file produces:
 *   - digits[0] and digits[digit_count - 1] are non-zero (normalized), so one
 *     value has one representation and numeric equality is byte equality;
 *   - zero is {digit_count 0, negative false, exponent 0} ("-0" is "0");
 *   - a non-zero value lies in 1E-130 .. 9.99..9E+125, i.e. with
 *     value = 0.d1d2..dn * 10^exponent, NUMBER_MIN_EXP <= exponent <= NUMBER_MAX_EXP.
 *
 * Why addition works in a fixed buffer: two valid operands have digit
 * weights between 10^125 and 10^-167 (a 38-digit number at the bottom of the
 * range), so an exact sum or difference spans fewer than WORK_DIGITS digits
 * and never needs an allocation, however far apart the operands are.
 *
 * Error texts are AWS's, verbatim; each cites where it was observed.
 * No locking: these are pure functions on caller-owned values.
 */
#include "storage/model/number.h"

#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* value = 0.d1..dn * 10^exponent: 1E-130 is 0.1E-129, 9.99..E+125 is 0.999..E+126. */
#define NUMBER_MIN_EXP (-129)
#define NUMBER_MAX_EXP 126
/* Digit positions an exact sum of two valid numbers can touch, plus a carry. */
#define WORK_DIGITS (NUMBER_MAX_EXP - (NUMBER_MIN_EXP - DDB_NUMBER_MAX_DIGITS) + 2)
/* Exponents beyond this saturate while parsing ("1e999999999999"); any
 * value this far out is already out of range, and int64 cannot overflow. */
#define EXPONENT_CLAMP 1000000000000000LL

_Static_assert(DDB_NUMBER_MAX_DIGITS == 38, "the messages below say 38");

/*
 * Messages. Sources:
 * - invalid text, with and without the text: dynalite test/putItem.js and
 *   validations/index.js ("should return ValidationException for empty/invalid
 *   numbers": N "" -> no suffix, N "b" -> ": b"); scylladb
 *   test/alternator/test_number.py::test_invalid_numbers (NaN, Infinity, "dog",
 *   " 1", "1 " are all rejected with "...numeric...").
 * - digits, overflow, underflow: dynalite test/putItem.js (N '1234...789'
 *   with 39 digits, '1e126', '-1e126', '1e-131', '-1e-131').
 */
static const char MSG_NOT_NUMERIC[] = "The parameter cannot be converted to a numeric value";
static const char MSG_TOO_MANY_DIGITS[] =
    "Attempting to store more than 38 significant digits in a Number";
static const char MSG_OVERFLOW[] =
    "Number overflow. Attempting to store a number with magnitude larger than supported range";
static const char MSG_UNDERFLOW[] =
    "Number underflow. Attempting to store a number with magnitude smaller than supported range";

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Scans [sign] digits [. digits] [e|E [sign] digits] with at least one
 * mantissa digit. Fills the mantissa span and the exponent (saturated);
 * returns false when the text is not of that form. */
static bool scan_syntax(const char *text, size_t len, bool *negative, size_t *mant_start,
                        size_t *int_end, size_t *mant_end, long long *exp10)
{
    size_t i = 0, digit_count = 0;

    *negative = false;
    if (i < len && (text[i] == '+' || text[i] == '-')) *negative = text[i++] == '-';
    *mant_start = i;
    while (i < len && is_digit(text[i])) {
        i++;
        digit_count++;
    }
    *int_end = i;
    if (i < len && text[i] == '.') {
        i++;
        while (i < len && is_digit(text[i])) {
            i++;
            digit_count++;
        }
    }
    *mant_end = i;
    if (digit_count == 0) return false;
    *exp10 = 0;
    if (i < len && (text[i] == 'e' || text[i] == 'E')) {
        bool exp_negative = false;
        size_t exp_digits = 0;

        i++;
        if (i < len && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
        while (i < len && is_digit(text[i])) {
            if (*exp10 < EXPONENT_CLAMP) *exp10 = *exp10 * 10 + (text[i] - '0');
            i++;
            exp_digits++;
        }
        if (exp_digits == 0) return false;
        if (exp_negative) *exp10 = -*exp10;
    }
    return i == len;
}

/*
 * Parses DynamoDB number text into its normalized form. Returns 0, or -1
 * with a ValidationException and *out untouched. Checks in dynalite's order
 * (validations/index.js checkNum): syntax, overflow, underflow, digits.
 *
 * Zero is range-checked by its written exponent, as DynamoDB does: scylladb
 * test_number.py::test_number_magnitude_not_allowed_zero records that AWS
 * rejects "0e126" and "0e-131" but accepts "0.0e126" and "0e125". That is the
 * adjusted exponent of the text's zero (exponent minus fraction digits), which
 * we apply with the overflow/underflow texts of non-zero numbers.
 */
int number_parse(const char *text, size_t len, struct number *out, struct ddb_error *err)
{
    struct number n = {0};
    size_t mant_start, int_end, mant_end, first = SIZE_MAX, last = 0;
    long long exp10, adjusted;

    if (len == 0) return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_NOT_NUMERIC);
    if (!scan_syntax(text, len, &n.negative, &mant_start, &int_end, &mant_end, &exp10)) {
        return ddb_error_set(err, DDB_VALIDATION, "%s: %.*s", MSG_NOT_NUMERIC,
                             len > INT_MAX ? INT_MAX : (int) len, text);
    }
    for (size_t i = mant_start; i < mant_end; i++) {
        if (text[i] != '.' && text[i] != '0') {
            if (first == SIZE_MAX) first = i;
            last = i;
        }
    }
    if (first == SIZE_MAX) {
        /* Zero. Its adjusted exponent is the written exponent minus the
         * fraction digits; see the comment above the function. */
        size_t frac_digits = mant_end > int_end ? mant_end - int_end - 1 : 0;

        adjusted = exp10 - (long long) frac_digits;
        if (adjusted > NUMBER_MAX_EXP - 1)
            return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_OVERFLOW);
        if (adjusted < NUMBER_MIN_EXP - 1)
            return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_UNDERFLOW);
        *out = (struct number){0};
        return 0;
    }
    /* Weight of the first significant digit: 10^(exponent - 1). */
    if (first < int_end) {
        adjusted = exp10 + (long long) (int_end - first);
    } else {
        adjusted = exp10 - (long long) (first - int_end - 1);
    }
    if (adjusted > NUMBER_MAX_EXP) return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_OVERFLOW);
    if (adjusted < NUMBER_MIN_EXP) return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_UNDERFLOW);
    for (size_t i = first; i <= last; i++) {
        if (text[i] == '.') continue;
        if (n.digit_count == DDB_NUMBER_MAX_DIGITS)
            return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_TOO_MANY_DIGITS);
        n.digits[n.digit_count++] = (uint8_t) (text[i] - '0');
    }
    n.exponent = (int16_t) adjusted;
    *out = n;
    return 0;
}

/*
 * Writes the canonical text of n: plain notation (never an exponent), no
 * leading zeros but the one before a point, no trailing fractional zeros,
 * "0" for zero. These are DynamoDB's output rules; scylladb
 * test_number.py::test_number_output_normalization lists AWS's answers
 * ("1e3" -> "1000", "1.0" -> "1", "-0" -> "0", ".5" -> "0.5", "1e-3" -> "0.001").
 * Behaves like snprintf: writes at most cap bytes including the NUL and
 * returns the full length; a buffer of NUMBER_TEXT_MAX always suffices.
 */
size_t number_format(const struct number *n, char *buf, size_t cap)
{
    char text[NUMBER_TEXT_MAX];
    size_t len = 0;
    int e = n->exponent, count = n->digit_count;

    if (count == 0) {
        text[len++] = '0';
    } else {
        if (n->negative) text[len++] = '-';
        if (e <= 0) {
            text[len++] = '0';
            text[len++] = '.';
            for (int i = 0; i < -e; i++)
                text[len++] = '0';
        }
        for (int i = 0; i < count; i++) {
            if (i == e && e > 0) text[len++] = '.';
            text[len++] = (char) ('0' + n->digits[i]);
        }
        for (int i = count; i < e; i++)
            text[len++] = '0';
    }
    assert(len < sizeof text);
    text[len] = '\0';
    if (cap > 0) {
        size_t copy = len < cap ? len : cap - 1;

        memcpy(buf, text, copy);
        buf[copy] = '\0';
    }
    return len;
}

/* Compares magnitudes: <0, 0, >0. */
static int compare_magnitude(const struct number *a, const struct number *b)
{
    int count;

    if (a->digit_count == 0 || b->digit_count == 0)
        return (a->digit_count != 0) - (b->digit_count != 0);
    if (a->exponent != b->exponent) return a->exponent < b->exponent ? -1 : 1;
    count = a->digit_count < b->digit_count ? a->digit_count : b->digit_count;
    for (int i = 0; i < count; i++) {
        if (a->digits[i] != b->digits[i]) return a->digits[i] < b->digits[i] ? -1 : 1;
    }
    /* Equal prefix: the longer one has more non-zero digits, so is larger. */
    return (a->digit_count > b->digit_count) - (a->digit_count < b->digit_count);
}

/* Numeric order, exact: -1, 0 or 1 as a < b, a == b, a > b. Cannot fail. */
int number_compare(const struct number *a, const struct number *b)
{
    int sign_a = a->digit_count == 0 ? 0 : a->negative ? -1 : 1;
    int sign_b = b->digit_count == 0 ? 0 : b->negative ? -1 : 1;
    int mag;

    if (sign_a != sign_b) return sign_a < sign_b ? -1 : 1;
    mag = compare_magnitude(a, b);
    return sign_a < 0 ? -mag : mag;
}

/*
 * Compares two number texts numerically. The texts must already have passed
 * number_parse (canonical N values of struct value always have); that is
 * asserted, and in NDEBUG builds an invalid text compares as zero.
 */
int number_compare_text(const char *a, size_t a_len, const char *b, size_t b_len)
{
    struct ddb_error err = {0};
    struct number na = {0}, nb = {0};

    if (number_parse(a, a_len, &na, &err) != 0 || number_parse(b, b_len, &nb, &err) != 0) {
        assert(!"number_compare_text needs validated number texts");
        ddb_error_clear(&err);
    }
    return number_compare(&na, &nb);
}

/* Places n's digits into work[], where work[k] has weight 10^(top - 1 - k). */
static void spread_digits(const struct number *n, int top, uint8_t *work)
{
    for (int i = 0; i < n->digit_count; i++)
        work[top - n->exponent + i] = n->digits[i];
}

/*
 * Exact a + (b_negative ? -|b| : |b|). DynamoDB does not round: scylladb
 * test_number.py::test_update_expression_plus_imprecise records that AWS
 * rejects 1e50 + 1 and 1e50 - 1 (39+ significant digits) with the *overflow*
 * text, and ::test_update_expression_plus_overflow that 9e125 + 9e125 fails
 * with it too (also ExtendDB issue #94, observed on AWS). For a result too
 * small to store we use the same overflow text: the floci emulator's
 * DynamoDbNumberUtils.checkArithmeticResult records that AWS answers every
 * unstorable arithmetic result with it (not verified on AWS by us).
 */
static int add_signed(const struct number *a, const struct number *b, bool b_negative,
                      struct number *out, struct ddb_error *err)
{
    struct number bb = *b, r = {0};
    uint8_t work[WORK_DIGITS] = {0}, other[WORK_DIGITS] = {0};
    const struct number *big, *small;
    int top, bottom, width, first, last, carry = 0;

    bb.negative = b_negative;
    if (a->digit_count == 0 || b->digit_count == 0) {
        r = a->digit_count == 0 ? bb : *a;
        if (r.digit_count == 0) r.negative = false;
        *out = r;
        return 0;
    }
    /* Work on magnitudes: the larger minus or plus the smaller. */
    big = compare_magnitude(a, &bb) >= 0 ? a : &bb;
    small = big == a ? &bb : a;
    top = (a->exponent > bb.exponent ? a->exponent : bb.exponent) + 1; /* room for a carry */
    bottom = a->exponent - a->digit_count < bb.exponent - bb.digit_count
                 ? a->exponent - a->digit_count
                 : bb.exponent - bb.digit_count;
    width = top - bottom;
    assert(width <= WORK_DIGITS);
    spread_digits(big, top, work);
    spread_digits(small, top, other);
    for (int k = width - 1; k >= 0; k--) {
        int d =
            a->negative == bb.negative ? work[k] + other[k] + carry : work[k] - other[k] - carry;

        carry = a->negative == bb.negative ? d / 10 : d < 0;
        work[k] = (uint8_t) (a->negative == bb.negative ? d % 10 : d + 10 * carry);
    }
    assert(carry == 0);
    for (first = 0; first < width && work[first] == 0; first++)
        ;
    if (first == width) {
        *out = r; /* exact cancellation: zero */
        return 0;
    }
    for (last = width - 1; work[last] == 0; last--)
        ;
    if (last - first + 1 > DDB_NUMBER_MAX_DIGITS || top - first > NUMBER_MAX_EXP ||
        top - first < NUMBER_MIN_EXP) {
        return ddb_error_set(err, DDB_VALIDATION, "%s", MSG_OVERFLOW);
    }
    r.negative = big->negative;
    r.exponent = (int16_t) (top - first);
    r.digit_count = (uint8_t) (last - first + 1);
    memcpy(r.digits, work + first, r.digit_count);
    *out = r;
    return 0;
}

/*
 * Exact a + b into *out (which may alias a or b). Returns 0, or -1 with a
 * ValidationException (AWS's "Number overflow..." text) when the exact sum
 * needs more than 38 significant digits or leaves the range; *out is then
 * untouched.
 */
int number_add(const struct number *a, const struct number *b, struct number *out,
               struct ddb_error *err)
{
    return add_signed(a, b, b->negative, out, err);
}

/* Exact a - b; same contract and errors as number_add. */
int number_subtract(const struct number *a, const struct number *b, struct number *out,
                    struct ddb_error *err)
{
    return add_signed(a, b, !b->negative, out, err);
}
