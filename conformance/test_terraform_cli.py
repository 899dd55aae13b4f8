# SPDX-License-Identifier: MIT
"""Terraform's aws_dynamodb_table sequence (see test_terraform_sequence.py)
through the AWS CLI: Debian's awscli package (scripts/lib.sh installs it).

Debian's AWS CLI (2.9) predates DeletionProtectionEnabled (March 2023). The
CLI reads service models from AWS_DATA_PATH before its own, so the test gives
it its own DynamoDB model with that one member added to CreateTable,
UpdateTable and the table description - what a newer CLI has - and runs
every call, deletion protection included, as `aws dynamodb ...` commands.
"""

import json
import os
import subprocess

import pytest

from util import poll_until, running_on_aws_sleep, unique_table_name

DEBIAN_AWS = "/usr/bin/aws"
RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "aws_cli_runner.py")
CLI_MODEL = "/usr/lib/python3/dist-packages/awscli/botocore/data/dynamodb/2012-08-10/service-2.json"


@pytest.fixture
def aws(dynamodb, tmp_path):
    """aws(*args) -> parsed JSON output (None when empty); fails on an error.
    aws.error(*args) -> the error output of a call that must fail.

    The commands run in one helper process (aws_cli_runner.py) that calls the
    CLI's own entry point - what /usr/bin/aws runs - for each, which spares
    the CLI's start-up on every command."""
    assert os.path.exists(DEBIAN_AWS), "Debian's awscli package is missing (scripts/lib.sh)"
    model = json.load(open(CLI_MODEL))
    model["shapes"]["DeletionProtectionEnabled"] = {"type": "boolean"}
    for shape in ("CreateTableInput", "UpdateTableInput", "TableDescription"):
        model["shapes"][shape]["members"]["DeletionProtectionEnabled"] = {
            "shape": "DeletionProtectionEnabled"}
    model_dir = tmp_path / "models" / "dynamodb" / "2012-08-10"
    model_dir.mkdir(parents=True)
    (model_dir / "service-2.json").write_text(json.dumps(model))
    creds = dynamodb._request_signer._credentials
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
           "AWS_ACCESS_KEY_ID": creds.access_key, "AWS_SECRET_ACCESS_KEY": creds.secret_key,
           "AWS_DEFAULT_REGION": dynamodb.meta.region_name, "AWS_PAGER": "",
           "AWS_DATA_PATH": str(tmp_path / "models"), "AWS_MAX_ATTEMPTS": "1"}
    base = ["--endpoint-url", dynamodb.meta.endpoint_url, "--output", "json", "dynamodb"]
    runner = subprocess.Popen(["/usr/bin/python3", RUNNER], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)

    def call(args):
        runner.stdin.write(json.dumps(base + list(args)) + "\n")
        runner.stdin.flush()
        line = runner.stdout.readline()
        assert line, "the AWS CLI runner stopped"
        answer = json.loads(line)
        return answer["rc"], answer["out"], answer["err"]

    def run(*args):
        rc, out, err = call(args)
        assert rc == 0, (args, err)
        return json.loads(out) if out.strip() else None

    def error(*args):
        rc, out, err = call(args)
        assert rc != 0, (args, out)
        return err

    run.error = error
    yield run
    runner.stdin.close()
    runner.wait(timeout=60)


def test_create_read_update_destroy_with_the_cli(aws):
    name = unique_table_name("tfcli")
    created = aws("create-table", "--table-name", name, "--billing-mode", "PAY_PER_REQUEST",
                  "--attribute-definitions", "AttributeName=id,AttributeType=S",
                  "--key-schema", "AttributeName=id,KeyType=HASH",
                  "--deletion-protection-enabled",
                  "--tags", f"Key=Name,Value={name}", "Key=Environment,Value=test")
    assert created["TableDescription"]["DeletionProtectionEnabled"] is True
    arn = created["TableDescription"]["TableArn"]

    def refresh():
        table = aws("describe-table", "--table-name", name)["Table"]
        pitr = aws("describe-continuous-backups", "--table-name", name)[
            "ContinuousBackupsDescription"]["PointInTimeRecoveryDescription"]
        ttl = aws("describe-time-to-live", "--table-name", name)["TimeToLiveDescription"]
        tags = aws("list-tags-of-resource", "--resource-arn", arn)["Tags"]
        return table, pitr["PointInTimeRecoveryStatus"], ttl, {t["Key"]: t["Value"] for t in tags}

    def active():
        table = aws("describe-table", "--table-name", name)["Table"]
        return table["TableStatus"] == "ACTIVE" and all(
            i["IndexStatus"] == "ACTIVE" for i in table.get("GlobalSecondaryIndexes", []))

    try:
        poll_until(active, "ACTIVE")
        table, pitr, ttl, tags = poll_until(lambda: (lambda r: r if r[3] else None)(refresh()),
                                          "tagged")
        assert (pitr, ttl, tags) == ("DISABLED", {"TimeToLiveStatus": "DISABLED"},
                                     {"Name": name, "Environment": "test"})
        assert table["DeletionProtectionEnabled"] is True

        aws("update-continuous-backups", "--table-name", name,
            "--point-in-time-recovery-specification", "PointInTimeRecoveryEnabled=true")
        poll_until(lambda: refresh()[1] == "ENABLED", "PITR ENABLED")
        aws("update-time-to-live", "--table-name", name,
            "--time-to-live-specification", "Enabled=true,AttributeName=expires_at")
        poll_until(lambda: refresh()[2].get("TimeToLiveStatus") == "ENABLED", "TTL ENABLED")
        aws("update-table", "--table-name", name,
            "--attribute-definitions", "AttributeName=id,AttributeType=S",
            "AttributeName=owner,AttributeType=S",
            "--global-secondary-index-updates", json.dumps([{"Create": {
                "IndexName": "by_owner", "Projection": {"ProjectionType": "ALL"},
                "KeySchema": [{"AttributeName": "owner", "KeyType": "HASH"}]}}]))
        poll_until(active, "index ACTIVE")
        aws("untag-resource", "--resource-arn", arn, "--tag-keys", "Environment")
        running_on_aws_sleep(3)
        aws("tag-resource", "--resource-arn", arn, "--tags", "Key=Team,Value=storage")
        table, pitr, ttl, tags = poll_until(
            lambda: (lambda r: r if "Team" in r[3] else None)(refresh()), "retagged")
        assert tags == {"Name": name, "Team": "storage"}
        assert (pitr, ttl) == ("ENABLED", {"TimeToLiveStatus": "ENABLED",
                                           "AttributeName": "expires_at"})
        assert [i["IndexName"] for i in table["GlobalSecondaryIndexes"]] == ["by_owner"]

        stderr = aws.error("delete-table", "--table-name", name)
        assert "Resource cannot be deleted as it is currently protected against deletion" in stderr
        aws("update-table", "--table-name", name, "--no-deletion-protection-enabled")
        poll_until(active, "ACTIVE after protection off")
        assert refresh()[0]["DeletionProtectionEnabled"] is False
        aws("delete-table", "--table-name", name)
        poll_until(lambda: "ResourceNotFoundException" in aws.error("describe-table",
                                                                    "--table-name", name),
                   "deleted")
    finally:
        try:
            aws("update-table", "--table-name", name, "--no-deletion-protection-enabled")
            aws("delete-table", "--table-name", name)
        except AssertionError:
            pass
