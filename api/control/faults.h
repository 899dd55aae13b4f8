/*
 * faults.h (control) - the fault rules over the control interface:
 *
 *   GET    /ddbemu/faults         {"faults": [rule + "id", "matched", "fired", "remaining"?]}
 *   POST   /ddbemu/faults         a rule, a list of rules or {"faults": [...]}
 *                                 -> {"ids": [...]}; a bad rule -> 400, nothing added
 *   DELETE /ddbemu/faults/<id>    -> {"removed": 1}; 404 when there is no such rule
 *   DELETE /ddbemu/faults         -> {"removed": N}: every rule
 *
 * The rules themselves are api/faults/'s (faults.h there); this file only
 * answers. Documented in README.md ("Control interface") and docs/testing.md.
 */
#ifndef DDB_API_CONTROL_FAULTS_H
#define DDB_API_CONTROL_FAULTS_H

#include "api/http/dispatch.h"

/* Answers one request under /ddbemu/faults; what is the path below
 * /ddbemu/ ("faults" or "faults/<id>"). */
void faults_http_handle(const struct api_context *ctx, const struct http_request *req,
                        const char *what, struct http_response *resp);

#endif
