/*
 * snapshots.c - the snapshot and fork endpoints (see snapshots.h), each one
 * engine call (db_snapshots.h) wrapped in JSON.
 *
 * A snapshot's name travels in the path, so it is kept to letters, digits,
 * '.', '_' and '-', 1 to 255 of them. A fork keeps the source's region: the
 * tables' ARNs name it, so the copy lives under the same region with another
 * access key.
 */
#include "api/control/snapshots.h"

#include "api/http/response.h"
#include "storage/engine/db_snapshots.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool control_namespace(const struct api_config *config, const char *access_key, const char *region,
                       char *out, size_t size)
{
    if (config && config->shared_db) {
        snprintf(out, size, "%s", API_SHARED_NAMESPACE);
        return true;
    }
    if (!access_key || !region || !access_key[0] || !region[0]) return false;
    snprintf(out, size, "%.190s/%s", access_key, region);
    return true;
}

static json_t *error_json(int *status, int code, const char *message)
{
    *status = code;
    return json_pack("{s:s}", "error", message);
}

/* The engine's error as an answer: 404 for a missing snapshot, 409 for a taken name. */
static json_t *engine_error(struct ddb_error *err, int *status)
{
    int code = err->code == DDB_RESOURCE_NOT_FOUND ? 404
               : err->code == DDB_RESOURCE_IN_USE  ? 409
                                                   : 400;
    json_t *j = error_json(status, code, err->message ? err->message : "snapshot request failed");

    ddb_error_clear(err);
    return j;
}

static bool good_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n < 1 || n > 255) return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return false;
    }
    return true;
}

static json_t *info_json(const struct snapshot_info *i)
{
    json_t *j = json_pack("{s:s,s:I,s:I,s:I,s:I}", "name", i->name, "created_ms",
                          (json_int_t) i->created_ms, "tables", (json_int_t) i->table_count,
                          "items", (json_int_t) i->item_count, "stream_records",
                          (json_int_t) i->stream_record_count);

    if (i->namespace_id) json_object_set_new(j, "namespace", json_string(i->namespace_id));
    /* --db-path: whether it would survive a kill -9 now (docs/snapshots.md). */
    if (i->kept_on_disk) json_object_set_new(j, "on_disk", json_boolean(i->on_disk));
    return j;
}

static const char *str_arg(json_t *args, const char *key)
{
    return json_string_value(json_object_get(args, key));
}

json_t *snapshots_save(const struct api_context *ctx, json_t *args, int *status)
{
    const char *name = str_arg(args, "name");
    bool all = json_is_true(json_object_get(args, "all"));
    bool wait = json_is_true(json_object_get(args, "wait"));
    char ns[256];
    struct snapshot_info info;
    struct ddb_error err = {0};
    json_t *j;

    if (!good_name(name))
        return error_json(status, 400,
                          "give the snapshot a name of 1 to 255 letters, digits, '.', '_' or '-'");
    if (!all && !control_namespace(ctx->config, str_arg(args, "access_key"),
                                   str_arg(args, "region"), ns, sizeof ns))
        return error_json(status, 400,
                          "give the access_key and region whose tables to save, or \"all\": true");
    if (db_snapshot_save(ctx->db, name, all ? NULL : ns, &info, &err) != 0)
        return engine_error(&err, status);
    if (wait && info.kept_on_disk) {
        /* Answered once ddbemu.db holds it (and every change queued before). */
        db_snapshots_sync(ctx->db);
        info.on_disk = true;
    }
    j = info_json(&info);
    snapshot_info_clear(&info);
    *status = 200;
    return j;
}

json_t *snapshots_list(const struct api_context *ctx)
{
    struct snapshot_info *infos;
    size_t count;
    json_t *list = json_array();

    db_snapshot_list(ctx->db, &infos, &count);
    for (size_t i = 0; i < count; i++) {
        json_array_append_new(list, info_json(&infos[i]));
        snapshot_info_clear(&infos[i]);
    }
    free(infos);
    return json_pack("{s:o}", "snapshots", list);
}

json_t *snapshots_delete(const struct api_context *ctx, const char *name, int *status)
{
    struct ddb_error err = {0};

    if (db_snapshot_delete(ctx->db, name, &err) != 0) return engine_error(&err, status);
    *status = 200;
    return json_pack("{s:s}", "deleted", name);
}

