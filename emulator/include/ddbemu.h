/*
 * ddbemu.h - libddbemu: a local DynamoDB inside your program.
 *
 * The same engine, rules and errors as the ddbemu server, as a library:
 * open an emulator with the command line's options, call the DynamoDB API
 * in-process (an X-Amz-Target and a JSON body in, the JSON answer and its
 * HTTP status out; no socket, no signature), and, when other programs or
 * SDKs must reach it, serve it over HTTP on a port of your choosing (0: a
 * free one).
 *
 *     ddbemu *emu = ddbemu_open((const char *[]){"--shared-db", "--port", "0", NULL}, &err);
 *     char *answer;
 *     int status = ddbemu_call(emu, "DynamoDB_20120810.ListTables", "{}", &answer);
 *     ddbemu_free(answer);
 *     ddbemu_close(emu);
 *
 * Build with `pkg-config --cflags --libs ddbemu` (shared) or
 * `pkg-config --static --cflags --libs ddbemu` (static).
 *
 * Threads: every function may be called from any thread, and ddbemu_call
 * from many at once on one emulator; ddbemu_close must not run while another
 * call on the same emulator does. The library starts threads of its own (the
 * TTL sweeper; the HTTP server's workers after ddbemu_listen) and changes no
 * signal disposition of its host.
 *
 * Ownership: strings the library returns through a char ** are the
 * caller's, freed with ddbemu_free; const char * results belong to the
 * emulator and live until ddbemu_close.
 */
#ifndef DDBEMU_H
#define DDBEMU_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define DDBEMU_API __attribute__((visibility("default")))
#else
#define DDBEMU_API
#endif

/* The library's version, e.g. "0.1.0" (the ddbemu release it comes from). */
DDBEMU_API const char *ddbemu_version(void);

typedef struct ddbemu ddbemu;

/* Opens an emulator: args is a NULL-terminated list of the ddbemu command
 * line's options (`ddbemu --help`), without the program name, e.g.
 * {"--shared-db", "--db-path", "/tmp/data", "--init", "model.json", NULL};
 * NULL or {NULL} gives the defaults (in memory, one set of tables per access
 * key and region, port 8000 once listening). The engine is loaded (with
 * --db-path), --init files are replayed and the TTL sweeper runs; no port is
 * opened until ddbemu_listen. Returns NULL when an option is wrong or the
 * engine cannot start, with *error (when error is not NULL) set to why
 * (free with ddbemu_free). --help, --version and --health-check are the
 * command line's only: they are refused here. */
DDBEMU_API ddbemu *ddbemu_open(const char *const *args, char **error);

/* Serves the emulator over HTTP on the --host and --port given to
 * ddbemu_open (--port 0: a free port). Returns the port listened on, or -1
 * with *error set (already listening, or the port cannot be bound). */
DDBEMU_API int ddbemu_listen(ddbemu *emu, char **error);

/* The port ddbemu_listen listens on; 0 before it. */
DDBEMU_API int ddbemu_port(const ddbemu *emu);

/* "http://HOST:PORT" for an SDK's endpoint (a wildcard --host, 0.0.0.0 or
 * ::, is written as the loopback address); NULL before ddbemu_listen. */
DDBEMU_API const char *ddbemu_endpoint(const ddbemu *emu);

/* Calls the DynamoDB API in-process: target is the X-Amz-Target (e.g.
 * "DynamoDB_20120810.PutItem", "DynamoDBStreams_20120810.GetRecords"), body
 * the request's JSON text (NUL-terminated). Runs the server's own front
 * (JSON syntax, unknown operation, request shape, then the operation) as the
 * credential of access key "local" in us-east-1 (the tables --init creates;
 * with --shared-db every credential's), without any signature check. Returns
 * the HTTP status DynamoDB answers with (200, or 400/413/500 with the error's
 * {"__type", "message"} body) and sets *answer to the body (NUL-terminated;
 * free with ddbemu_free; "" for an answer without a body). Returns -1 with
 * *answer NULL when emu, target, body or answer is NULL or memory runs out. */
DDBEMU_API int ddbemu_call(ddbemu *emu, const char *target, const char *body, char **answer);

/* ddbemu_call as the credential (access_key, region), which chooses the set
 * of tables as an SDK's credentials do (unless --shared-db). */
DDBEMU_API int ddbemu_call_as(ddbemu *emu, const char *access_key, const char *region,
                              const char *target, const char *body, char **answer);

/* Frees a string the library returned (an answer, an error). NULL is a no-op. */
DDBEMU_API void ddbemu_free(void *p);

/* Stops the HTTP server (when listening) and the sweeper, and closes the
 * engine (with --db-path, everything acknowledged is on disk). NULL is a no-op. */
DDBEMU_API void ddbemu_close(ddbemu *emu);

#ifdef __cplusplus
}
#endif

#endif
