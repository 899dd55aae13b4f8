#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""replay.py - every Testcontainers module of modules.json, replayed on the image.

    unshare --net --mount --propagation private \
        python3 replay.py ROOTFS IMAGE_CONFIG_JSON MODULES_JSON

Run by packaging/testcontainers/verify, as root, in a network and mount
namespace of its own (so that the container's port 8000 is free and /proc can
be mounted into ROOTFS). For each module: the container's command line (the
module's entrypoint and cmd, or the image's; Docker's rule: a replaced
entrypoint drops the image's cmd) is run from the image's files as a
container would run it: chrooted into ROOTFS, in the image's working
directory, as the image's user, with the image's environment and the
module's, the program looked up on the image's PATH. Then the module's wait
strategy, as its source does it:

  listening-port  a TCP connect to the container's address (10.88.0.2 here,
                  an address of its own that a server bound to loopback only
                  does not answer), and the module's commands run inside the
                  container (chrooted, as the image's user): all or any must
                  exit 0;
  http            GET <path> on the container's address answers one of the
                  statuses;
  log-line        the regex matches the server's stdout or stderr (search:
                  anywhere, as testcontainers-python; java-line: a whole line
                  with its newline, as Java's .matches("(?s)" + regex) per frame).

A module passes when its wait strategy is satisfied within 30 s
(REPLAY_TIMEOUT_S) and boto3
(with the module's credentials and region) can then create a table, put an
item and get it back on the container's port. Prints one line per module;
exits 1 when any fails.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import boto3
import botocore.config

CONTAINER_ADDR = "10.88.0.2"
READY_TIMEOUT_S = float(os.environ.get("REPLAY_TIMEOUT_S", "30"))


def setup_namespace(rootfs):
    """The namespace's loopback up, the container's address on it, /proc in rootfs."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "addr", "add", f"{CONTAINER_ADDR}/32", "dev", "lo"], check=True)
    os.makedirs(os.path.join(rootfs, "proc"), exist_ok=True)
    subprocess.run(["mount", "-t", "proc", "proc", os.path.join(rootfs, "proc")], check=True)
    os.makedirs(os.path.join(rootfs, "dev"), exist_ok=True)
    null = os.path.join(rootfs, "dev", "null")
    if not os.path.exists(null):
        open(null, "w").close()
        subprocess.run(["mount", "--bind", "/dev/null", null], check=True)


def image_user(config):
    user = config.get("User") or "0:0"
    uid, _, gid = user.partition(":")
    return int(uid), int(gid or uid)


def image_env(config, extra):
    env = {}
    for item in config.get("Env") or []:
        key, _, value = item.partition("=")
        env[key] = value
    env.setdefault("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
    env.setdefault("HOSTNAME", "ddbemu-replay")
    env.update(extra or {})
    return env


def resolve(rootfs, program, path):
    """The program's path inside the image, looked up on PATH as runc does."""
    if "/" in program:
        return program
    for folder in path.split(":"):
        candidate = os.path.join(folder, program)
        if os.path.lexists(os.path.join(rootfs, candidate.lstrip("/"))):
            return candidate
    raise FileNotFoundError(f"{program}: not on the image's PATH {path}")


def container_argv(config, module):
    entrypoint = module["entrypoint"] if module["entrypoint"] is not None else (
        config.get("Entrypoint") or [])
    if module["cmd"] is not None:
        cmd = module["cmd"]
    elif module["entrypoint"] is not None:
        cmd = []  # Docker: a new entrypoint clears the image's CMD
    else:
        cmd = config.get("Cmd") or []
    return list(entrypoint) + list(cmd)


def in_image(rootfs, workdir, uid, gid):
    """A preexec_fn: chroot into the image's files as its user."""
    def enter():
        os.chroot(rootfs)
        os.chdir(workdir or "/")
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    return enter


def start(rootfs, config, module, logs):
    argv = container_argv(config, module)
    env = image_env(config, module.get("env"))
    uid, gid = image_user(config)
    program = resolve(rootfs, argv[0], env["PATH"])
    out = open(os.path.join(logs, module["name"] + ".stdout"), "wb")
    err = open(os.path.join(logs, module["name"] + ".stderr"), "wb")
    # argv[0] stays the name the module gave (java, ...), as runc passes it;
    # the file executed is the one PATH finds in the image.
    proc = subprocess.Popen(argv, executable=program, env=env, stdout=out, stderr=err,
                            stdin=subprocess.DEVNULL,
                            preexec_fn=in_image(rootfs, config.get("WorkingDir"), uid, gid))
    return proc, argv, out.name, err.name


def external_port_open(port):
    with socket.socket() as s:
        s.settimeout(1)
        try:
            s.connect((CONTAINER_ADDR, port))
            return True
        except OSError:
            return False


def run_in_container(rootfs, config, command):
    uid, gid = image_user(config)
    env = image_env(config, {})
    try:
        program = resolve(rootfs, command[0], env["PATH"])
    except FileNotFoundError:
        return 127
    if not os.path.lexists(os.path.join(rootfs, program.lstrip("/"))):
        return 127
    done = subprocess.run([program] + command[1:], env=env, capture_output=True, timeout=10,
                          preexec_fn=in_image(rootfs, config.get("WorkingDir"), uid, gid))
    return done.returncode


def read(path):
    with open(path, "rb") as f:
        return f.read().decode(errors="replace")


def wait_ready(rootfs, config, module, proc, out_path, err_path):
    """None when the wait strategy is satisfied; else why not."""
    wait = module["wait"]
    port = module["exposed_port"]
    deadline = time.monotonic() + READY_TIMEOUT_S
    last = "nothing tried yet"
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return f"the container exited with status {proc.returncode}"
        kind = wait["kind"]
        if kind == "listening-port":
            if wait.get("external") and not external_port_open(port):
                last = f"nothing accepts connections on {CONTAINER_ADDR}:{port}"
            else:
                codes = [run_in_container(rootfs, config, c) for c in wait["internal_commands"]]
                ok = (all if wait["internal_rule"] == "all" else any)(c == 0 for c in codes)
                if ok:
                    return None
                last = f"the internal port check exited {codes}"
        elif kind == "http":
            try:
                with urllib.request.urlopen(f"http://{CONTAINER_ADDR}:{port}{wait['path']}",
                                            timeout=2) as answer:
                    status = answer.status
            except urllib.error.HTTPError as e:
                status = e.code
            except OSError as e:
                status = None
                last = f"GET {wait['path']}: {e}"
            if status in wait["status"]:
                return None
            if status is not None:
                last = f"GET {wait['path']} answered {status}, not {wait['status']}"
        elif kind == "log-line":
            texts = [read(out_path), read(err_path)]
            if wait["match"] == "search":
                if any(re.search(wait["regex"], t, re.MULTILINE) for t in texts):
                    return None
            else:  # java-line: each line, its newline included, .matches("(?s)" + regex)
                lines = [l for t in texts for l in t.splitlines(keepends=True)]
                if any(re.fullmatch("(?s)" + wait["regex"], l) for l in lines):
                    return None
            last = f"no output line matches {wait['regex']!r}"
        else:
            return f"unknown wait kind {kind}"
        time.sleep(0.1)
    return f"not ready after {READY_TIMEOUT_S:.0f} s: {last}"


def smoke(module):
    client = module["client"]
    ddb = boto3.client("dynamodb", endpoint_url=f"http://{CONTAINER_ADDR}:{module['exposed_port']}",
                       region_name=client["region"], aws_access_key_id=client["access_key"],
                       aws_secret_access_key="dummy",
                       config=botocore.config.Config(retries={"max_attempts": 1}))
    ddb.create_table(TableName="replay", BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "p", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "p", "AttributeType": "S"}])
    ddb.put_item(TableName="replay", Item={"p": {"S": module["name"]}})
    item = ddb.get_item(TableName="replay", Key={"p": {"S": module["name"]}})["Item"]
    assert item == {"p": {"S": module["name"]}}, item


