# SPDX-License-Identifier: MIT
"""The hook the pytest plugin adds (registered by pytest_addhooks)."""


def pytest_ddbemu_seed(seed, config):
    """Fill the seed namespace: called once per test run, before the first test
    that uses a ddbemu fixture, in whichever pytest-xdist worker gets there
    first (the others wait).

    ``seed`` is a ``ddbemu.Namespace`` (``seed.client()``, ``seed.resource()``,
    ``seed.boto3_kwargs()``) on an access key of its own, empty when the hook
    starts. What it holds when every implementation has returned is saved as
    a snapshot, and every namespace the fixtures hand out (per test, per
    worker or for the session: --ddbemu-isolation) is forked from it, so each
    starts with the seeded tables and sees only its own writes.
    """
