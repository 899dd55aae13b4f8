# SPDX-License-Identifier: MIT
"""Assembles the ddbemu wheel from src/, a binary and a version, byte for byte
the same from the same inputs.

    python3 make_wheel.py --version 0.1.0 --arch x86_64 --binary PATH --out DIR

Why by hand and not setuptools/bdist_wheel: the wheel holds no compiled
Python, only pure modules and a prebuilt binary, and needs (a) a platform tag
chosen by us (manylinux, for a static binary) rather than the build machine's,
(b) the binary's executable bit, (c) identical bytes for identical inputs.
bdist_wheel tags from the running interpreter unless forced, keeps a build/
directory between the two architectures, and writes what its version chooses;
this script writes the format (PEP 427, the binary distribution format spec)
directly: sorted entries, every timestamp at SOURCE_DATE_EPOCH, modes 0644 /
0755, RECORD with SHA-256 last. It needs only the standard library.
"""

import argparse
import base64
import hashlib
import os
import re
import stat
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "src", "ddbemu")
# A static binary runs on every Linux with a 2.6.32+ kernel: manylinux2014
# (glibc 2.17) is the oldest tag current pip versions install.
PLATFORM_TAGS = {
    "x86_64": "manylinux_2_17_x86_64.manylinux2014_x86_64",
    "aarch64": "manylinux_2_17_aarch64.manylinux2014_aarch64",
}
PEP440 = re.compile(r"^\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?(\+[a-z0-9.]+)?$")


def metadata(version):
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    headers = [
        ("Metadata-Version", "2.1"),
        ("Name", "ddbemu"),
        ("Version", version),
        ("Summary", "A local DynamoDB-compatible emulator, a context manager and pytest fixtures"),
        ("License", "MIT"),
        ("Keywords", "dynamodb,emulator,dynamodb-local,pytest,testing"),
        ("Classifier", "Framework :: Pytest"),
        ("Classifier", "License :: OSI Approved :: MIT License"),
        ("Classifier", "Operating System :: POSIX :: Linux"),
        ("Classifier", "Programming Language :: Python :: 3"),
        ("Classifier", "Topic :: Software Development :: Testing"),
        ("Requires-Python", ">=3.8"),
        ("Provides-Extra", "pytest"),
        ("Requires-Dist", 'boto3; extra == "pytest"'),
        ("Requires-Dist", 'pytest>=7; extra == "pytest"'),
        ("Description-Content-Type", "text/markdown"),
    ]
    return "".join(f"{k}: {v}\n" for k, v in headers) + "\n" + readme


def wheel_file(tags):
    lines = ["Wheel-Version: 1.0", "Generator: ddbemu packaging/python/make_wheel.py",
             "Root-Is-Purelib: false"]
    lines += [f"Tag: py3-none-{t}" for t in tags.split(".")]
    return "\n".join(lines) + "\n"


ENTRY_POINTS = """[console_scripts]
ddbemu = ddbemu.__main__:main

[pytest11]
ddbemu = ddbemu.pytest_plugin
"""


def record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def build(version, arch, binary, out_dir, epoch):
    tags = PLATFORM_TAGS[arch]
    dist_info = f"ddbemu-{version}.dist-info"
    files = {}  # archive name -> (bytes, mode)
    for name in sorted(os.listdir(SRC)):
        path = os.path.join(SRC, name)
        if name.endswith(".py") or name == "py.typed":
            with open(path, "rb") as f:
                data = f.read()
            if name == "__init__.py":
                data = data.replace(b"@VERSION@", version.encode("ascii"))
            files[f"ddbemu/{name}"] = (data, 0o644)
    with open(binary, "rb") as f:
        files["ddbemu/bin/ddbemu"] = (f.read(), 0o755)
    files[f"{dist_info}/METADATA"] = (metadata(version).encode("utf-8"), 0o644)
    files[f"{dist_info}/WHEEL"] = (wheel_file(tags).encode("ascii"), 0o644)
    files[f"{dist_info}/entry_points.txt"] = (ENTRY_POINTS.encode("ascii"), 0o644)
    files[f"{dist_info}/top_level.txt"] = (b"ddbemu\n", 0o644)

    record_name = f"{dist_info}/RECORD"
    # The package first, the .dist-info last, RECORD at the very end (PEP 427).
    order = sorted(files, key=lambda n: (n.startswith(dist_info), n))
    record = "".join(f"{n},{record_hash(files[n][0])},{len(files[n][0])}\n" for n in order)
    record += f"{record_name},,\n"
    files[record_name] = (record.encode("ascii"), 0o644)
    order.append(record_name)

    os.makedirs(out_dir, exist_ok=True)
    wheel_path = os.path.join(out_dir, f"ddbemu-{version}-py3-none-{tags}.whl")
    date_time = zipfile_date(epoch)
    with zipfile.ZipFile(wheel_path + ".tmp", "w") as zf:
        for name in order:
            data, mode = files[name]
            info = zipfile.ZipInfo(name, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that the mode below is honoured
            info.external_attr = (stat.S_IFREG | mode) << 16
            zf.writestr(info, data, compresslevel=9)
    os.replace(wheel_path + ".tmp", wheel_path)
    return wheel_path


def zipfile_date(epoch):
    import time

    epoch = max(epoch, 315532800)  # zip cannot say anything before 1980-01-01
    return time.gmtime(epoch)[:6]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", required=True)
    parser.add_argument("--arch", required=True, choices=sorted(PLATFORM_TAGS))
    parser.add_argument("--binary", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if not PEP440.match(args.version):
        sys.exit(f"make_wheel.py: version {args.version!r} is not a PEP 440 version")
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    print(build(args.version, args.arch, args.binary, args.out, epoch))


if __name__ == "__main__":
    main()
