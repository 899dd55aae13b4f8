/*
 * auth.c - the SigV4 checks of every DynamoDB request (see auth.h).
 *
 * The checks run in the order DynamoDB runs them, with its texts, as
 * recorded against the live service in dynalite's request pipeline
 * (index.js, whose comments list each answer in turn) and its connection
 * tests; the clock-skew texts as AWS prints them in the answers quoted by SDK
 * issue threads ("Signature expired: 20170519T122830Z is now earlier than
 * 20170519T124310Z (20170519T125810Z - 15 min.)" from a DynamoDB Query):
 *
 *   1. Authorization header and X-Amz-Algorithm query argument both present
 *      -> InvalidSignatureException; neither, or a header not starting
 *      "AWS4-" -> MissingAuthenticationTokenException; missing parameters
 *      -> IncompleteSignatureException listing each.
 *   Without a credentials store, the credential scope must then have 5
 *   elements, a non-empty access key and region, and that is all.
 *   With one:
 *   2. the date (X-Amz-Date, else Date) in ISO 8601 basic format, else
 *      IncompleteSignatureException; more than 15 minutes before now
 *      ("Signature expired") or after it ("Signature not yet current") ->
 *      InvalidSignatureException. A presigned request with X-Amz-Expires is
 *      good from 15 minutes before its date to that many seconds after it;
 *   3. host among the signed headers, else InvalidSignatureException;
 *   4. the algorithm AWS4-HMAC-SHA256, else IncompleteSignatureException;
 *   5. the credential scope: 5 elements (IncompleteSignatureException),
 *      then region, service "dynamodb", terminator "aws4_request" and the
 *      date matching the request's, every failing one named in one
 *      InvalidSignatureException;
 *   6. the access key known (and, for temporary credentials, a security
 *      token sent), else UnrecognizedClientException;
 *   7. the signature, compared in constant time, else
 *      InvalidSignatureException with the canonical request and the string
 *      to sign the server computed, as AWS prints them;
 *   8. the security token, when one is sent or the key needs one, else
 *      UnrecognizedClientException ("...is invalid", without the period
 *      the keyid check's text has: as recorded).
 *   With or without one, then, for DynamoDB's API (auth_check_path): a
 *   path other than "/" -> the InvalidSignatureException of a signature
 *   that does not match (check_path says why).
 * The payload hash is always the hash of the bytes received, so a body
 * changed on the way fails the signature (a x-amz-content-sha256 header, when
 * signed, is compared as the client sent it, as any signed header is).
 */
#include "api/http/auth.h"

#include "api/sigv4/sigv4.h"
#include "storage/base/alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SERVICE "dynamodb"

/* What a request says about its signature, wherever it says it. */
struct signed_request {
    bool by_query;
    char algorithm[64];
    char credential[512];
    char signature[256];
    char signed_headers[1024];
    const char *date;    /* X-Amz-Date (header or query), else Date */
    const char *token;   /* X-Amz-Security-Token, or NULL */
    const char *expires; /* X-Amz-Expires of a presigned request, or NULL */
};

/* The 5 parts of a credential scope; pointers into the credential text. */
struct scope {
    const char *part[5];
    int len[5];
};

/* Copies s into out (truncating to out_size - 1). */
static void copy_text(char *out, size_t out_size, const char *s, size_t len)
{
    if (len >= out_size) len = out_size - 1;
    memcpy(out, s, len);
    out[len] = '\0';
}

#define AUTH_PARAMS 3
static const char *const auth_param_names[AUTH_PARAMS] = {"Credential", "Signature",
                                                          "SignedHeaders"};

/* Finds each "name=value" of auth_param_names among the comma/space
 * separated parameters after the algorithm in an Authorization header, in
 * one pass: value[i] and len[i] give the value (up to the next separator) of
 * the first parameter of that name, value[i] NULL when there is none or it is
 * empty. */
