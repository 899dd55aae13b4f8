/*
 * mcp_session.c - the MCP session table (mcp_session.h).
 *
 * A fixed array of MCP_SESSIONS_MAX slots under one mutex: a lookup is a
 * scan of at most 256 short strings, far below the cost of the JSON-RPC
 * request it admits, and the table never allocates after it is made.
 * Invariant: a slot is open when its id is non-empty; ids of open slots are
 * distinct (128 random bits).
 */
#include "api/control/mcp_session.h"

#include "storage/base/alloc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

struct mcp_session {
    char id[MCP_SESSION_ID_LEN + 1]; /* "" when the slot is free */
    int64_t last_used_ms;
};

struct mcp_sessions {
    pthread_mutex_t mutex;
    struct mcp_session slots[MCP_SESSIONS_MAX];
};

struct mcp_sessions *mcp_sessions_new(void)
{
    struct mcp_sessions *sessions = xcalloc(1, sizeof *sessions);

    pthread_mutex_init(&sessions->mutex, NULL);
    return sessions;
}

void mcp_sessions_free(struct mcp_sessions *sessions)
{
    if (!sessions) return;
    pthread_mutex_destroy(&sessions->mutex);
    free(sessions);
}

int64_t mcp_sessions_now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool expired(const struct mcp_session *s, int64_t now_ms)
{
    return now_ms - s->last_used_ms >= MCP_SESSION_IDLE_MS;
}

/* The open, unexpired slot named id, or NULL; frees expired slots it meets.
 * Runs under sessions->mutex (its callers take it). */
static struct mcp_session *find(struct mcp_sessions *sessions, const char *id, int64_t now_ms)
{
    for (size_t i = 0; i < MCP_SESSIONS_MAX; i++) {
        struct mcp_session *s = &sessions->slots[i];
        if (!s->id[0]) continue;
        if (expired(s, now_ms)) {
            s->id[0] = '\0';
            continue;
        }
        if (strcmp(s->id, id) == 0) return s;
    }
    return NULL;
}

int mcp_session_open(struct mcp_sessions *sessions, int64_t now_ms, char id[MCP_SESSION_ID_LEN + 1])
{
    unsigned char random[MCP_SESSION_ID_LEN / 2];
    struct mcp_session *slot = NULL;

    if (getrandom(random, sizeof random, 0) != (ssize_t) sizeof random) return -1;
    for (size_t i = 0; i < sizeof random; i++)
        snprintf(id + 2 * i, 3, "%02x", random[i]);

    pthread_mutex_lock(&sessions->mutex);
    /* A free or expired slot, else the least recently used one. */
    for (size_t i = 0; i < MCP_SESSIONS_MAX; i++) {
        struct mcp_session *s = &sessions->slots[i];
        if (!s->id[0] || expired(s, now_ms)) {
            slot = s;
            break;
        }
        if (!slot || s->last_used_ms < slot->last_used_ms) slot = s;
    }
    memcpy(slot->id, id, MCP_SESSION_ID_LEN + 1);
    slot->last_used_ms = now_ms;
    pthread_mutex_unlock(&sessions->mutex);
    return 0;
}

bool mcp_session_use(struct mcp_sessions *sessions, const char *id, int64_t now_ms)
{
    struct mcp_session *s;

    pthread_mutex_lock(&sessions->mutex);
    s = find(sessions, id, now_ms);
    if (s) s->last_used_ms = now_ms;
    pthread_mutex_unlock(&sessions->mutex);
    return s != NULL;
}

bool mcp_session_close(struct mcp_sessions *sessions, const char *id, int64_t now_ms)
{
    struct mcp_session *s;

    pthread_mutex_lock(&sessions->mutex);
    s = find(sessions, id, now_ms);
    if (s) s->id[0] = '\0';
    pthread_mutex_unlock(&sessions->mutex);
    return s != NULL;
}

unsigned mcp_sessions_open_count(struct mcp_sessions *sessions, int64_t now_ms)
{
    unsigned n = 0;

    pthread_mutex_lock(&sessions->mutex);
    for (size_t i = 0; i < MCP_SESSIONS_MAX; i++)
        if (sessions->slots[i].id[0] && !expired(&sessions->slots[i], now_ms)) n++;
    pthread_mutex_unlock(&sessions->mutex);
    return n;
}
