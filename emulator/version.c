/*
 * version.c - the version and commit; see version.h. Its two macros come
 * from emulator/CMakeLists.txt on this file's compile line alone, so that a
 * new commit recompiles one file.
 */
#include "emulator/version.h"

#if !defined(DDBEMU_VERSION) || !defined(DDBEMU_COMMIT)
#error "DDBEMU_VERSION and DDBEMU_COMMIT come from emulator/CMakeLists.txt"
#endif

const char emulator_version[] = DDBEMU_VERSION;
const char emulator_commit[] = DDBEMU_COMMIT;