static void auth_params(const char *auth, const char *value[AUTH_PARAMS], size_t len[AUTH_PARAMS])
{
    const char *p = auth + strcspn(auth, " ,"); /* skip the algorithm */
    bool seen[AUTH_PARAMS] = {false};

    for (int i = 0; i < AUTH_PARAMS; i++)
        value[i] = NULL;
    while (*p) {
        size_t n;
        p += strspn(p, " ,");
        n = strcspn(p, " ,");
        for (int i = 0; i < AUTH_PARAMS; i++) {
            size_t name_len = strlen(auth_param_names[i]);
            if (!seen[i] && n > name_len && memcmp(p, auth_param_names[i], name_len) == 0 &&
                p[name_len] == '=') {
                const char *v = p + name_len + 1;
                seen[i] = true;
                len[i] = strcspn(v, " ,=");
                if (len[i]) value[i] = v;
                break;
            }
        }
        p += n;
    }
}

static void append(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* Step 1: which scheme, and every piece it needs. */
static int read_signature(const struct http_request *req, struct signed_request *s,
                          struct ddb_error *err)
{
    static const char *const query_params[] = {"X-Amz-Algorithm", "X-Amz-Credential",
                                               "X-Amz-Signature", "X-Amz-SignedHeaders",
                                               "X-Amz-Date"};
    const char *auth = http_request_header(req, "Authorization");
    const char *value = NULL;
    char missing[1024];

    missing[0] = '\0';
    memset(s, 0, sizeof *s);
    s->by_query = http_request_query(req, "X-Amz-Algorithm", NULL);
    if (auth && s->by_query)
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Found both 'X-Amz-Algorithm' as a query-string param and "
                             "'Authorization' as HTTP header.");
    if (auth) {
        const char *a = auth + strspn(auth, " \t");
        if (strncmp(a, "AWS4-", 5) != 0)
            return ddb_error_set(err, DDB_MISSING_AUTHENTICATION_TOKEN,
                                 "Request is missing Authentication Token");
        const char *param[AUTH_PARAMS];
        size_t param_len[AUTH_PARAMS];
        auth_params(a, param, param_len);
        for (int i = 0; i < AUTH_PARAMS; i++)
            if (!param[i])
                append(missing, sizeof missing, "Authorization header requires '%s' parameter. ",
                       auth_param_names[i]);
        s->date = http_request_header(req, "X-Amz-Date");
        if (!s->date) s->date = http_request_header(req, "Date");
        if (!s->date)
            append(missing, sizeof missing, "%s",
                   "Authorization header requires existence of either a 'X-Amz-Date' or a "
                   "'Date' header. ");
        if (missing[0])
            return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE, "%sAuthorization=%s", missing,
                                 auth);
        copy_text(s->algorithm, sizeof s->algorithm, a, strcspn(a, " ,"));
        copy_text(s->credential, sizeof s->credential, param[0], param_len[0]);
        copy_text(s->signature, sizeof s->signature, param[1], param_len[1]);
        copy_text(s->signed_headers, sizeof s->signed_headers, param[2], param_len[2]);
        s->token = http_request_header(req, "X-Amz-Security-Token");
        return 0;
    }
    if (!s->by_query)
        return ddb_error_set(err, DDB_MISSING_AUTHENTICATION_TOKEN,
                             "Request is missing Authentication Token");
    for (size_t i = 0; i < sizeof query_params / sizeof *query_params; i++) {
        value = NULL;
        if (!http_request_query(req, query_params[i], &value) || !value || !value[0])
            append(missing, sizeof missing, "AWS query-string parameters must include '%s'. ",
                   query_params[i]);
    }
    if (missing[0])
        return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE,
                             "%sRe-examine the query-string parameters.", missing);
    http_request_query(req, "X-Amz-Algorithm", &value);
    copy_text(s->algorithm, sizeof s->algorithm, value, strlen(value));
    http_request_query(req, "X-Amz-Credential", &value);
    copy_text(s->credential, sizeof s->credential, value, strlen(value));
    http_request_query(req, "X-Amz-Signature", &value);
    copy_text(s->signature, sizeof s->signature, value, strlen(value));
    http_request_query(req, "X-Amz-SignedHeaders", &value);
    copy_text(s->signed_headers, sizeof s->signed_headers, value, strlen(value));
    http_request_query(req, "X-Amz-Date", &s->date);
    if (http_request_query(req, "X-Amz-Security-Token", &value)) s->token = value ? value : "";
    if (http_request_query(req, "X-Amz-Expires", &value)) s->expires = value ? value : "";
    return 0;
}