json_t *snapshots_restore(const struct api_context *ctx, const char *name, json_t *args,
                          int *status)
{
    const char *capacity = str_arg(args, "capacity");
    struct ddb_error err = {0};
    size_t tables;

    if (json_object_get(args, "capacity") &&
        (!capacity || (strcmp(capacity, "keep") != 0 && strcmp(capacity, "reset") != 0)))
        return error_json(status, 400, "capacity is \"keep\" or \"reset\"");
    if (db_snapshot_restore(ctx->db, name, !capacity || strcmp(capacity, "keep") == 0, &tables,
                            &err) != 0)
        return engine_error(&err, status);
    *status = 200;
    return json_pack("{s:I}", "tables", (json_int_t) tables);
}

/* The region of a namespace id "key/region" (after its last '/'). */
static const char *region_of(const char *namespace_id)
{
    const char *slash = strrchr(namespace_id, '/');
    return slash ? slash + 1 : NULL;
}

json_t *snapshots_fork(const struct api_context *ctx, const char *name, json_t *args, int *status)
{
    const char *to_key = str_arg(args, "to_access_key");
    bool replace = json_is_true(json_object_get(args, "replace"));
    char from[256] = "", to[256];
    const char *region = NULL;
    struct ddb_error err = {0};
    size_t tables;

    if (ctx->config && ctx->config->shared_db)
        return error_json(status, 400, "--shared-db has one namespace: there is none to fork into");
    if (name) {
        struct snapshot_info *infos;
        size_t count;
        db_snapshot_list(ctx->db, &infos, &count);
        for (size_t i = 0; i < count; i++) {
            if (strcmp(infos[i].name, name) == 0 && infos[i].namespace_id)
                snprintf(from, sizeof from, "%s", infos[i].namespace_id);
            snapshot_info_clear(&infos[i]);
        }
        free(infos);
        region = from[0] ? region_of(from) : "-"; /* the engine answers a missing snapshot */
    } else {
        if (!control_namespace(ctx->config, str_arg(args, "access_key"), str_arg(args, "region"),
                               from, sizeof from))
            return error_json(status, 400, "give the access_key and region to fork from");
        region = str_arg(args, "region");
    }
    if (!control_namespace(ctx->config, to_key, region, to, sizeof to))
        return error_json(status, 400, "give the to_access_key to fork into");
    if (db_snapshot_fork(ctx->db, name, name ? NULL : from, to, replace, &tables, &err) != 0)
        return engine_error(&err, status);
    *status = 200;
    return json_pack("{s:I,s:s}", "tables", (json_int_t) tables, "namespace", to);
}

static void reply(struct http_response *resp, int status, json_t *body)
{
    char *text = json_dumps(body, JSON_COMPACT);

    response_set_body(resp, status, RESPONSE_CONTENT_TYPE_JSON, text, text ? strlen(text) : 0);
    json_decref(body);
}

void snapshots_handle(const struct api_context *ctx, const struct http_request *req,
                      const char *what, json_t *body, struct http_response *resp)
{
    const char *method = req->method;
    int status = 404;
    json_t *answer = NULL;

    if (strcmp(what, "fork") == 0) {
        if (strcmp(method, "POST") == 0) answer = snapshots_fork(ctx, NULL, body, &status);
    } else if (strcmp(what, "snapshots") == 0) {
        if (strcmp(method, "GET") == 0) {
            answer = snapshots_list(ctx);
            status = 200;
        } else if (strcmp(method, "POST") == 0) {
            answer = snapshots_save(ctx, body, &status);
        }
    } else {
        /* snapshots/<name>[/restore|/fork] */
        char name[256];
        const char *rest = what + strlen("snapshots/"), *slash = strchr(rest, '/');
        size_t n = slash ? (size_t) (slash - rest) : strlen(rest);
        const char *action = slash ? slash + 1 : "";

        if (n < sizeof name) {
            memcpy(name, rest, n);
            name[n] = '\0';
            if (!good_name(name))
                answer = error_json(&status, 400, "not a snapshot name");
            else if (!action[0] && strcmp(method, "DELETE") == 0)
                answer = snapshots_delete(ctx, name, &status);
            else if (strcmp(action, "restore") == 0 && strcmp(method, "POST") == 0)
                answer = snapshots_restore(ctx, name, body, &status);
            else if (strcmp(action, "fork") == 0 && strcmp(method, "POST") == 0)
                answer = snapshots_fork(ctx, name, body, &status);
        }
    }
    if (!answer) answer = error_json(&status, 404, "unknown snapshot endpoint (docs/snapshots.md)");
    reply(resp, status, answer);
}
