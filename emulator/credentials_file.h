/*
 * credentials_file.h - where --credentials comes from: a file, or for
 * containers the DDBEMU_CREDENTIALS environment variable.
 *
 * DDBEMU_CREDENTIALS holds the file's text itself (one "ACCESS_KEY_ID
 * SECRET_ACCESS_KEY [SESSION_TOKEN]" per line), so that a secret store can
 * inject it without a mounted file; --credentials FILE wins when both are
 * given. The format is api/http/credentials.h's.
 */
#ifndef DDB_EMULATOR_CREDENTIALS_FILE_H
#define DDB_EMULATOR_CREDENTIALS_FILE_H

#include "api/sigv4/credentials.h"

#define CREDENTIALS_ENV "DDBEMU_CREDENTIALS"

/* Loads the store named by path (NULL or "": from CREDENTIALS_ENV). Returns
 * NULL with *store NULL when neither is given; -1 after printing why on
 * stderr when the file cannot be read or a line is wrong; else 0. */
int credentials_file_load(const char *path, struct credentials **store);

#endif
