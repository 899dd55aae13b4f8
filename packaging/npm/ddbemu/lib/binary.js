// SPDX-License-Identifier: MIT
//
// binary.js - where the ddbemu binary for this machine is.
//
// The binaries live in one package per platform (@ddbemu/linux-x64, ...),
// each listed in this package's optionalDependencies with "os" and "cpu"
// fields, so npm installs only the one that matches the machine (the way
// esbuild ships its binaries): nothing is downloaded or built at install time
// and the package has no install scripts. DDBEMU_BIN overrides the lookup, for
// a binary built from source or a platform without a package.
"use strict";

const PLATFORM_PACKAGES = {
  "linux-x64": "@ddbemu/linux-x64",
  "linux-arm64": "@ddbemu/linux-arm64",
};

function binaryPath() {
  const override = process.env.DDBEMU_BIN;
  if (override) return override;
  const platform = `${process.platform}-${process.arch}`;
  const pkg = PLATFORM_PACKAGES[platform];
  if (!pkg) {
    throw new Error(
      `ddbemu has no prebuilt binary for ${platform} (there are: ` +
        `${Object.keys(PLATFORM_PACKAGES).join(", ")}); build it from source and ` +
        "set DDBEMU_BIN to its path",
    );
  }
  try {
    return require.resolve(`${pkg}/bin/ddbemu`);
  } catch (err) {
    throw new Error(
      `ddbemu's binary package ${pkg} is not installed. It is an optional ` +
        "dependency of ddbemu: an install with --omit=optional (or --no-optional), " +
        "or a lockfile made on another platform, leaves it out. Reinstall ddbemu " +
        `without that option, or add ${pkg} explicitly. (${err.message})`,
    );
  }
}

module.exports = { binaryPath, PLATFORM_PACKAGES };
