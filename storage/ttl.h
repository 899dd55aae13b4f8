/*
 * ttl.h - a table's Time to Live setting (ttl.c).
 *
 * The public entry points (db_update_ttl, db_describe_ttl, db_expire_items)
 * are in db.h; this header only lets table.c free what a table owns.
 *
 * The caller holds db->lock exclusively.
 */
#ifndef DDB_TTL_H
#define DDB_TTL_H

struct table_ttl;

/* Frees a table's TTL state; NULL is a no-op. */
void ttl_free(struct table_ttl *ttl);

#endif