/* Splits a credential into its 5 slash-delimited elements. */
static int split_scope(const char *cred, struct scope *sc, struct ddb_error *err)
{
    size_t len = strlen(cred);
    const char *p;
    int n = 0;

    /* Trailing slashes are ignored, as AWS does. */
    while (len && cred[len - 1] == '/')
        len--;
    p = cred;
    while (n < 5) {
        const char *slash = memchr(p, '/', len - (size_t) (p - cred));
        sc->part[n] = p;
        sc->len[n] = (int) (slash ? (size_t) (slash - p) : len - (size_t) (p - cred));
        n++;
        if (!slash) break;
        p = slash + 1;
    }
    if (n != 5 || memchr(sc->part[4], '/', (size_t) sc->len[4]))
        return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE,
                             "Credential must have exactly 5 slash-delimited elements, e.g. "
                             "keyid/date/region/service/term, got '%.*s'",
                             (int) len, cred);
    return 0;
}

static bool part_is(const struct scope *sc, int i, const char *want)
{
    return (size_t) sc->len[i] == strlen(want) &&
           memcmp(sc->part[i], want, (size_t) sc->len[i]) == 0;
}

/* The identity a scope names; -1 (UnrecognizedClient) when the key does not fit. */
static int identity(const struct scope *sc, struct auth_identity *who, struct ddb_error *err)
{
    if (sc->len[0] == 0 || (size_t) sc->len[0] >= sizeof who->access_key)
        return ddb_error_set(err, DDB_UNRECOGNIZED_CLIENT,
                             "The security token included in the request is invalid.");
    copy_text(who->access_key, sizeof who->access_key, sc->part[0], (size_t) sc->len[0]);
    copy_text(who->region, sizeof who->region, sc->part[2], (size_t) sc->len[2]);
    return 0;
}

/* Step 2: the date's format and the clock-skew window. */
static int check_date(const struct signed_request *s, time_t now, struct ddb_error *err)
{
    time_t date;
    long long after = AUTH_MAX_SKEW_S;
    char now_text[17], limit[17];

    if (sigv4_parse_date(s->date, &date) != 0)
        return ddb_error_set(err, DDB_INCOMPLETE_SIGNATURE,
                             "Date must be in ISO-8601 'basic format'. Got '%s'. See "
                             "http://en.wikipedia.org/wiki/ISO_8601",
                             s->date);
    sigv4_format_date(now, now_text);
    if (s->expires) {
        char *end;
        long long v = strtoll(s->expires, &end, 10);
        if (end != s->expires && !*end && v >= 0 && v <= 7 * 24 * 3600) after = v;
    }
    if ((long long) date < (long long) now - after) {
        sigv4_format_date((time_t) ((long long) now - after), limit);
        if (after == AUTH_MAX_SKEW_S)
            return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                                 "Signature expired: %s is now earlier than %s (%s - 15 min.)",
                                 s->date, limit, now_text);
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Signature expired: %s is now earlier than %s (%s - %lld sec.)",
                             s->date, limit, now_text, after);
    }
    if ((long long) date > (long long) now + AUTH_MAX_SKEW_S) {
        sigv4_format_date(now + AUTH_MAX_SKEW_S, limit);
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Signature not yet current: %s is still later than %s (%s + 15 min.)",
                             s->date, limit, now_text);
    }
    return 0;
}

static bool host_is_signed(const char *signed_headers)
{
    const char *p = signed_headers;

    while (*p) {
        size_t len = strcspn(p, ";");
        if (len == 4 && strncasecmp(p, "host", 4) == 0) return true;
        p += len;
        if (*p) p++;
    }
    return false;
}

