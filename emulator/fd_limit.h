/*
 * fd_limit.h - fitting the connection bound to the process's descriptors.
 *
 * Every open connection is one file descriptor; past RLIMIT_NOFILE accept()
 * fails and the server stops accepting without saying why. At start the soft
 * limit is raised as far as the hard limit allows, and the connection bound
 * is lowered (with a line on stderr) when the descriptors still cannot hold
 * it besides the ones the rest of the process needs.
 */
#ifndef DDB_EMULATOR_FD_LIMIT_H
#define DDB_EMULATOR_FD_LIMIT_H

/* Descriptors kept for everything but connections: the listening socket,
 * SQLite files with --db-path, export and import files, the standard ones. */
#define FD_LIMIT_RESERVE 64

/* Raises RLIMIT_NOFILE's soft limit toward wanted + FD_LIMIT_RESERVE (no
 * further than the hard limit) and returns the connection bound that fits:
 * wanted, or fewer (at least 1), said on stderr. Call before any thread. */
unsigned fd_limit_fit(unsigned wanted);

#endif
