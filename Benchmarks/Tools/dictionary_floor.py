#!/usr/bin/env python3
"""First use of a hand-written container keyed by type: the floor issue 20 compares a container's first use with.

A dictionary keyed by `ObjectIdentifier(P.self)` of closures, one per service, each returning its service's shared
instance (made by the closure's first call: every service a singleton, like for like with the startup fixtures), in
two shapes:

    cast    `[ObjectIdentifier: () -> Any]` and `as! any P` on the way out (the shape `CachedResolve` measures per
            call): the cast asks the runtime whether the instance's type conforms to `P`, and its first answer for
            each type scans every conformance record of the process
    typed   `[ObjectIdentifier: Any]` holding each closure as `() -> any P`, cast back to that function type: the cast
            compares the function type's metadata and looks no conformance up

N protocols with mixed implementations as the fixtures have them (a third final classes, a third structs, a third
types nested in an enum); a release build; counted as `firstuse.py` counts the startup programs, one process per mode:
registration = Ir(register) - Ir(none), first use = Ir(type) - Ir(register). Registration names every `(any P).self`
for its key, so its first use finds those metatypes made; registration and first use together are what compares with
a mechanism that names them at its first use (the Swift macros).

    python3 Benchmarks/Tools/dictionary_floor.py [--n 1000]

Needs swiftc (PATH or /opt/swift/usr/bin) and valgrind.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from metatype_floor import instructions


def implementation(i: int) -> str:
    return (f"Impl{i}", f"Impl{i}", f"Group{i}.Impl{i}")[i % 3]


def declarations(i: int) -> list[str]:
    protocol = f"public protocol Service{i} {{ func value() -> Int }}"
    if i % 3 == 0:
        return [protocol, f"public final class Impl{i}: Service{i} {{ public init() {{}}; "
                          f"public func value() -> Int {{ {i} }} }}"]
    if i % 3 == 1:
        return [protocol, f"public struct Impl{i}: Service{i} {{ public init() {{}}; "
                          f"public func value() -> Int {{ {i} }} }}"]
    return [protocol, f"public enum Group{i} {{ public struct Impl{i}: Service{i} {{ public init() {{}}; "
                      f"public func value() -> Int {{ {i} }} }} }}"]


def program(n: int, shape: str) -> str:
    lines = [line for i in range(n) for line in declarations(i)]
    lines += [
        f"var factories: [ObjectIdentifier: {'() -> Any' if shape == 'cast' else 'Any'}] = [:]",
        "@inline(never) func register() {",
        f"    factories.reserveCapacity({n})",
    ]
    for i in range(n):
        result = "Any" if shape == "cast" else f"any Service{i}"
        lines += [f"    var shared{i}: ({result})?",  # the closure's shared instance, made by its first call
                  f"    factories[ObjectIdentifier((any Service{i}).self)] = {{ () -> {result} in",
                  f"        if let instance = shared{i} {{ return instance }}",
                  f"        let made = {implementation(i)}()",
                  f"        shared{i} = made",
                  "        return made",
                  "    }"]
    lines += ["}", "var sum = 0", "@inline(never) func resolveEveryService() {"]
    for i in range(n):
        factory = f"factories[ObjectIdentifier((any Service{i}).self)]!"
        made = f"({factory}() as! any Service{i})" if shape == "cast" else f"({factory} as! () -> any Service{i})()"
        lines.append(f"    sum &+= {made}.value()")
    lines += ["}", "let mode = CommandLine.arguments.dropFirst().first ?? \"register\"",
              "if mode != \"none\" { register() }", "if mode == \"type\" { resolveEveryService() }", "print(sum)"]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="services (default 1000)")
    n = parser.parse_args().n
    if n <= 0:
        parser.error(f"expected --n > 0; found {n}")
    swiftc = shutil.which("swiftc") or "/opt/swift/usr/bin/swiftc"
    for shape in ("cast", "typed"):
        with tempfile.TemporaryDirectory() as directory:
            source = os.path.join(directory, "main.swift")
            with open(source, "w") as f:
                f.write(program(n, shape))
            binary = os.path.join(directory, "dictionary")
            subprocess.run([swiftc, "-O", source, "-o", binary], check=True)
            none = instructions(binary, ["none"], directory)
            registered = instructions(binary, ["register"], directory)
            resolved = instructions(binary, ["type"], directory)
        print(f"a dictionary of closures ({shape}), N = {n}, instructions per service (callgrind): registration "
              f"{(registered - none) / n:,.0f}, first use by type {(resolved - registered) / n:,.0f}, both "
              f"{(resolved - none) / n:,.0f}")


if __name__ == "__main__":
    sys.exit(main())
