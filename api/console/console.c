/*
 * console.c - finds an embedded console file by name (see console.h).
 */
#include "api/console/console.h"

#include <string.h>

const struct console_file *console_file_find(const char *name)
{
    if (name[0] == '\0') name = "index.html";
    for (const struct console_file *f = console_files; f->name; f++)
        if (strcmp(f->name, name) == 0) return f;
    return NULL;
}

const char *console_content_type(const char *name)
{
    static const struct {
        const char *ext;
        const char *type;
    } types[] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        /* ES modules are only run when served with a JavaScript type. */
        {".js", "text/javascript; charset=utf-8"},
        {".svg", "image/svg+xml"},
    };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot && i < sizeof types / sizeof *types; i++)
        if (strcmp(dot, types[i].ext) == 0) return types[i].type;
    return "application/octet-stream";
}
