#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""scripts/sbom.py - the SPDX 2.3 JSON SBOM of the static release binaries.

    scripts/sbom.py --version V --commit C --created EPOCH \
        --rebuilt DIR NAME VERSION [--rebuilt ...] \
        BINARY MAP DEBARCH [BINARY MAP DEBARCH ...] > sbom.spdx.json

What went into each binary is read from the linker's own account of it, the
map file (-Wl,-Map): every archive one of whose members was linked, and every
object file loaded. An absolute path under a --rebuilt DIR is that library,
rebuilt from its Debian source package at VERSION (libmicrohttpd without
HTTPS); any other absolute path must belong to an installed Debian package,
named with its exact version by dpkg -S / dpkg-query; a relative path is the
project's own build output. A path that is none of these stops the SBOM:
nothing linked goes unlisted.

Why SPDX and not CycloneDX: SPDX 2.3 has the relationship this document
exists to state, STATIC_LINK (the binary file statically links the package),
and Debian's packages are named the way SPDX tools expect (purl pkg:deb).
The document is reproducible: its time is SOURCE_DATE_EPOCH, its namespace a
UUID derived from the binaries' hashes, and its lists are sorted.
"""

import argparse
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
import uuid

ARCHIVE_MEMBER = re.compile(r"^(/\S+\.a)\((.+?)\)")
LOAD = re.compile(r"^LOAD (\S+)$")


def linked_paths(map_path):
    """The archives that contributed members and the objects loaded."""
    paths = set()
    with open(map_path, encoding="utf-8", errors="replace") as f:
        in_members = False
        for line in f:
            if line.startswith("Archive member included"):
                in_members = True
                continue
            if in_members:
                if line.startswith(("Discarded input sections", "Memory Configuration",
                                    "Allocating common symbols")):
                    in_members = False
                else:
                    m = ARCHIVE_MEMBER.match(line)
                    if m:
                        paths.add(m.group(1))
                    continue
            m = LOAD.match(line.strip())
            if m and not m.group(1).endswith(".a"):
                paths.add(m.group(1))
    return paths


def candidates(path):
    """The spellings under which dpkg may have recorded a file."""
    names = [os.path.realpath(path), os.path.normpath(path)]
    names += [n[len("/usr"):] for n in names if n.startswith("/usr/")]  # merged /usr
    return list(dict.fromkeys(names))


def dpkg_owners(paths):
    """{path: (package, arch, version, source, source version)} for the
    installed files among paths: one dpkg -S for all (each run reads the
    whole database)."""
    names = sorted({c for p in paths for c in candidates(p)})
    if not names:
        return {}
    found = subprocess.run(["dpkg", "-S", *names], capture_output=True, text=True).stdout
    by_name = {}
    for line in found.splitlines():
        pkg, _, name = line.rpartition(": ")
        by_name[name] = pkg.split(",")[0].strip()
    owners, details = {}, {}
    for p in paths:
        pkg = next((by_name[c] for c in candidates(p) if c in by_name), None)
        if pkg is None:
            continue
        if pkg not in details:
            q = subprocess.run(
                ["dpkg-query", "-W", "-f=${Package}\t${Architecture}\t${Version}\t"
                 "${source:Package}\t${source:Version}", pkg],
                capture_output=True, text=True, check=True)
            details[pkg] = tuple(q.stdout.split("\t"))
        owners[p] = details[pkg]
    return owners


def sha(path, algorithm):
    h = hashlib.new(algorithm)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]+", "-", text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--created", type=int, required=True)
    ap.add_argument("--base", required=True, help="file names are relative to this directory")
    ap.add_argument("--rebuilt", nargs=3, action="append", default=[],
                    metavar=("DIR", "NAME", "VERSION"))
    ap.add_argument("binaries", nargs="+", help="BINARY MAP DEBARCH triples")
    args = ap.parse_args()
    if len(args.binaries) % 3:
        ap.error("binaries come as BINARY MAP DEBARCH triples")

    codename = "debian-" + open("/etc/debian_version").read().split(".")[0].strip()
    packages, files, relationships = {}, [], []
    root_id = "SPDXRef-ddbemu"
    relationships.append({"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES",
                          "relatedSpdxElement": root_id})
    triples = [args.binaries[i:i + 3] for i in range(0, len(args.binaries), 3)]
    for binary, map_path, debarch in triples:
        name = "./" + os.path.relpath(binary, args.base)
        file_id = spdx_id("File-" + os.path.basename(binary))
        files.append({
            "fileName": name, "SPDXID": file_id,
            "checksums": [{"algorithm": "SHA1", "checksumValue": sha(binary, "sha1")},
                          {"algorithm": "SHA256", "checksumValue": sha(binary, "sha256")}],
            "fileTypes": ["BINARY"], "licenseConcluded": "NOASSERTION",
            "copyrightText": "NOASSERTION",
        })
        relationships.append({"spdxElementId": root_id, "relationshipType": "CONTAINS",
                              "relatedSpdxElement": file_id})
        linked = {}
        paths = sorted(linked_paths(map_path))
        owners = dpkg_owners([p for p in paths if p.startswith("/")])
        for path in paths:
            if not path.startswith("/"):
                continue  # the project's own objects and archives
            real = os.path.realpath(path)
            rebuilt = [r for r in args.rebuilt if real.startswith(os.path.realpath(r[0]) + "/")]
            if rebuilt:
                _, pname, pversion = rebuilt[0]
                key = ("rebuilt", pname, pversion, debarch)
                linked.setdefault(key, set()).add(os.path.basename(real))
                continue
            owner = owners.get(path)
            if owner is None:
                sys.exit(f"sbom: {path} was linked into {binary} but no package owns it")
            linked.setdefault(("deb",) + owner, set()).add(os.path.basename(real))
        for key, members in sorted(linked.items()):
            if key[0] == "rebuilt":
                _, pname, pversion, arch = key
                pid = spdx_id(f"rebuilt-{pname}-{arch}")
                package = {
                    "name": pname, "SPDXID": pid, "versionInfo": pversion,
                    "sourceInfo": f"rebuilt by scripts/static-build from Debian's source package "
                                  f"{pname} {pversion} for {arch}, without HTTPS",
                    "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER",
                                      "referenceType": "purl",
                                      "referenceLocator": f"pkg:deb/debian/{pname}@{pversion}"
                                                          f"?arch=source&distro={codename}"}],
                }
            else:
                _, pname, parch, pversion, source, sversion = key
                pid = spdx_id(f"deb-{pname}-{parch}")
                package = {
                    "name": pname, "SPDXID": pid, "versionInfo": pversion,
                    "supplier": "Organization: Debian",
                    "sourceInfo": f"Debian binary package built from source package "
                                  f"{source or pname} {sversion or pversion}",
                    "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER",
                                      "referenceType": "purl",
                                      "referenceLocator": f"pkg:deb/debian/{pname}@{pversion}"
                                                          f"?arch={parch}&distro={codename}"}],
                }
            package.update({
                "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
                "licenseConcluded": "NOASSERTION", "licenseDeclared": "NOASSERTION",
                "copyrightText": "NOASSERTION",
                "comment": "linked from: " + ", ".join(sorted(members)),
            })
            packages.setdefault(pid, package)
            relationships.append({"spdxElementId": file_id, "relationshipType": "STATIC_LINK",
                                  "relatedSpdxElement": pid})

    digest = hashlib.sha256("".join(f["checksums"][1]["checksumValue"] for f in files).encode())
    created = datetime.datetime.fromtimestamp(args.created, datetime.timezone.utc)
    document = {
        "spdxVersion": "SPDX-2.3", "dataLicense": "CC0-1.0", "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"ddbemu-{args.version}",
        "documentNamespace": "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL,
                                                          f"ddbemu/{args.version}/"
                                                          f"{args.commit}/{digest.hexdigest()}")),
        "creationInfo": {"created": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "creators": ["Tool: ddbemu-scripts-sbom.py"]},
        "packages": [{
            "name": "ddbemu", "SPDXID": root_id, "versionInfo": args.version,
            "sourceInfo": f"built from commit {args.commit}",
            "downloadLocation": "NOASSERTION", "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION", "licenseDeclared": "MIT",
            "copyrightText": "NOASSERTION",
        }] + [packages[k] for k in sorted(packages)],
        "files": files,
        "relationships": relationships,
    }
    json.dump(document, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
