/*
 * db_consistency.h - --consistency aws: AWS's eventually consistent reads,
 * GSI propagation and transaction conflicts, on demand (docs/consistency.md).
 *
 * Off by default: every hook in the read and write paths is one untaken
 * branch on db->consistency_any. With it on for a namespace, its tables keep
 * their recent versions (table/versions.h), an eventually consistent read
 * answers as of the engine clock minus a lag (a GSI read minus the GSI lag),
 * and a TransactWriteItems holds its items for a time on the engine clock,
 * during which conflicting requests fail as the Developer Guide's
 * "Transaction conflict handling" says (consistency.c).
 */
#ifndef DDB_DB_CONSISTENCY_H
#define DDB_DB_CONSISTENCY_H

#include "storage/engine/db.h"

#include <stdbool.h>
#include <stdint.h>

/* Defaults, from what AWS documents (docs/consistency.md cites each). */
#define DDB_CONSISTENCY_READ_LAG_MS    1000 /* "usually" consistent within a second */
#define DDB_CONSISTENCY_GSI_LAG_MS     1000 /* "propagate to a GSI within 1 second" */
#define DDB_CONSISTENCY_TRANSACTION_MS 100  /* no AWS figure: chosen (docs/consistency.md) */
#define DDB_CONSISTENCY_MAX_LAG_MS     600000

struct consistency_settings {
    bool aws;               /* the model is on */
    int64_t read_lag_ms;    /* how far behind an eventually consistent table/LSI read may be */
    int64_t gsi_lag_ms;     /* how far behind a GSI read may be */
    int64_t transaction_ms; /* how long a TransactWriteItems holds its items */
    bool seeded;            /* each read's lag is drawn in [0, lag] from seed; else the whole lag */
    uint64_t seed;
};

/* The defaults above, with the model off. */
static inline void consistency_settings_default(struct consistency_settings *s)
{
    *s = (struct consistency_settings){.read_lag_ms = DDB_CONSISTENCY_READ_LAG_MS,
                                       .gsi_lag_ms = DDB_CONSISTENCY_GSI_LAG_MS,
                                       .transaction_ms = DDB_CONSISTENCY_TRANSACTION_MS};
}
/* Sets the engine-wide setting (--consistency aws); before serving, or any time. */
void db_set_consistency(struct db *db, const struct consistency_settings *s);
/* Sets namespace_id's own setting (the control interface); NULL clears it
 * (the namespace follows the engine-wide one again). */
void db_set_namespace_consistency(struct db *db, const char *namespace_id,
                                  const struct consistency_settings *s);
/* The setting in force for namespace_id, into *out. */
void db_get_consistency(struct db *db, const char *namespace_id, struct consistency_settings *out);

#endif
