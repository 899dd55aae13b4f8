/*
 * init_files.h - --init FILE: tables from design documents at start.
 */
#ifndef DDB_EMULATOR_INIT_FILES_H
#define DDB_EMULATOR_INIT_FILES_H

#include "api/http/dispatch.h"

#include <stddef.h>

/* Reads each file and creates what it describes through ctx's api (see
 * api/design/design.h), in order. Returns 0, or -1 after printing which file
 * and why on stderr (tables of earlier files stay). */
int init_files_load(const struct api_context *ctx, const char *const *files, size_t count);

#endif
