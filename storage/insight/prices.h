/*
 * prices.h - the prices the access-pattern report's cost estimate uses.
 *
 * THE ONE PLACE TO UPDATE when AWS changes its prices: every figure the
 * report multiplies by is below, with the date it was checked. They are
 * Amazon DynamoDB's published prices for the Standard table class in US East
 * (N. Virginia), us-east-1, in US dollars, without the free tier:
 *
 *   https://aws.amazon.com/dynamodb/pricing/on-demand/
 *     $0.125 per million read request units, $0.625 per million write
 *     request units (since the on-demand price cut of 1 November 2024)
 *   https://aws.amazon.com/dynamodb/pricing/provisioned/
 *     $0.00013 per RCU-hour, $0.00065 per WCU-hour
 *
 * Vector indexes are billed by the byte (VectorSearchRequestBytes,
 * VectorWriteRequestBytes). DynamoDB's pricing page could not be read from
 * here; these are the us-east-1 Standard rates AWS publishes in its agent
 * toolkit's DynamoDB vector-search reference (aws/agent-toolkit-for-aws,
 * skills/.../amazon-dynamodb/references/vector-search.md, "confirm against
 * the DynamoDB pricing page"): $0.002 per GB searched, $0.52 per GB written,
 * a GB being 10^9 bytes (ours: the reference does not say).
 *
 * A month is 730 hours, as AWS's pricing examples count it. Checked
 * 2026-11-24. The report repeats these figures next to every estimate.
 */
#ifndef DDB_INSIGHT_PRICES_H
#define DDB_INSIGHT_PRICES_H

#define PRICES_REGION                    "us-east-1"
#define PRICES_CHECKED                   "2026-11-24"
#define PRICES_ON_DEMAND_PER_MILLION_RRU 0.125
#define PRICES_ON_DEMAND_PER_MILLION_WRU 0.625
#define PRICES_PROVISIONED_PER_RCU_HOUR  0.00013
#define PRICES_PROVISIONED_PER_WCU_HOUR  0.00065
#define PRICES_HOURS_PER_MONTH           730.0
#define PRICES_VECTOR_SEARCH_PER_GB      0.002
#define PRICES_VECTOR_WRITE_PER_GB       0.52

#endif
