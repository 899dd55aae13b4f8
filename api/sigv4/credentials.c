/*
 * credentials.c - the --credentials store (see credentials.h).
 *
 * A plain array searched linearly: a test setup names a handful of keys, and
 * the search is a few string compares per request.
 */
#include "api/sigv4/credentials.h"

#include "storage/base/alloc.h"

#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct credentials {
    struct credential_entry *entries;
    size_t count;
};

static char *why_line(size_t line, const char *what)
{
    char buf[160];

    snprintf(buf, sizeof buf, "line %zu: %s", line, what);
    return xstrdup(buf);
}

/* Splits line (modified in place) into at most 4 blank-separated fields. */
static size_t split(char *line, char *fields[4])
{
    size_t n = 0;
    char *p = line;

    while (*p) {
        p += strspn(p, " \t\r");
        if (!*p) break;
        if (n == 4) return 5;
        fields[n++] = p;
        p += strcspn(p, " \t\r");
        if (*p) *p++ = '\0';
    }
    return n;
}

struct credentials *credentials_parse(const char *text, char **why)
{
    struct credentials *store = xcalloc(1, sizeof *store);
    char *copy = xstrdup(text), *line = copy;
    size_t number = 0;

    *why = NULL;
    while (line) {
        char *next = strchr(line, '\n'), *fields[4];
        size_t n;

        if (next) *next++ = '\0';
        number++;
        n = split(line, fields);
        if (n == 0 || fields[0][0] == '#') {
            line = next;
            continue;
        }
        if (n < 2 || n > 3) {
            *why = why_line(number, "expected ACCESS_KEY_ID SECRET_ACCESS_KEY [SESSION_TOKEN]");
            break;
        }
        if (credentials_find(store, fields[0])) {
            *why = why_line(number, "this access key was already given");
            break;
        }
        store->entries = xrealloc(store->entries, (store->count + 1) * sizeof *store->entries);
        store->entries[store->count].access_key = xstrdup(fields[0]);
        store->entries[store->count].secret_key = xstrdup(fields[1]);
        store->entries[store->count].session_token = n == 3 ? xstrdup(fields[2]) : NULL;
        store->count++;
        line = next;
    }
    OPENSSL_cleanse(copy, strlen(text));
    free(copy);
    if (!*why && store->count == 0) *why = xstrdup("no credentials (every line is blank or #)");
    if (*why) {
        credentials_free(store);
        return NULL;
    }
    return store;
}

const struct credential_entry *credentials_find(const struct credentials *store,
                                                const char *access_key)
{
    for (size_t i = 0; i < store->count; i++)
        if (strcmp(store->entries[i].access_key, access_key) == 0) return &store->entries[i];
    return NULL;
}

size_t credentials_count(const struct credentials *store)
{
    return store->count;
}

void credentials_free(struct credentials *store)
{
    if (!store) return;
    for (size_t i = 0; i < store->count; i++) {
        struct credential_entry *e = &store->entries[i];
        OPENSSL_cleanse(e->secret_key, strlen(e->secret_key));
        free(e->access_key);
        free(e->secret_key);
        free(e->session_token);
    }
    free(store->entries);
    free(store);
}
