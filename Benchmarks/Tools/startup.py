#!/usr/bin/env python3
"""Whole-process measurements of the BeeHive registration benchmarks.

    startup.py run   times the startup programs (one per mechanism and N) from exec to "registry ready"
    startup.py scan  times the annotation scan with 0, 10, 50 extra shared libraries loaded
    startup.py instructions  counts instructions per registration with valgrind (no PMU on this VM)

How `run` measures: the driver reads CLOCK_MONOTONIC, then spawns the program; the program builds its
registry, reads CLOCK_MONOTONIC again and prints it (`ready_ns=`), then counts what it registered and
exits 1 if that is fewer than N. Both clocks are the same system-wide clock, so `ready - spawn` is the
time from the spawn to a ready registry: process creation, exec, dynamic loading (Foundation),
the BeeHive constructor's scan, Swift runtime start-up, and the mechanism's work. The time to exit is
recorded too. Programs run round-robin (one of each per round, after two warm-up rounds), so a slow
moment of the machine hits every mechanism alike; the medians over the rounds are reported, and the
baseline program (Foundation-linked, registers nothing) gives the floor to subtract.

Output: JSON on stdout or --out. Bad arguments exit 2 with a usage message.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

MECHANISMS = ("annotations", "plist", "json", "explicit", "explicit-typed", "swinject")
ROOT = Path(__file__).resolve().parent.parent.parent  # the repository


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        self.print_usage(sys.stderr)
        self.exit(2, f"startup.py: error: {message}\n")


def positive_list(text: str) -> list[int]:
    values = []
    for item in text.split(","):
        try:
            value = int(item.strip().replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive integer; found '{item}'") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"expected N > 0; found {value}")
        values.append(value)
    return values


def count_list(text: str) -> list[int]:
    values = []
    for item in text.split(","):
        try:
            value = int(item.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a count >= 0; found '{item}'") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"expected a count >= 0; found {value}")
        values.append(value)
    return values


def mechanism_list(text: str) -> list[str]:
    if text == "all":
        return list(MECHANISMS)
    names = [item.strip() for item in text.split(",")]
    for name in names:
        if name not in MECHANISMS:
            raise argparse.ArgumentTypeError(f"unknown mechanism '{name}' (choose from all, {', '.join(MECHANISMS)})")
    return names


def program_name(mechanism: str, n: int) -> str:
    return "Startup" + "".join(part.capitalize() for part in mechanism.split("-")) + str(n)


def spawn_once(path: Path, env: dict[str, str] | None = None) -> tuple[int, int, str]:
    """Runs one program; returns (ready - spawn, exit - spawn, stdout)."""
    start = time.monotonic_ns()
    process = subprocess.Popen([str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out, err = process.communicate()
    end = time.monotonic_ns()
    text = out.decode()
    if process.returncode != 0:
        raise SystemExit(f"startup.py: {path.name} failed (exit {process.returncode}): {err.decode().strip()}")
    match = re.search(r"ready_ns=(\d+)", text)
    if not match:
        raise SystemExit(f"startup.py: {path.name} printed no ready_ns: {text!r}")
    return int(match.group(1)) - start, end - start, text


def run(args: argparse.Namespace) -> dict:
    programs = [("baseline", 0, args.bin / "StartupBaseline")]
    for n in args.n:
        for mechanism in args.mechanism:
            programs.append((mechanism, n, args.bin / program_name(mechanism, n)))
    for _, _, path in programs:
        if not path.exists():
            raise SystemExit(f"startup.py: {path} is not built (is tier {path.name} in BEEHIVE_BENCH_TIERS?)")
    ready: dict[str, list[int]] = {str(p): [] for _, _, p in programs}
    exited: dict[str, list[int]] = {str(p): [] for _, _, p in programs}
    for round_index in range(args.runs + 2):
        for mechanism, n, path in programs:
            to_ready, to_exit, text = spawn_once(path)
            if mechanism != "baseline":
                match = re.search(r"registered=(\d+)", text)
                if not match or int(match.group(1)) < n:
                    raise SystemExit(f"startup.py: {path.name} registered fewer than {n}: {text!r}")
            if round_index >= 2:  # two warm-up rounds: page cache, dynamic loader caches
                ready[str(path)].append(to_ready)
                exited[str(path)].append(to_exit)
    baseline = statistics.median(ready[str(programs[0][2])])
    results = []
    for mechanism, n, path in programs:
        median_ready = statistics.median(ready[str(path)])
        results.append({
            "mechanism": mechanism,
            "n": n,
            "program": path.name,
            "runs": len(ready[str(path)]),
            "readyMedianNs": median_ready,
            "readyMinNs": min(ready[str(path)]),
            "exitMedianNs": statistics.median(exited[str(path)]),
            "overBaselineNs": median_ready - baseline,
        })
    return {"kind": "startup", "runs": args.runs, "results": results}


# ---- Scan cost with extra images --------------------------------------------------------------------------------

PLAIN_SOURCE = "int bh_pad_{i}(void) {{ return {i}; }}\n"
RECORD_SOURCE = """#include <beehive.h>
BH_SERVICE(Pad{i}.Service, Pad{i}.Impl)
int bh_pad_{i}(void) {{ return {i}; }}
"""


def build_libraries(work: Path, count: int, compiler: str) -> dict[str, str]:
    """Builds `count` tiny shared libraries of each kind; returns the path prefix of each kind."""
    # The BeeHive checkout measured (BEEHIVE_PATH, as Package.swift reads it): its header writes the records its
    # scanner reads.
    include = Path(os.environ.get("BEEHIVE_PATH") or ROOT) / "CSupport" / "CBeeHive" / "include"
    # The headers' digest: a library built with another beehive.h or bh_format.h (another record format) is rebuilt.
    headers = [include / "beehive.h", include.parent.parent / "_BeeHiveFormat" / "include" / "bh_format.h"]
    digest = hashlib.sha256(b"".join(h.read_bytes() for h in headers if h.exists())).hexdigest()[:16]
    prefixes = {}
    for kind, template in (("plain", PLAIN_SOURCE), ("records", RECORD_SOURCE)):
        directory = work / kind
        directory.mkdir(parents=True, exist_ok=True)
        for i in range(count):
            library = directory / f"libbhpad{i}.so"
            source = directory / f"libbhpad{i}.c"
            text = f"/* beehive.h from {include}, {digest} */\n" + template.format(i=i)  # another header: rebuilt
            if library.exists() and source.exists() and source.read_text() == text:
                continue
            source.write_text(text)
            subprocess.run(
                [compiler, "-shared", "-fPIC", "-O2", f"-I{include}", "-o", str(library), str(source)], check=True)
        prefixes[kind] = str(directory / "libbhpad")
    return prefixes


def scan(args: argparse.Namespace) -> dict:
    tool = args.bin / "ScanCost"
    if not tool.exists():
        raise SystemExit(f"startup.py: {tool} is not built")
    prefixes = build_libraries(args.work, max(args.counts), args.cc)
    results = []
    for kind in ("plain", "records"):
        for count in args.counts:
            command = [str(tool), "--libs", prefixes[kind], "--count", str(count), "--repeat", str(args.repeat),
                       "--rescans", str(args.rescans)]
            output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            result = json.loads(output)
            if kind == "records" and result["servicesRegistered"] != count:
                registered = result["servicesRegistered"]
                raise SystemExit(f"startup.py: {count} libraries with records registered {registered} services")
            # The startup scanner, with the same libraries loaded at exec (LD_PRELOAD): one sample per process.
            startup = []
            preload = " ".join(f"{prefixes[kind]}{i}.so" for i in range(count))
            for _ in range(args.startup_runs):
                env = dict(os.environ)
                if preload:
                    env["LD_PRELOAD"] = preload
                sample = subprocess.run([str(tool), "--count", "0", "--repeat", "1", "--rescans", "1"], check=True,
                                        capture_output=True, text=True, env=env).stdout
                startup.append(json.loads(sample))
            result["kind"] = kind
            result["startupImages"] = startup[0]["startupImages"]
            result["startupScanMedianNs"] = statistics.median(s["startupScanNs"] for s in startup)
            result["startupOpenMedianNs"] = statistics.median(s.get("startupOpenNs", 0) for s in startup)
            results.append(result)
    return {"kind": "scan", "results": results}


def instructions(args: argparse.Namespace) -> dict:
    """Instructions of one registration: (run with K registrations - run with 0) / K, under callgrind."""
    built = args.bin / "Profile"
    if not built.exists():
        raise SystemExit(f"startup.py: {built} is not built")
    # valgrind 3.19 cannot read the DWARF 5 that Swift 6.3 writes ("Possibly corrupted debuginfo file"):
    # count a copy without debug info; the symbol table still names the functions.
    tool = args.bin / "Profile.nodebug"
    shutil.copyfile(built, tool)
    tool.chmod(0o755)
    subprocess.run(["strip", "--strip-debug", str(tool)], check=True)

    def collected(mechanism: str, repetitions: int) -> int:
        command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", str(tool), mechanism,
                   str(args.n), str(repetitions)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stderr
        match = re.search(r"Collected : (\d+)", output)
        if not match:
            raise SystemExit(f"startup.py: no instruction count from valgrind for {mechanism}: {output[-500:]}")
        return int(match.group(1))

    def allocations(kind: str, repetitions: int) -> int:
        command = ["valgrind", "--tool=memcheck", str(tool), kind, str(args.n), str(repetitions)]
        output = subprocess.run(command, check=True, capture_output=True, text=True).stderr
        match = re.search(r"total heap usage: ([\d,]+) allocs", output)
        if not match:
            raise SystemExit(f"startup.py: no allocation count from valgrind for {kind}: {output[-500:]}")
        return int(match.group(1).replace(",", ""))

    result: dict = {"kind": "instructions", "n": args.n, "repetitions": args.repeat}
    for mechanism in args.mechanism + ["empty"]:
        result[mechanism] = (collected(mechanism, args.repeat) - collected(mechanism, 0)) / args.repeat
    # Allocations per resolution, counted by memcheck (independent of package-benchmark's interposer).
    resolves = 10_000
    result["allocationsPerResolve"] = {
        kind: (allocations(f"resolve-{kind}", resolves) - allocations(f"resolve-{kind}", 0)) / resolves
        for kind in ("singleton", "by-name", "transient")
    }
    return result


def main(argv: list[str]) -> int:
    parser = Parser(prog="startup.py", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    run_parser = commands.add_parser("run", help="time the startup programs")
    run_parser.add_argument("--bin", type=Path, required=True, help="the release build folder")
    run_parser.add_argument("--n", type=positive_list, default=[1000, 10000], metavar="N[,N...]")
    run_parser.add_argument("--mechanism", type=mechanism_list, default=list(MECHANISMS), metavar="all|M[,M...]",
                            help="mechanisms: " + ", ".join(MECHANISMS))
    run_parser.add_argument("--runs", type=int, default=30, help="measured rounds (> 0)")
    run_parser.add_argument("--out", type=Path)
    scan_parser = commands.add_parser("scan", help="time the scan as the number of loaded images grows")
    scan_parser.add_argument("--bin", type=Path, required=True, help="the release build folder")
    scan_parser.add_argument("--work", type=Path, required=True, help="where to build the extra libraries")
    scan_parser.add_argument("--counts", type=count_list, default=[0, 10, 50], metavar="K[,K...]")
    scan_parser.add_argument("--repeat", type=int, default=200, help="scans per configuration (> 0)")
    scan_parser.add_argument("--rescans", type=int, default=100000, help="rescans per configuration (> 0)")
    scan_parser.add_argument("--startup-runs", type=int, default=15, help="processes per startup-scan sample")
    scan_parser.add_argument("--cc", default=os.environ.get("CC", "cc"), help="C compiler for the libraries")
    scan_parser.add_argument("--out", type=Path)
    count_parser = commands.add_parser("instructions", help="count instructions per registration (valgrind)")
    count_parser.add_argument("--bin", type=Path, required=True, help="the release build folder")
    count_parser.add_argument("--n", type=int, default=1000, help="the tier (> 0, compiled in)")
    count_parser.add_argument("--mechanism", type=mechanism_list, default=list(MECHANISMS), metavar="all|M[,M...]")
    count_parser.add_argument("--repeat", type=int, default=10, help="registrations counted (> 0)")
    count_parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.command == "instructions" and args.n <= 0:
        parser.error(f"expected N > 0; found {args.n}")
    for name in ("runs", "repeat", "rescans", "startup_runs"):
        if getattr(args, name, 1) <= 0:
            parser.error(f"--{name.replace('_', '-')} must be > 0")
    result = {"run": run, "scan": scan, "instructions": instructions}[args.command](args)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