/* Step 5, second half: every element of the scope that is wrong, in one message. */
static int check_scope(const struct scope *sc, const char *date, struct ddb_error *err)
{
    struct text_buf msg = {0};
    int rc = 0;

    if (sc->len[2] == 0 || (size_t) sc->len[2] >= sizeof((struct auth_identity *) 0)->region)
        text_buf_printf(&msg, "Credential should be scoped to a valid region, not '%.*s'. ",
                        sc->len[2], sc->part[2]);
    if (!part_is(sc, 3, SERVICE))
        text_buf_puts(&msg, "Credential should be scoped to correct service: '" SERVICE "'. ");
    if (!part_is(sc, 4, SIGV4_TERMINATOR))
        text_buf_printf(&msg,
                        "Credential should be scoped with a valid terminator: '" SIGV4_TERMINATOR
                        "', not '%.*s'. ",
                        sc->len[4], sc->part[4]);
    if (sc->len[1] != 8 || memcmp(sc->part[1], date, 8) != 0)
        text_buf_printf(&msg,
                        "Date in Credential scope does not match YYYYMMDD from ISO-8601 version "
                        "of date from HTTP: '%.*s' != '%.8s', from '%s'. ",
                        sc->len[1], sc->part[1], date, date);
    if (msg.len) {
        msg.data[--msg.len] = '\0'; /* the sentences are joined by one space */
        rc = ddb_error_set(err, DDB_INVALID_SIGNATURE, "%s", msg.data);
    }
    text_buf_clear(&msg);
    return rc;
}

/* What the server signs: the canonical request and the string to sign it
 * computes for req (sigv4.c), and the scope's parts they are signed with. */
struct signing_texts {
    struct text_buf canonical;
    struct text_buf to_sign;
    char date[9];
    char region[64];
    char service[64];
};

static void signing_texts_make(const struct http_request *req, const struct signed_request *s,
                               const struct scope *sc, struct signing_texts *t)
{
    struct sigv4_field *headers = xcalloc(req->header_count + 1, sizeof *headers);
    struct sigv4_field *query = xcalloc(req->query_count + 1, sizeof *query);
    char payload[SIGV4_HEX_SIZE], scope[600];

    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < req->header_count; i++)
        headers[i] = (struct sigv4_field){req->headers[i].name, req->headers[i].value};
    for (size_t i = 0; i < req->query_count; i++)
        query[i] = (struct sigv4_field){req->query[i].name, req->query[i].value};
    sigv4_sha256_hex(req->body ? req->body : "", req->body_len, payload);
    struct sigv4_message m = {
        .method = req->method,
        .path = req->path,
        .query = query,
        .query_count = req->query_count,
        .skip_query = s->by_query ? "X-Amz-Signature" : NULL,
        .headers = headers,
        .header_count = req->header_count,
        .signed_headers = s->signed_headers,
        .payload_hash = payload,
    };
    sigv4_canonical_request(&m, &t->canonical);
    copy_text(t->date, sizeof t->date, sc->part[1], (size_t) sc->len[1]);
    copy_text(t->region, sizeof t->region, sc->part[2], (size_t) sc->len[2]);
    copy_text(t->service, sizeof t->service, sc->part[3], (size_t) sc->len[3]);
    snprintf(scope, sizeof scope, "%s/%s/%s/%s", t->date, t->region, t->service, SIGV4_TERMINATOR);
    sigv4_string_to_sign(s->date, scope, t->canonical.data, &t->to_sign);
    free(headers);
    free(query);
}

static void signing_texts_clear(struct signing_texts *t)
{
    text_buf_clear(&t->canonical);
    text_buf_clear(&t->to_sign);
}

/* DynamoDB's answer to a signature that does not match, with what it computed. */
static int signature_mismatch(const struct signing_texts *t, struct ddb_error *err)
{
    return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                         "The request signature we calculated does not match the signature "
                         "you provided. Check your AWS Secret Access Key and signing method. "
                         "Consult the service documentation for details.\n\nThe Canonical "
                         "String for this request should have been\n'%s'\n\nThe "
                         "String-to-Sign should have been\n'%s'\n",
                         t->canonical.data, t->to_sign.data);
}

/* Step 7: the signature the server computes, compared with the one sent. */
static int check_signature(const struct http_request *req, const struct signed_request *s,
                           const struct scope *sc, const struct credential_entry *key,
                           struct ddb_error *err)
{
    struct signing_texts t;
    char expected[SIGV4_HEX_SIZE];
    int rc = 0;

