/*
 * credentials_file.c - reads --credentials FILE or DDBEMU_CREDENTIALS (see
 * credentials_file.h). Only the reading lives here; the format is parsed by
 * api/http/credentials.c.
 */
#include "emulator/credentials_file.h"

#include "storage/base/alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file as a NUL-terminated string (owned), or NULL with errno. */
static char *read_all(const char *path)
{
    FILE *f = fopen(path, "r");
    char *text = NULL;
    size_t len = 0, cap = 0, n;

    if (!f) return NULL;
    do {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            text = xrealloc(text, cap);
        }
        n = fread(text + len, 1, cap - len - 1, f);
        len += n;
    } while (n > 0);
    if (ferror(f)) {
        int saved = errno;
        fclose(f);
        free(text);
        errno = saved ? saved : EIO;
        return NULL;
    }
    fclose(f);
    text[len] = '\0';
    return text;
}

int credentials_file_load(const char *path, struct credentials **store)
{
    const char *from = path && path[0] ? path : CREDENTIALS_ENV;
    const char *env = getenv(CREDENTIALS_ENV);
    char *text, *why = NULL;

    *store = NULL;
    if (path && path[0]) {
        text = read_all(path);
        if (!text) {
            fprintf(stderr, "ddbemu: --credentials %s: %s\n", path, strerror(errno));
            return -1;
        }
    } else if (env && env[0]) {
        text = xstrdup(env);
    } else {
        return 0;
    }
    *store = credentials_parse(text, &why);
    free(text);
    if (!*store) {
        fprintf(stderr, "ddbemu: %s%s: %s\n", path && path[0] ? "--credentials " : "", from, why);
        free(why);
        return -1;
    }
    return 0;
}
