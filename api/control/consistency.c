/*
 * consistency.c - /ddbemu/consistency (consistency.h): reads and changes the
 * engine's --consistency setting, or one namespace's, through
 * storage/engine/db_consistency.h. Every member is checked before anything
 * changes: a bad request changes nothing.
 */
#include "api/control/consistency.h"

#include "api/http/response.h"
#include "storage/engine/db_consistency.h"

#include <stdio.h>
#include <string.h>

static void reply(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);

    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

static void reply_error(struct http_response *resp, const char *message)
{
    reply(resp, 400, json_pack("{s:s}", "error", message));
}

/* Reads an optional lag member into *out; false when it is there but not an
 * integer in [0, DDB_CONSISTENCY_MAX_LAG_MS]. */
static bool read_lag(json_t *body, const char *name, int64_t *out)
{
    json_t *v = json_object_get(body, name);
    if (!v) return true;
    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > DDB_CONSISTENCY_MAX_LAG_MS)
        return false;
    *out = (int64_t) json_integer_value(v);
    return true;
}

void consistency_http_handle(struct db *db, const struct api_config *config,
                             const struct http_request *req, json_t *body,
                             struct http_response *resp)
{
    const char *access_key = json_string_value(json_object_get(body, "access_key"));
    const char *region = json_string_value(json_object_get(body, "region"));
    const char *mode = json_string_value(json_object_get(body, "mode"));
    json_t *seed = json_object_get(body, "seed");
    struct consistency_settings s;
    char namespace_id[256];
    const char *ns = NULL;
    bool post = strcmp(req->method, "POST") == 0;

    if (strcmp(req->method, "GET") != 0 && !post) {
        reply(resp, 404, json_pack("{s:s}", "error", "use GET or POST"));
        return;
    }
    if (config && config->shared_db) {
        snprintf(namespace_id, sizeof namespace_id, "%s", API_SHARED_NAMESPACE);
        ns = namespace_id;
    } else if (access_key && region && access_key[0] && region[0]) {
        snprintf(namespace_id, sizeof namespace_id, "%.190s/%s", access_key, region);
        ns = namespace_id;
    } else if (access_key || region) {
        reply_error(resp, "give both access_key and region (one namespace), or neither (the "
                          "engine)");
        return;
    }
    if (ns)
        db_get_consistency(db, ns, &s);
    else
        db_get_consistency(db, "", &s); /* a namespace never used follows the engine */
    if (post) {
        if (mode && strcmp(mode, "aws") != 0 && strcmp(mode, "off") != 0 &&
            !(ns && strcmp(mode, "default") == 0)) {
            reply_error(resp, "mode is \"aws\" or \"off\" (or \"default\" for a namespace)");
            return;
        }
        if (!read_lag(body, "read_lag_ms", &s.read_lag_ms) ||
            !read_lag(body, "gsi_lag_ms", &s.gsi_lag_ms) ||
            !read_lag(body, "transaction_ms", &s.transaction_ms)) {
            reply_error(resp, "read_lag_ms, gsi_lag_ms and transaction_ms are integers from 0 "
                              "to 600000");
            return;
        }
        if (seed && !json_is_null(seed) && !json_is_integer(seed)) {
            reply_error(resp, "seed is an integer, or null");
            return;
        }
        if (seed) {
            s.seeded = json_is_integer(seed);
            s.seed = s.seeded ? (uint64_t) json_integer_value(seed) : 0;
        }
        if (mode) s.aws = strcmp(mode, "aws") == 0;
        if (ns && mode && strcmp(mode, "default") == 0)
            db_set_namespace_consistency(db, ns, NULL);
        else if (ns)
            db_set_namespace_consistency(db, ns, &s);
        else
            db_set_consistency(db, &s);
        db_get_consistency(db, ns ? ns : "", &s);
    }
    reply(resp, 200,
          json_pack("{s:s,s:s,s:I,s:I,s:I,s:o}", "scope", ns ? "namespace" : "engine", "mode",
                    s.aws ? "aws" : "off", "read_lag_ms", (json_int_t) s.read_lag_ms, "gsi_lag_ms",
                    (json_int_t) s.gsi_lag_ms, "transaction_ms", (json_int_t) s.transaction_ms,
                    "seed", s.seeded ? json_integer((json_int_t) s.seed) : json_null()));
}