    signing_texts_make(req, s, sc, &t);
    sigv4_signature(key->secret_key, t.date, t.region, t.service, t.to_sign.data, expected);
    if (!sigv4_equal(expected, s->signature)) rc = signature_mismatch(&t, err);
    signing_texts_clear(&t);
    return rc;
}

/*
 * DynamoDB's API is served at "/" only. AWS computes the canonical request
 * over the path as sent, so a request signed for its endpoint's "/" and sent
 * to another path fails the signature: InvalidSignatureException (scylla
 * test/alternator/test_manual_requests.py::test_too_large_request_line posts
 * a valid PutItem to <endpoint>/garbage, "this is what happens on AWS").
 * Without a credentials store no signature is verified, and with one a
 * request may be signed for the path it was sent to; either way a request at
 * another path is refused so, with the texts the server computes, and is
 * never served as if it were at "/" (docs/differences.md).
 */
static int check_path(const struct http_request *req, const struct signed_request *s,
                      struct ddb_error *err)
{
    struct signing_texts t;
    struct scope sc;
    int rc;

    if (strcmp(req->path, "/") == 0) return 0;
    if (split_scope(s->credential, &sc, err) != 0) return -1;
    signing_texts_make(req, s, &sc, &t);
    rc = signature_mismatch(&t, err);
    signing_texts_clear(&t);
    return rc;
}

/* Steps 2-8, with a credentials store. */
static int verify(const struct http_request *req, const struct signed_request *s,
                  const struct credentials *store, time_t now, struct auth_identity *who,
                  struct ddb_error *err)
{
    const struct credential_entry *key;
    struct scope sc;

    if (check_date(s, now, err) != 0) return -1;
    if (!host_is_signed(s->signed_headers))
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "'Host' must be a 'SignedHeader' in the AWS Authorization.");
    if (strcmp(s->algorithm, SIGV4_ALGORITHM) != 0)
        return ddb_error_set(
            err, DDB_INCOMPLETE_SIGNATURE,
            "Unsupported AWS 'algorithm': '%s' (only " SIGV4_ALGORITHM " for now). ", s->algorithm);
    if (split_scope(s->credential, &sc, err) != 0) return -1;
    if (check_scope(&sc, s->date, err) != 0) return -1;
    if (identity(&sc, who, err) != 0) return -1;
    key = credentials_find(store, who->access_key);
    /* Temporary credentials are known only together with their token. */
    if (!key || (key->session_token && !s->token))
        return ddb_error_set(err, DDB_UNRECOGNIZED_CLIENT,
                             "The security token included in the request is invalid.");
    if (check_signature(req, s, &sc, key, err) != 0) return -1;
    if (s->token && (!key->session_token || !sigv4_equal(key->session_token, s->token)))
        return ddb_error_set(err, DDB_UNRECOGNIZED_CLIENT,
                             "The security token included in the request is invalid");
    return 0;
}

int auth_check(const struct http_request *req, const struct credentials *store, time_t now,
               struct auth_identity *who, struct ddb_error *err)
{
    struct signed_request s;
    struct scope sc;

    memset(who, 0, sizeof *who);
    if (read_signature(req, &s, err) != 0) return -1;
    if (store) return verify(req, &s, store, now, who, err);

    /* No store: the shape of the scope only, as DynamoDB Local checks it. */
    if (split_scope(s.credential, &sc, err) != 0) return -1;
    if (identity(&sc, who, err) != 0) return -1;
    if (sc.len[2] == 0 || (size_t) sc.len[2] >= sizeof who->region)
        return ddb_error_set(err, DDB_INVALID_SIGNATURE,
                             "Credential should be scoped to a valid region, not '%.*s'. ",
                             sc.len[2], sc.part[2]);
    return 0;
}

int auth_check_path(const struct http_request *req, struct ddb_error *err)
{
    struct signed_request s;

    if (strcmp(req->path, "/") == 0) return 0;
    if (read_signature(req, &s, err) != 0) return -1;
    return check_path(req, &s, err);
}
