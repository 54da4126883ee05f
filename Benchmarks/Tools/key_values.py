#!/usr/bin/env python3
"""What a service key costs before `main`: a key declared as a type (what `@BeeHiveServiceKey` declares today) against
a key declared as a value.

A type key is an enum per protocol conforming to a `ServiceKey` protocol: its metadata and its witness table are data
the loader relocates when it maps the image (one relocation bound to a symbol, the empty tuple's value witnesses, and
four relative ones per key). A value key is a global constant of a generic struct holding the protocol's name,
`let ClockKey = Key<any Clock>("App.Clock")`: the compiler initializes it statically (one relative relocation, for
the name's address), and a key that holds an object instead (a `KeyObject` that `Key.init` makes) is made at its first
use, behind `swift_once`. The program declares N protocols and their keys in a module of their own; `none` runs `main`
without touching a key, `use` reads each key once. Counted with callgrind, release builds:

- before `main` per added key: (Ir(none, N) - Ir(none, 10)) / (N - 10);
- first use per added key: ((Ir(use, N) - Ir(none, N)) - (Ir(use, 10) - Ir(none, 10))) / (N - 10).

    python3 Benchmarks/Tools/key_values.py [--n 1000]

Needs swiftc (PATH or /opt/swift/usr/bin) and valgrind.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile

from metatype_floor import instructions

VARIANTS = {
    "type": (
        "public protocol ServiceKey { associatedtype Service; static var serviceName: String { get } }",
        "public enum P{i}Key: ServiceKey {{ public typealias Service = any P{i}; "
        "public static var serviceName: String {{ \"M.P{i}\" }} }}",
        "P{i}Key.serviceName.utf8.count",
    ),
    "value": (
        "public struct Key<Service> { public let name: StaticString; "
        "@inlinable public init(_ name: StaticString) { self.name = name } }",
        "public let P{i}Key = Key<any P{i}>(\"M.P{i}\")",
        "P{i}Key.name.utf8CodeUnitCount",
    ),
    "value with an object": (
        "public final class KeyObject { public let name: StaticString; "
        "public init(name: StaticString) { self.name = name } }\n"
        "public struct Key<Service> { public let object: KeyObject; "
        "public init(_ name: StaticString) { object = KeyObject(name: name) } }",
        "public let P{i}Key = Key<any P{i}>(\"M.P{i}\")",
        "P{i}Key.object.name.utf8CodeUnitCount",
    ),
}


def build(variant: str, n: int, directory: str, swiftc: str) -> str:
    """Writes and builds the program of `variant` with N keys; returns the binary's path."""
    preamble, key, read = VARIANTS[variant]
    root = os.path.join(directory, f"{variant.replace(' ', '_')}{n}")
    os.makedirs(root, exist_ok=True)
    keys = [preamble]
    for i in range(n):
        keys += [f"public protocol P{i} {{ func value() -> Int }}", key.format(i=i)]
    main = ["@inline(never) func use() -> Int {", "    var sum = 0"]
    main += [f"    sum &+= {read.format(i=i)}" for i in range(n)]
    main += ["    return sum", "}", "if CommandLine.arguments.count > 1 { print(use()) }"]
    for name, lines in (("keys.swift", keys), ("main.swift", main)):
        with open(os.path.join(root, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    binary = os.path.join(root, "program")
    subprocess.run([swiftc, "-O", "-wmo", "-module-name", "M", os.path.join(root, "keys.swift"),
                    os.path.join(root, "main.swift"), "-o", binary], check=True)
    return binary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    n = parser.parse_args().n
    swiftc = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    with tempfile.TemporaryDirectory() as directory:
        print(f"| key (N = {n:,}) | relocations | before `main` per added key | first use per added key |")
        print("|---|---:|---:|---:|")
        for variant in VARIANTS:
            small, large = build(variant, 10, directory, swiftc), build(variant, n, directory, swiftc)
            relocations = subprocess.run(["readelf", "-rW", large], capture_output=True, text=True).stdout
            none_small, use_small = (instructions(small, args, directory) for args in ([], ["use"]))
            none_large, use_large = (instructions(large, args, directory) for args in ([], ["use"]))
            first_use = (use_large - none_large) - (use_small - none_small)
            print(f"| {variant} | {relocations.count('R_X86_64_'):,} | {round((none_large - none_small) / (n - 10))} "
                  f"| {round(first_use / (n - 10))} |")


if __name__ == "__main__":
    main()
