/*
 * credentials.h - the access keys a server started with --credentials
 * accepts, and their secrets.
 *
 * Text form, one credential per line:
 *     ACCESS_KEY_ID SECRET_ACCESS_KEY [SESSION_TOKEN]
 * separated by blanks; blank lines and lines starting with '#' are ignored.
 * A line with a session token stands for temporary credentials: a request
 * with that key must carry the same X-Amz-Security-Token. Access keys are
 * unique. emulator/ reads the file (or the environment variable) and hands
 * the text here, so the format is checked in one place and unit-tested.
 *
 * Immutable once parsed: shared by every request thread without a lock.
 */
#ifndef DDB_API_CREDENTIALS_H
#define DDB_API_CREDENTIALS_H

#include <stddef.h>

struct credential_entry {
    char *access_key;    /* owned */
    char *secret_key;    /* owned */
    char *session_token; /* owned; NULL: permanent credentials */
};

struct credentials;

/* Parses text. Returns a new store (the caller frees it with
 * credentials_free), or NULL with *why (owned, one line naming the line
 * number) when a line has fewer than two or more than three fields, or an
 * access key repeats. A text without any credential is an error too. */
struct credentials *credentials_parse(const char *text, char **why);
/* The entry of access_key, borrowed from store; NULL when unknown. */
const struct credential_entry *credentials_find(const struct credentials *store,
                                                const char *access_key);
/* How many credentials the store holds. */
size_t credentials_count(const struct credentials *store);
/* Frees the store, wiping the secrets first. NULL is a no-op. */
void credentials_free(struct credentials *store);

#endif
