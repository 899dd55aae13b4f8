/*
 * fuzz_design.c - libFuzzer target for the init formats (api/design/).
 *
 * Input: a design document, as --init and POST /ddbemu/init read it: a NoSQL
 * Workbench model, a CloudFormation/SAM template in JSON or YAML (libyaml
 * through yaml_json.c), or a CreateTable request. Its requests are replayed
 * through api_call into a fresh engine per input, as the server does, so the
 * tables and items a document makes are freed with the engine and cannot
 * pile up across inputs. design_load must either succeed or return an error
 * message, and never crash, trip an assertion or sanitizer, or leak. Built
 * only with -DDDB_FUZZ=ON and clang (see api/CMakeLists.txt).
 */
#include "api/design/design.h"
#include "api/design/yaml_json.h"
#include "api/http/dispatch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int call(void *arg, const char *access_key, const char *region, const char *target,
                const char *body, char **answer)
{
    return api_call(arg, access_key, region, target, body, answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const struct api_config config = {0};
    struct api_context ctx = {.config = &config, .operations = api_operations};
    struct design_target to = {.access_key = "local", .region = "us-east-1", .call = call};
    struct design_summary summary;
    char *error = NULL, why[256];
    size_t line = 0;
    json_t *yaml;

    ctx.db = db_new();
    to.arg = &ctx;
    if (design_load("fuzz", (const char *) data, size, &to, &summary, &error) != 0 && !error)
        __builtin_trap(); /* a failure must say why */
    free(error);
    db_free(ctx.db);

    /* The YAML reader on its own, for text design_load reads as JSON. */
    why[0] = '\0';
    yaml = yaml_to_json((const char *) data, size, &line, why, sizeof why);
    if (!yaml && !why[0]) __builtin_trap();
    json_decref(yaml);
    return 0;
}
