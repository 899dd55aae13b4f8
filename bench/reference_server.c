/*
 * reference_server.c - the benchmark's yardstick: ddbemu's own HTTP layer answering "{}".
 *
 * bench/run reports every figure as a ratio to this server's requests/s,
 * measured in the same run with the same client, so that the machine, the
 * load generator's share of the two cores and the kernel's loopback cost
 * cancel out. It runs api/http/server.c itself - the same libmicrohttpd daemon,
 * thread pool, body accumulation and response conversion as ddbemu - with a
 * handler that ignores the request and answers a fixed two-byte JSON body.
 * The ratio therefore isolates what ddbemu adds on top of HTTP: dispatch,
 * JSON decoding and encoding, validation and the engine. A trivial nginx
 * would be the ROADMAP's yardstick, but it is not part of the project's
 * build; this one builds wherever ddbemu builds.
 *
 *   reference_server [--host 127.0.0.1] [--port 0] [--threads 0] [--body-file F]
 *
 * --threads 0 means one worker per CPU, ddbemu's default. --body-file answers
 * the file's bytes instead of "{}": given a real Query answer, it is a server
 * that costs nothing but HTTP and the answer's size, the bound on what any
 * server can reach on this machine for that answer (bench/README.md, "The
 * bound of a Query's answer"). It prints the address it listens on to stderr
 * and stops on SIGINT or SIGTERM.
 */
#include "api/http/server.h"
#include "storage/base/alloc.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed answer: "{}", or --body-file's bytes. */
struct answer {
    char *body;
    size_t len;
};

/* Ignores the request; answers 200 with the fixed JSON body and DynamoDB's content type. */
static void reference_answer(void *arg, const struct http_request *req, struct http_response *resp)
{
    const struct answer *answer = arg;

    (void) req;
    resp->status = 200;
    http_response_add_header(resp, "Content-Type", "application/x-amz-json-1.0");
    http_response_set_body(resp, xmemdup(answer->body, answer->len), answer->len);
}

/* Reads path whole into *answer; -1 with errno set when it cannot. */
static int read_body_file(const char *path, struct answer *answer)
{
    FILE *f = fopen(path, "rb");
    char chunk[4096];
    size_t n;

    if (!f) return -1;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        answer->body = xrealloc(answer->body, answer->len + n);
        memcpy(answer->body + answer->len, chunk, n);
        answer->len += n;
    }
    if (ferror(f)) {
        fclose(f);
        errno = EIO;
        return -1;
    }
    fclose(f);
    return 0;
}

static int parse_number(const char *s, unsigned long max, unsigned long *out)
{
    char *end;

    errno = 0;
    if (!s || !*s || *s == '-') return -1;
    *out = strtoul(s, &end, 10);
    return errno || *end || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
    struct server_config cfg;
    struct server *server;
    const char *error = NULL;
    sigset_t stop;
    unsigned long n;
    struct answer answer = {NULL, 0};
    const char *body_file = NULL;
    int sig;

    server_config_init(&cfg);
    cfg.host = "127.0.0.1";
    cfg.max_body_bytes = 16 * 1024 * 1024;
    cfg.handler = reference_answer;
    cfg.handler_arg = &answer;
    for (int k = 1; k < argc; k += 2) {
        const char *val = k + 1 < argc ? argv[k + 1] : NULL;
        if (strcmp(argv[k], "--host") == 0 && val) {
            cfg.host = val;
        } else if (strcmp(argv[k], "--port") == 0 && parse_number(val, 65535, &n) == 0) {
            cfg.port = (uint16_t) n;
        } else if (strcmp(argv[k], "--threads") == 0 && parse_number(val, 1024, &n) == 0) {
            cfg.threads = (unsigned) n;
        } else if (strcmp(argv[k], "--body-file") == 0 && val) {
            body_file = val;
        } else {
            fprintf(stderr, "usage: reference_server [--host H] [--port P] [--threads N] "
                            "[--body-file F]\n");
            return 2;
        }
    }
    if (body_file && read_body_file(body_file, &answer) != 0) {
        fprintf(stderr, "reference_server: cannot read %s: %s\n", body_file, strerror(errno));
        return 1;
    }
    if (body_file && answer.len == 0) {
        fprintf(stderr, "reference_server: %s is empty: an answer has a body\n", body_file);
        return 1;
    }
    if (!body_file) {
        answer.body = xmemdup("{}", 2);
        answer.len = 2;
    }

    /* Blocked before the server's threads exist, so only sigwait() sees them. */
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    signal(SIGPIPE, SIG_IGN);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    server = server_start(&cfg, &error);
    if (!server) {
        fprintf(stderr, "reference_server: cannot listen on %s port %u: %s\n", cfg.host,
                (unsigned) cfg.port, error);
        return 1;
    }
    fprintf(stderr, "reference_server listening on http://%s:%u\n", cfg.host,
            (unsigned) server_port(server));
    while (sigwait(&stop, &sig) != 0)
        ;
    server_stop(server);
    free(answer.body);
    return 0;
}
