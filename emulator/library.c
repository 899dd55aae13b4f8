/*
 * library.c - libddbemu's entry points (include/ddbemu.h).
 *
 * A thin shell over lifecycle.c, the steps main.c runs too: the options are
 * the command line's (config.c parses them, its messages kept as the error
 * returned), and an in-process call is api_call (api/http/dispatch.h): the
 * same front, shape checks, handlers and error answers as an HTTP request,
 * without the socket, the signature check and the HTTP-only headers
 * (request id, CRC32, compression). Only the DDBEMU_API functions are
 * exported from the shared library (-fvisibility=hidden everywhere else).
 */
#include "api/control/init.h"
#include "emulator/config.h"
#include "emulator/include/ddbemu.h"
#include "emulator/lifecycle.h"
#include "storage/base/alloc.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name config_parse sees as argv[0]: not "java" (config.h). */
#define LIBRARY_ARGV0 "libddbemu"

struct ddbemu {
    struct emulator *emu;
    char **argv;        /* the options, copied: cfg.init_files point into them */
    char endpoint[300]; /* "http://HOST:PORT" once listening */
};

const char *ddbemu_version(void)
{
    return DDBEMU_LIB_VERSION; /* the build's (emulator/CMakeLists.txt) */
}

static void set_error(char **error, const char *text)
{
    if (error) *error = strdup(text);
}

static void free_argv(char **argv)
{
    if (!argv) return;
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* The command line's flags that do not start an emulator. */
static bool command_line_only(const char *arg)
{
    static const char *const names[] = {"help", "version", "health-check"};

    while (*arg == '-')
        arg++;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(arg, names[i]) == 0) return true;
    return false;
}

/* Parses args into cfg; on error sets *error to config.c's messages. */
static int parse_options(char **argv, int argc, struct config *cfg, char **error)
{
    char *text = NULL;
    size_t len = 0;
    FILE *messages = open_memstream(&text, &len);
    enum config_result result;

    if (!messages) {
        set_error(error, "out of memory");
        return -1;
    }
    result = config_parse_to(cfg, argc, argv, messages);
    fclose(messages);
    if (result == CONFIG_RUN) {
        free(text);
        return 0;
    }
    /* "ddbemu: unknown option '-x'\nTry 'ddbemu --help'.\n": its first line. */
    if (text && strchr(text, '\n')) *strchr(text, '\n') = '\0';
    if (error && text && *text) {
        *error = text;
        return -1;
    }
    free(text);
    set_error(error, "the options are not valid");
    return -1;
}

ddbemu *ddbemu_open(const char *const *args, char **error)
{
    struct ddbemu *h;
    struct config cfg;
    size_t n = 0;
    char *why = NULL;
    int status;

    if (error) *error = NULL;
    while (args && args[n]) {
        if (command_line_only(args[n])) {
            if (error) {
                size_t len = strlen(args[n]) + 64;
                *error = xmalloc(len);
                snprintf(*error, len, "%s: only on the command line", args[n]);
            }
            return NULL;
        }
        n++;
    }
    h = xcalloc(1, sizeof *h);
    h->argv = xcalloc(n + 2, sizeof *h->argv);
    h->argv[0] = strdup(LIBRARY_ARGV0);
    for (size_t i = 0; i < n; i++)
        h->argv[i + 1] = strdup(args[i]);
    if (parse_options(h->argv, (int) n + 1, &cfg, error) != 0) {
        free_argv(h->argv);
        free(h);
        return NULL;
    }
    h->emu = emulator_open(&cfg, &why, &status);
    if (!h->emu) {
        if (error)
            *error = why;
        else
            free(why);
        free_argv(h->argv);
        free(h);
        return NULL;
    }
    return h;
}

int ddbemu_listen(ddbemu *h, char **error)
{
    char *why = NULL;
    const char *host;
    bool ipv6;

    if (error) *error = NULL;
    if (!h) {
        set_error(error, "no emulator");
        return -1;
    }
    if (emulator_listen(h->emu, &why) != 0) {
        if (error)
            *error = why;
        else
            free(why);
        return -1;
    }
    host = h->emu->cfg.host;
    if (strcmp(host, "0.0.0.0") == 0) host = "127.0.0.1";
    if (strcmp(host, "::") == 0) host = "::1";
    ipv6 = strchr(host, ':') != NULL;
    snprintf(h->endpoint, sizeof h->endpoint, "http://%s%s%s:%u", ipv6 ? "[" : "", host,
             ipv6 ? "]" : "", (unsigned) emulator_port(h->emu));
    return emulator_port(h->emu);
}

int ddbemu_port(const ddbemu *h)
{
    return h ? emulator_port(h->emu) : 0;
}

const char *ddbemu_endpoint(const ddbemu *h)
{
    return h && h->endpoint[0] ? h->endpoint : NULL;
}

int ddbemu_call_as(ddbemu *h, const char *access_key, const char *region, const char *target,
                   const char *body, char **answer)
{
    int status;

    if (answer) *answer = NULL;
    if (!h || !access_key || !region || !target || !body || !answer) return -1;
    status = api_call(&h->emu->ctx, access_key, region, target, body, answer);
    return *answer ? status : -1;
}

int ddbemu_call(ddbemu *h, const char *target, const char *body, char **answer)
{
    return ddbemu_call_as(h, DESIGN_DEFAULT_ACCESS_KEY, DESIGN_DEFAULT_REGION, target, body,
                          answer);
}

void ddbemu_free(void *p)
{
    free(p);
}

void ddbemu_close(ddbemu *h)
{
    if (!h) return;
    emulator_close(h->emu);
    free_argv(h->argv);
    free(h);
}