def main():
    rootfs, config_path, modules_path = sys.argv[1:4]
    config = json.load(open(config_path))
    modules = json.load(open(modules_path))["modules"]
    logs = os.path.join(os.path.dirname(os.path.abspath(rootfs)), "replay-logs")
    os.makedirs(logs, exist_ok=True)
    setup_namespace(rootfs)
    failed = 0
    for module in modules:
        try:
            proc, argv, out_path, err_path = start(rootfs, config, module, logs)
        except OSError as e:  # as Docker's "executable file not found in $PATH"
            failed += 1
            print(f"FAIL  {module['name']:22} ({module['language']}): the container cannot "
                  f"start: {e}")
            continue
        started = time.monotonic()
        try:
            why = wait_ready(rootfs, config, module, proc, out_path, err_path)
            if why is None:
                try:
                    smoke(module)
                except Exception as e:  # any failure of the conversation is the module's
                    why = f"ready, but boto3 failed: {e}"
        finally:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if why is None:
            print(f"ok    {module['name']:22} ({module['language']}) ready in "
                  f"{time.monotonic() - started:.1f} s: {' '.join(argv)}")
        else:
            failed += 1
            print(f"FAIL  {module['name']:22} ({module['language']}): {why}\n"
                  f"      argv: {argv}\n      stderr: {read(err_path)[-400:]!r}")
        # Each module gets a fresh container: nothing the last one wrote stays.
        data = os.path.join(rootfs, (config.get("WorkingDir") or "/").lstrip("/"), "data")
        if os.path.isdir(data):
            for name in os.listdir(data):
                path = os.path.join(data, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
