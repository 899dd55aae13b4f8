/*
 * lifecycle.h - one running emulator: the engine, the TTL sweeper and, when
 * asked, the HTTP server, started and stopped in one order.
 *
 * main.c (the process) and library.c (libddbemu, an emulator inside another
 * program) both run an emulator through these three calls, so the two cannot
 * differ in how the engine is opened, what --init replays, or what the server
 * is given. Signals are the process's business, not this file's: main blocks
 * them before emulator_open, the library leaves its host's alone.
 *
 * Errors: a function that fails returns NULL or -1 and sets *why to a
 * sentence (owned by the caller, free()) saying what failed; messages that
 * the files they name print themselves (--credentials, --init) are also on
 * stderr, as the command line has always shown them.
 */
#ifndef DDB_EMULATOR_LIFECYCLE_H
#define DDB_EMULATOR_LIFECYCLE_H

#include "api/http/dispatch.h"
#include "emulator/config.h"

#include <stdint.h>

struct emulator {
    struct config cfg;               /* a copy; its init_files point into the caller's argv */
    struct credentials *credentials; /* --credentials; NULL: any key */
    struct db *db;
    struct api_config api_cfg;
    struct api_context ctx; /* what every request, HTTP or in-process, is answered with */
    struct server *server;  /* NULL until emulator_listen */
    struct sweeper *sweeper;
    struct fault_set *faults;          /* --faults, then /ddbemu/faults: owned */
    struct mcp_sessions *mcp_sessions; /* /ddbemu/mcp's sessions: owned */
};

/* Opens the engine cfg describes (in memory, or loaded from --db-path),
 * replays --init and starts the TTL sweeper; no socket is opened. Returns the
 * emulator (owned: emulator_close), or NULL with *why set and *exit_status
 * the status a process exits with for it (2: --credentials or --faults cannot
 * be loaded, a usage error; 1: anything else). cfg->init_files must stay valid until
 * emulator_open returns. */
struct emulator *emulator_open(const struct config *cfg, char **why, int *exit_status);

/* Starts the HTTP server on cfg's host and port (port 0: a free one) over
 * emu's engine. Returns 0, or -1 with *why set (emu is unchanged). */
int emulator_listen(struct emulator *emu, char **why);

/* The port the server listens on; 0 when emulator_listen has not run. */
uint16_t emulator_port(const struct emulator *emu);

/* Stops everything in reverse order of start: the server (no new request),
 * the sweeper, then the engine (with --db-path it flushes). NULL is a no-op. */
void emulator_close(struct emulator *emu);

#endif
