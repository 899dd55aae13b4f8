/*
 * init_files.c - --init FILE: reads each file and hands it to api/design/,
 * which replays the requests that build it through the api (api_call), as
 * the credential of DESIGN_DEFAULT_ACCESS_KEY / DESIGN_DEFAULT_REGION.
 */
#include "emulator/init_files.h"

#include "api/control/init.h"
#include "api/design/design.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file, NUL-terminated (owned), or NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;

    if (!f) return NULL;
    for (;;) {
        size_t got;
        if (cap - n < 4096) {
            char *bigger = realloc(buf, cap ? cap * 2 : 65536);
            if (!bigger) {
                free(buf);
                fclose(f);
                errno = ENOMEM;
                return NULL;
            }
            buf = bigger;
            cap = cap ? cap * 2 : 65536;
        }
        got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(buf);
        fclose(f);
        errno = EIO;
        return NULL;
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

int init_files_load(const struct api_context *ctx, const char *const *files, size_t count)
{
    struct design_target to = {DESIGN_DEFAULT_ACCESS_KEY, DESIGN_DEFAULT_REGION, api_design_call,
                               (void *) ctx};

    for (size_t i = 0; i < count; i++) {
        struct design_summary sum;
        char *error = NULL, *text;
        size_t len = 0;
        text = read_file(files[i], &len);
        if (!text) {
            fprintf(stderr, "ddbemu: --init %s: %s\n", files[i], strerror(errno));
            return -1;
        }
        if (design_load(files[i], text, len, &to, &sum, &error) != 0) {
            fprintf(stderr, "ddbemu: --init %s\n", error ? error : files[i]);
            free(error);
            free(text);
            return -1;
        }
        fprintf(stderr, "ddbemu: --init %s: %zu table%s, %zu item%s\n", files[i], sum.tables,
                sum.tables == 1 ? "" : "s", sum.items, sum.items == 1 ? "" : "s");
        free(text);
    }
    return 0;
}
