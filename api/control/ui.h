/*
 * ui.h - serves the web console (api/console/) under /ddbemu/ui on
 * the control interface, so it follows the interface's rules: on by default
 * on a loopback address, off otherwise (control.h). The page itself talks to
 * the ordinary DynamoDB and Streams API and to the other control endpoints
 * from the browser; nothing here reads the engine.
 *
 *   GET /ddbemu/ui, /ddbemu/ui/       the page (index.html)
 *   GET /ddbemu/ui/<file>             its scripts and style sheet
 */
#ifndef DDB_API_CONTROL_UI_H
#define DDB_API_CONTROL_UI_H

#include "api/http/server.h"

#include <stdbool.h>

/* Answers one console request into resp; what is the path after /ddbemu/. */
void console_http_handle(const struct http_request *req, const char *what,
                         struct http_response *resp);

#endif
