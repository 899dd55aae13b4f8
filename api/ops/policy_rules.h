/*
 * policy_rules.h - the checks DynamoDB makes on a resource-based policy
 * document (PutResourcePolicy's Policy, CreateTable's ResourcePolicy).
 */
#ifndef DDB_API_POLICY_RULES_H
#define DDB_API_POLICY_RULES_H

#include "storage/base/error.h"

#include <stddef.h>

/* ValidationException with AWS's text when doc (len bytes) is not a policy
 * DynamoDB would store: over 20 KB, not JSON, no statements, a statement
 * without Effect, Action or Resource, or two statements with one Sid. */
int policy_rules_check(const char *doc, size_t len, struct ddb_error *err);

#endif
