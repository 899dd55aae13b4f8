/*
 * version.h - what `ddbemu --version` names: the release version (the
 * project() line of the top-level CMakeLists.txt, its one source) and the
 * commit it was built from (-DDDB_COMMIT, or git's HEAD at configure time).
 */
#ifndef DDB_EMULATOR_VERSION_H
#define DDB_EMULATOR_VERSION_H

/* "0.1.0": the version alone, for messages and file names. */
extern const char emulator_version[];
/* The commit's abbreviated hash, or "unknown" outside a git checkout. */
extern const char emulator_commit[];

#endif
