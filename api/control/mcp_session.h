/*
 * mcp_session.h - the MCP sessions of /ddbemu/mcp (mcp.h, docs/mcp.md).
 *
 * A session begins when initialize is answered (its id goes out in the
 * Mcp-Session-Id header) and ends on DELETE, after MCP_SESSION_IDLE_MS
 * without a request, or when MCP_SESSIONS_MAX others are newer: opening one
 * more evicts the least recently used. An ended session's id is unknown,
 * and the transport answers 404 for it, upon which the MCP client starts a
 * new session. Ids are 128 bits from getrandom, in hex.
 *
 * Times are passed in (milliseconds of a monotonic clock: the real one,
 * never the engine clock the tools move), so tests drive expiry without
 * waiting. Every function takes the table's own mutex: shared by every
 * server thread. One table per emulator (struct api_context.mcp_sessions),
 * owned by whoever made it with mcp_sessions_new.
 */
#ifndef DDB_API_CONTROL_MCP_SESSION_H
#define DDB_API_CONTROL_MCP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#define MCP_SESSIONS_MAX    256
#define MCP_SESSION_IDLE_MS ((int64_t) 60 * 60 * 1000) /* one hour without a request */
#define MCP_SESSION_ID_LEN  32                         /* hex digits */

struct mcp_sessions;

/* A new, empty table (owned: mcp_sessions_free). */
struct mcp_sessions *mcp_sessions_new(void);
/* Frees the table; NULL is a no-op. */
void mcp_sessions_free(struct mcp_sessions *sessions);

/* The real monotonic clock in milliseconds, the now the transport passes. */
int64_t mcp_sessions_now_ms(void);

/* Opens a session at now_ms, evicting the least recently used one when
 * MCP_SESSIONS_MAX are open, and writes its id (and a NUL) to id. Returns
 * 0, or -1 when no random id could be drawn (nothing changed). */
int mcp_session_open(struct mcp_sessions *sessions, int64_t now_ms,
                     char id[MCP_SESSION_ID_LEN + 1]);

/* Whether id names an open session at now_ms; if so, it was used now. A
 * session idle for MCP_SESSION_IDLE_MS or more is ended here, and is not. */
bool mcp_session_use(struct mcp_sessions *sessions, const char *id, int64_t now_ms);

/* Ends session id; returns whether it was open at now_ms. */
bool mcp_session_close(struct mcp_sessions *sessions, const char *id, int64_t now_ms);

/* How many sessions are open at now_ms (expired ones not counted). */
unsigned mcp_sessions_open_count(struct mcp_sessions *sessions, int64_t now_ms);

#endif
