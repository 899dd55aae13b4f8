/*
 * test_mcp_session.c - the MCP session table (api/control/mcp_session.h)
 * with a made-up clock: ids, use, close, expiry after MCP_SESSION_IDLE_MS
 * idle, and eviction of the least recently used past MCP_SESSIONS_MAX.
 */
#include "api/control/mcp.h"
#include "api/control/mcp_session.h"
#include "storage/tests/check.h"

#include <string.h>

static void test_open_use_close(void)
{
    struct mcp_sessions *s = mcp_sessions_new();
    char a[MCP_SESSION_ID_LEN + 1], b[MCP_SESSION_ID_LEN + 1];

    CHECK_INT_EQ(mcp_session_open(s, 1000, a), 0);
    CHECK_INT_EQ(mcp_session_open(s, 1000, b), 0);
    CHECK_INT_EQ(strlen(a), MCP_SESSION_ID_LEN);
    CHECK_INT_EQ(strspn(a, "0123456789abcdef"), MCP_SESSION_ID_LEN);
    CHECK(strcmp(a, b) != 0);
    CHECK(mcp_session_use(s, a, 2000));
    CHECK(!mcp_session_use(s, "", 2000));
    CHECK(!mcp_session_use(s, "0123456789abcdef0123456789abcdef", 2000));
    CHECK(mcp_session_close(s, a, 3000));
    CHECK(!mcp_session_use(s, a, 3000));
    CHECK(!mcp_session_close(s, a, 3000));
    CHECK(mcp_session_use(s, b, 3000));
    CHECK_INT_EQ(mcp_sessions_open_count(s, 3000), 1);
    mcp_sessions_free(s);
}

static void test_idle_expiry(void)
{
    struct mcp_sessions *s = mcp_sessions_new();
    char a[MCP_SESSION_ID_LEN + 1], b[MCP_SESSION_ID_LEN + 1];

    mcp_session_open(s, 0, a);
    mcp_session_open(s, 0, b);
    /* Each use restarts the idle time. */
    CHECK(mcp_session_use(s, a, MCP_SESSION_IDLE_MS - 1));
    CHECK(mcp_session_use(s, a, 2 * MCP_SESSION_IDLE_MS - 2));
    CHECK(!mcp_session_use(s, b, MCP_SESSION_IDLE_MS));
    CHECK_INT_EQ(mcp_sessions_open_count(s, 2 * MCP_SESSION_IDLE_MS - 2), 1);
    CHECK(!mcp_session_use(s, a, 3 * MCP_SESSION_IDLE_MS - 2));
    CHECK(!mcp_session_close(s, a, 3 * MCP_SESSION_IDLE_MS));
    CHECK_INT_EQ(mcp_sessions_open_count(s, 3 * MCP_SESSION_IDLE_MS), 0);
    mcp_sessions_free(s);
}

static void test_eviction_of_least_recently_used(void)
{
    static char ids[MCP_SESSIONS_MAX + 1][MCP_SESSION_ID_LEN + 1];
    struct mcp_sessions *s = mcp_sessions_new();

    for (int i = 0; i < MCP_SESSIONS_MAX; i++)
        CHECK_INT_EQ(mcp_session_open(s, 10 + i, ids[i]), 0);
    CHECK_INT_EQ(mcp_sessions_open_count(s, 1000), MCP_SESSIONS_MAX);
    /* Session 0 is the oldest but used now, so session 1 is the one evicted. */
    CHECK(mcp_session_use(s, ids[0], 1000));
    CHECK_INT_EQ(mcp_session_open(s, 1001, ids[MCP_SESSIONS_MAX]), 0);
    CHECK_INT_EQ(mcp_sessions_open_count(s, 1001), MCP_SESSIONS_MAX);
    CHECK(mcp_session_use(s, ids[0], 1002));
    CHECK(!mcp_session_use(s, ids[1], 1002));
    CHECK(mcp_session_use(s, ids[2], 1002));
    CHECK(mcp_session_use(s, ids[MCP_SESSIONS_MAX], 1002));
    /* A closed slot is reused before any open session is evicted. */
    CHECK(mcp_session_close(s, ids[2], 1003));
    CHECK_INT_EQ(mcp_session_open(s, 1004, ids[1]), 0);
    CHECK(mcp_session_use(s, ids[3], 1005));
    mcp_sessions_free(s);
}

/* Every revision the text names is one mcp_protocol_supported accepts. */
static void test_versions_text(void)
{
    char text[] = MCP_PROTOCOL_VERSIONS_TEXT;
    int n = 0;

    for (char *v = strtok(text, ", "); v; v = strtok(NULL, ", "), n++)
        CHECK(mcp_protocol_supported(v));
    CHECK_INT_EQ(n, 4);
    CHECK(!mcp_protocol_supported("2024-10-07"));
    CHECK(!mcp_protocol_supported(NULL));
}

int main(void)
{
    RUN(test_open_use_close);
    RUN(test_idle_expiry);
    RUN(test_eviction_of_least_recently_used);
    RUN(test_versions_text);
    return check_report();
}
