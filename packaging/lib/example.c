/*
 * example.c - libddbemu from C: a table, an item written and read back
 * in-process, an error answer, then the same emulator served over HTTP.
 *
 *   cc example.c $(pkg-config --cflags --libs ddbemu) -o example && ./example
 *
 * Exits 0 when every answer is the one DynamoDB gives; packaging/lib/verify
 * builds it against the installed header and pkg-config file and runs it.
 */
#include <ddbemu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One in-process call; prints it and checks its status and a piece of its answer. */
static int call(ddbemu *emu, const char *op, const char *body, int want_status,
                const char *want_text)
{
    char target[64], *answer = NULL;
    int status, ok;

    snprintf(target, sizeof target, "DynamoDB_20120810.%s", op);
    status = ddbemu_call(emu, target, body, &answer);
    ok = status == want_status && answer && strstr(answer, want_text) != NULL;
    printf("%-12s %d %s%s\n", op, status, answer ? answer : "(no answer)", ok ? "" : "  <- WRONG");
    ddbemu_free(answer);
    return ok ? 0 : 1;
}

int main(void)
{
    const char *args[] = {"--port", "0", NULL};
    char *error = NULL;
    ddbemu *emu;
    int failures = 0, port;

    printf("libddbemu %s\n", ddbemu_version());
    emu = ddbemu_open(args, &error);
    if (!emu) {
        fprintf(stderr, "ddbemu_open: %s\n", error);
        ddbemu_free(error);
        return 1;
    }
    failures += call(emu, "CreateTable",
                     "{\"TableName\":\"Music\",\"BillingMode\":\"PAY_PER_REQUEST\","
                     "\"KeySchema\":[{\"AttributeName\":\"Artist\",\"KeyType\":\"HASH\"}],"
                     "\"AttributeDefinitions\":[{\"AttributeName\":\"Artist\","
                     "\"AttributeType\":\"S\"}]}",
                     200, "\"TableStatus\":\"CREATING\"");
    failures += call(emu, "PutItem",
                     "{\"TableName\":\"Music\",\"Item\":{\"Artist\":{\"S\":\"No One You Know\"},"
                     "\"Plays\":{\"N\":\"42\"}}}",
                     200, "{}");
    failures += call(emu, "GetItem",
                     "{\"TableName\":\"Music\",\"Key\":{\"Artist\":{\"S\":\"No One You Know\"}}}",
                     200, "\"Plays\":{\"N\":\"42\"}");
    failures += call(emu, "GetItem", "{\"TableName\":\"Nope\",\"Key\":{\"Artist\":{\"S\":\"x\"}}}",
                     400, "ResourceNotFoundException");

    port = ddbemu_listen(emu, &error);
    if (port <= 0) {
        fprintf(stderr, "ddbemu_listen: %s\n", error);
        ddbemu_free(error);
        failures++;
    } else {
        printf("serving the same tables at %s (port %d)\n", ddbemu_endpoint(emu), port);
    }
    ddbemu_close(emu);
    printf("%s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
