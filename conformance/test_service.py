# SPDX-License-Identifier: MIT
"""DescribeLimits and DescribeEndpoints.

DescribeLimits answers the account's provisioned-capacity quotas in the
region; a new account's defaults are 80,000 read and write capacity units per
account and 40,000 per table (developerguide/ServiceQuotas.html).
DescribeEndpoints answers the regional endpoint the client is talking to, to
be cached for 1440 minutes (API_DescribeEndpoints.html); on AWS that is the
host name the client used, which is what these tests compare with.
"""

import urllib.parse


def test_describe_limits(dynamodb):
    limits = dynamodb.describe_limits()
    del limits["ResponseMetadata"]
    assert limits == {"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
                      "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}


def test_describe_endpoints_answers_the_host_used(dynamodb):
    host = urllib.parse.urlsplit(dynamodb.meta.endpoint_url).netloc
    endpoints = dynamodb.describe_endpoints()["Endpoints"]
    assert endpoints == [{"Address": host, "CachePeriodInMinutes": 1440}]

