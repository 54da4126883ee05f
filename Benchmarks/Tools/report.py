#!/usr/bin/env python3
"""Turns the benchmark exports into tables, target verdicts and a chart.

Inputs (all optional but --benchmarks):
  --benchmarks DIR   package-benchmark's `--format histogramPercentiles` export (one TSV per benchmark and metric)
  --startup FILE     `startup.py run` output
  --scan FILE        `startup.py scan` output
  --callgrind FILE   instruction counts from Scripts/benchmark.sh (valgrind), JSON {mechanism: instructions}
  --first-use FILE   `firstuse.py measure` output: registration and first use per mechanism and N (issue 11)
  --floors FILE      `floor_programs.py measure` output: the floor programs b2, b3, c, r, n, w of the same run
                     (issue 33)
Outputs:
  the tables on stdout (Markdown), and with --doc FILE the same between the GENERATED markers of FILE,
  with --svg FILE a chart of registration cost against N. With --first-use, only the registration and first-use
  tables are written (stdout, and with --doc between the FIRST-USE markers of FILE).
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import re
import subprocess
import sys
from pathlib import Path

MECHANISMS = ("annotations", "plist", "json", "explicit", "swinject")
LABELS = {
    "annotations": "(a) annotations",
    "plist": "(b) plist",
    "json": "(c) JSON",
    "explicit": "(d) explicit",
    "swinject": "(e) Swinject",
}
COLORS = {
    "annotations": "#d62728",
    "plist": "#1f77b4",
    "json": "#2ca02c",
    "explicit": "#111111",
    "swinject": "#ff7f0e",
}
METRIC_FILES = {"wallClock": "ns", "mallocCountTotal": "mallocs", "instructions": "instructions"}
BEGIN = "<!-- BEGIN GENERATED: Benchmarks/Tools/report.py -->"
FIRST_USE_BEGIN = "<!-- BEGIN GENERATED: Benchmarks/Tools/report.py --first-use -->"
FIRST_USE_END = "<!-- END GENERATED: first use -->"
END = "<!-- END GENERATED -->"
PER_SAMPLE = 1000  # resolve and rescan benchmarks make 1,000 calls per sample


def read_benchmarks(directory: Path) -> dict[str, dict[str, float]]:
    """{benchmark name: {metric: median}} from the percentile TSVs."""
    results: dict[str, dict[str, float]] = {}
    pattern = re.compile(r"^[^.]+\.BeeHiveBenchmarks\.(?P<name>.+)\.(?P<metric>[^.]+)\.histogram\.percentiles\.tsv$")
    for path in sorted(directory.glob("*.tsv")):
        match = pattern.match(path.name)
        if not match or match.group("metric") not in METRIC_FILES:
            continue
        lines = path.read_text().splitlines()
        # The header names the unit; large counts may be scaled to K, M or G.
        unit = re.search(r"\((K|M|G)\) \*$", lines[0])
        factor = {"K": 1e3, "M": 1e6, "G": 1e9}[unit.group(1)] if unit else 1.0
        rows = [line.split("\t") for line in lines[1:] if line.strip()]
        values = {int(p): float(v) * factor for p, v in rows}
        name = match.group("name").replace("_", "/")
        results.setdefault(name, {})[METRIC_FILES[match.group("metric")]] = values[50]
    return results


def fmt_time(ns: float | None) -> str:
    if ns is None:
        return "–"
    if ns >= 1e9:
        return f"{ns / 1e9:.2f} s"
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.1f} µs"
    return f"{ns:.0f} ns"


def fmt_ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}×"


def harness_mallocs(results: dict) -> float:
    """Allocations the harness itself makes per sample (`overhead/empty-x1000`), subtracted from every
    sample's count; 0 when not measured."""
    return results.get("overhead/empty-x1000", {}).get("mallocs", 0.0)


def net_mallocs(results: dict, value: float | None) -> float | None:
    return None if value is None else max(0.0, value - harness_mallocs(results))


def registration(results: dict, mechanism: str, n: int, metric: str = "ns") -> float | None:
    value = results.get(f"register/{mechanism}/{n}", {}).get(metric)
    return net_mallocs(results, value) if metric == "mallocs" else value


def tiers_of(results: dict) -> list[int]:
    return sorted({int(name.split("/")[2]) for name in results if name.startswith("register/")})


def machine() -> list[str]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        swift = "unknown"
    try:
        import os

        cores = os.cpu_count()
    except Exception:  # noqa: BLE001
        cores = "?"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
    except OSError:
        commit = "?"
    return [
        f"- CPU: {cpu}, {cores} cores (`nproc`), {platform.machine()}",
        f"- Kernel: Linux {platform.release()}",
        f"- Swift: {swift}",
        f"- Commit: {commit or '?'} (with the working tree as it was)",
    ]


def registration_tables(results: dict, callgrind: dict | None) -> tuple[list[str], dict]:
    lines: list[str] = []
    verdicts: dict = {}
    tiers = tiers_of(results)
    if not tiers:
        return lines, verdicts
    lines += ["### Registration: a new registry holding N services (median wall clock; mallocs)", ""]
    lines += [f"Mallocs are per sample, less the harness's own {harness_mallocs(results):.0f} per sample "
              "(measured by `overhead/empty-x1000`).", ""]
    lines.append("| N | " + " | ".join(LABELS[m] for m in MECHANISMS) + " |")
    lines.append("|---:|" + "---:|" * len(MECHANISMS))
    for n in tiers:
        cells = []
        for m in MECHANISMS:
            ns = registration(results, m, n)
            mallocs = registration(results, m, n, "mallocs")
            cells.append(fmt_time(ns) + (f" ({mallocs:.0f})" if mallocs is not None else ""))
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines += ["", "### Ratios against (d) explicit registration (median wall clock; lower is faster)", ""]
    lines.append("| N | " + " | ".join(LABELS[m] for m in MECHANISMS) + " |")
    lines.append("|---:|" + "---:|" * len(MECHANISMS))
    for n in tiers:
        explicit = registration(results, "explicit", n)
        cells = []
        for m in MECHANISMS:
            ns = registration(results, m, n)
            cells.append(fmt_ratio(ns / explicit if ns and explicit else None))
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines += ["", "### Cost per service (median wall clock / N)", ""]
    lines.append("| N | " + " | ".join(LABELS[m] for m in MECHANISMS) + " |")
    lines.append("|---:|" + "---:|" * len(MECHANISMS))
    for n in tiers:
        costs = [registration(results, m, n) for m in MECHANISMS]
        cells = [fmt_time(cost / n) if cost else "–" for cost in costs]
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    if callgrind:
        n = callgrind.get("n")
        lines += ["", f"### Instructions per registration of N = {n:,} (valgrind callgrind; this VM has no PMU)", ""]
        lines.append("| " + " | ".join(LABELS[m] for m in MECHANISMS if m in callgrind) + " | `Hive()` alone |")
        lines.append("|" + "---:|" * (sum(1 for m in MECHANISMS if m in callgrind) + 1))
        lines.append("| " + " | ".join(f"{callgrind[m] / 1e6:.2f} M" for m in MECHANISMS if m in callgrind)
                     + f" | {callgrind.get('empty', 0) / 1e3:.1f} K |")
        if "explicit" in callgrind:
            lines.append("| " + " | ".join(fmt_ratio(callgrind[m] / callgrind["explicit"])
                                          for m in MECHANISMS if m in callgrind) + " | |")
    # Targets at N = 1,000.
    if 1000 in tiers:
        a, b, c, d = (registration(results, m, 1000) for m in ("annotations", "plist", "json", "explicit"))
        if a and d:
            verdicts["registration, N = 1,000: annotations ≤ 1.5× explicit (median wall clock)"] = (a / d, a / d <= 1.5, f"{a / d:.2f}×")
        if a and b:
            verdicts["registration, N = 1,000: annotations ≥ 5× faster than plist (median wall clock)"] = (b / a, b / a >= 5, f"{b / a:.1f}× faster")
        if a and c:
            verdicts["registration, N = 1,000: annotations ≥ 3× faster than JSON (median wall clock)"] = (c / a, c / a >= 3, f"{c / a:.1f}× faster")
    # Linearity: the marginal cost per service between consecutive tiers.
    if len(tiers) >= 3:
        lines += ["", "### Linearity: marginal cost per added service between tiers", ""]
        spans = list(zip(tiers[1:-1], tiers[2:]))
        lines.append("| mechanism | " + " | ".join(f"{lo:,}→{hi:,}" for lo, hi in [(tiers[0], tiers[1])] + spans)
                     + " | last / previous |")
        lines.append("|---|" + "---:|" * (len(spans) + 2))
        worst = 0.0
        for m in MECHANISMS:
            marginals = []
            for lo, hi in [(tiers[0], tiers[1])] + spans:
                clo, chi = registration(results, m, lo), registration(results, m, hi)
                marginals.append((chi - clo) / (hi - lo) if clo and chi else None)
            growth = marginals[-1] / marginals[-2] if marginals[-1] and marginals[-2] else None
            if growth:
                worst = max(worst, growth)
            lines.append(f"| {LABELS[m]} | " + " | ".join(fmt_time(x) for x in marginals) + f" | {fmt_ratio(growth)} |")
        verdicts["registration cost grows linearly with N (median wall clock; marginal cost per service, last span ≤ 1.5× the one before)"] = (
            worst, worst <= 1.5, f"worst {worst:.2f}×")
    return lines, verdicts


def resolve_tables(results: dict, counted: dict | None) -> tuple[list[str], dict]:
    rows = [
        ("BeeHive: cached singleton, by type", "resolve/beehive/singleton-x1000"),
        ("BeeHive: new instance, by type", "resolve/beehive/transient-x1000"),
        ("BeeHive: cached singleton, by name", "resolve/beehive/by-name-x1000"),
        ("Swinject: `.container` scope", "resolve/swinject/singleton-x1000"),
        ("Swinject: `.transient` scope", "resolve/swinject/transient-x1000"),
    ]
    if not any(key in results for _, key in rows):
        return [], {}
    memcheck = (counted or {}).get("allocationsPerResolve", {})
    memcheck_keys = {"resolve/beehive/singleton-x1000": "singleton", "resolve/beehive/transient-x1000": "transient",
                     "resolve/beehive/by-name-x1000": "by-name"}
    lines = ["", "### Resolve: one resolution (median of samples of 1,000, divided by 1,000)", ""]
    lines += ["Mallocs: package-benchmark's count per sample less the harness's own, divided by 1,000; and,\n"
              "independently, valgrind memcheck's total allocations of 10,000 resolutions less those of none,\n"
              "divided by 10,000 (`--full` only).", ""]
    lines += ["| resolution | time | mallocs | mallocs (memcheck) |", "|---|---:|---:|---:|"]
    for label, key in rows:
        value = results.get(key, {})
        ns = value.get("ns")
        mallocs = net_mallocs(results, value.get("mallocs"))
        checked = memcheck.get(memcheck_keys.get(key, ""))
        lines.append(f"| {label} | {fmt_time(ns / PER_SAMPLE) if ns else '–'} | "
                     + (f"{mallocs / PER_SAMPLE:.3g}" if mallocs is not None else "–") + " | "
                     + (f"{checked:.3g}" if checked is not None else "–") + " |")
    verdicts = {}
    single = results.get("resolve/beehive/singleton-x1000", {})
    swinject = results.get("resolve/swinject/singleton-x1000", {})
    if single.get("ns") and swinject.get("ns"):
        ratio = single["ns"] / swinject["ns"]
        verdicts["resolve: cached singleton ≤ 0.5× Swinject's resolve (median wall clock)"] = (ratio, ratio <= 0.5, f"{ratio:.2f}×")
    if "mallocs" in single:
        per = net_mallocs(results, single["mallocs"]) / PER_SAMPLE
        text = f"{per:.3g} mallocs per resolve"
        if "singleton" in memcheck:
            text += f" ({memcheck['singleton']:.3g} by memcheck)"
            per = max(per, memcheck["singleton"])
        verdicts["resolve: cached singleton allocates nothing (mallocs)"] = (per, per == 0, text)
    return lines, verdicts


def fixed_costs(results: dict) -> list[str]:
    rows = [
        ("`Hive()`: an empty hive", "hive/empty", 1),
        ("scan of this benchmark process (no section named, none copied)", "scan/this-process", 1),
        ("`rescan()` with nothing loaded or unloaded", "rescan/unchanged-x1000", PER_SAMPLE),
        ("harness floor: an empty iteration", "overhead/empty-x1000", PER_SAMPLE),
    ]
    if not any(key in results for _, key, _ in rows):
        return []
    lines = ["", "### Fixed costs (mallocs less the harness's own, but for the harness row)", "",
             "| operation | time | mallocs |", "|---|---:|---:|"]
    for label, key, per in rows:
        value = results.get(key, {})
        ns = value.get("ns")
        mallocs = value.get("mallocs") if key.startswith("overhead/") else net_mallocs(results, value.get("mallocs"))
        lines.append(f"| {label} | {fmt_time(ns / per) if ns else '–'} | "
                     + (f"{mallocs / per:.3g}" if mallocs is not None else "–") + " |")
    return lines


def routing_table(results: dict) -> list[str]:
    rows = []
    for routes in (1_000, 10_000):
        for label, url in (("short", "3 path components"), ("long", "12 path components + query")):
            r = results.get(f"route/match/{routes}/{label}-x1000")
            if r:
                rows.append(f"| {routes:,} | {url} | {fmt_time(r.get('ns', 0) / PER_SAMPLE)} |")
    if not rows:
        return []
    return ["", "### Route matching: one match (median of samples of 1,000, divided by 1,000)", "",
            "| routes registered | URL | one match |", "|---:|---|---:|"] + rows


def startup_tables(startup: dict) -> list[str]:
    results = startup["results"]
    baseline = next(r for r in results if r["mechanism"] == "baseline")
    tiers = sorted({r["n"] for r in results if r["mechanism"] != "baseline"})
    lines = ["", f"### Whole-process startup: spawn → registry ready (median of {startup['runs']} runs)", ""]
    lines.append(f"Baseline (a Foundation-linked program that registers nothing): "
                 f"{fmt_time(baseline['readyMedianNs'])} to ready, {fmt_time(baseline['exitMedianNs'])} to exit.")
    lines += ["", "| N | " + " | ".join(LABELS[m] for m in MECHANISMS) + " |", "|---:|" + "---:|" * len(MECHANISMS)]
    for n in tiers:
        cells = []
        for m in MECHANISMS:
            r = next((r for r in results if r["mechanism"] == m and r["n"] == n), None)
            cells.append(f"{fmt_time(r['readyMedianNs'])} (+{fmt_time(r['overBaselineNs'])})" if r else "–")
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    lines += ["", "(in parentheses: over the baseline)"]
    return lines


def scan_tables(scan: dict) -> tuple[list[str], dict]:
    lines = ["", "### Scan cost as the number of loaded images grows", ""]
    lines += ["In process: a new scanning hive after `dlopen` of the libraries (scan = the scanner's walk with its\n"
              "file opens; new hive = scan, drain and registration). At startup: the same libraries with\n"
              "`LD_PRELOAD`; the constructor's walk before `main` reads notes in memory and opens nothing, the\n"
              "file opens come at the first use of `Hive.shared`.", ""]
    lines += ["| extra libraries | records | images loaded | images opened | scan (median) | of which records read | "
              "new hive | pre-main walk (LD_PRELOAD) | first-use opens | `rescan()`, unchanged |",
              "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    verdicts = {}
    for r in scan["results"]:
        lines.append(
            f"| {r['extraImages']} | {'one each' if r['kind'] == 'records' else 'none'} | {r['imagesLoaded']} | "
            f"{r['imagesOpened']} | {fmt_time(r['scanMedianNs'])} | {fmt_time(r.get('openMedianNs'))} | "
            f"{fmt_time(r['hiveMedianNs'])} | {fmt_time(r['startupScanMedianNs'])} | "
            f"{fmt_time(r.get('startupOpenMedianNs'))} | {r['rescanNs']:.0f} ns |")
        if r["kind"] == "plain" and r["imagesLoaded"] >= 25:
            key = "scan: a new hive's scan of ~25+ loaded images without records ≤ 50 µs (in process, median wall clock)"
            value = r["scanMedianNs"] / 1000
            if key not in verdicts or r["imagesLoaded"] < verdicts[key][3]:
                text = f"{value:.1f} µs at {r['imagesLoaded']} images"
                verdicts[key] = (value, value <= 50, text, r["imagesLoaded"])
    return lines, {k: v[:3] for k, v in verdicts.items()}


def svg_chart(results: dict, path: Path) -> None:
    tiers = tiers_of(results)
    points = {m: [(n, registration(results, m, n)) for n in tiers if registration(results, m, n)] for m in MECHANISMS}
    values = [v for series in points.values() for _, v in series]
    if not values:
        return
    width, height, left, right, top, bottom = 760, 470, 80, 190, 40, 60
    xmin, xmax = math.log10(min(tiers)), math.log10(max(tiers))
    ymin, ymax = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    if xmax == xmin:
        xmax = xmin + 1

    def x(n: float) -> float:
        return left + (math.log10(n) - xmin) / (xmax - xmin) * (width - left - right)

    def y(v: float) -> float:
        return top + (ymax - math.log10(v)) / (ymax - ymin) * (height - top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="Helvetica, Arial, sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="24" font-size="15" font-weight="bold">Registering N services: median wall clock '
           f'(log–log)</text>']
    for e in range(ymin, ymax + 1):
        yy = y(10 ** e)
        label = fmt_time(10 ** e).replace(".00", "").replace(".0", "")
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end" fill="#444">{label}</text>')
    for n in tiers:
        xx = x(n)
        out.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        out.append(f'<text x="{xx:.1f}" y="{height - bottom + 20}" text-anchor="middle" fill="#444">{n:,}</text>')
    out.append(f'<text x="{(left + width - right) / 2:.0f}" y="{height - 18}" text-anchor="middle">'
               f'N (services registered)</text>')
    out.append(f'<rect x="{left}" y="{top}" width="{width - left - right}" height="{height - top - bottom}" '
               f'fill="none" stroke="#888"/>')
    for index, m in enumerate(MECHANISMS):
        series = points[m]
        if not series:
            continue
        path_data = " ".join(f"{'M' if i == 0 else 'L'}{x(n):.1f},{y(v):.1f}" for i, (n, v) in enumerate(series))
        dash = ' stroke-dasharray="6,4"' if m == "swinject" else ""
        out.append(f'<path d="{path_data}" fill="none" stroke="{COLORS[m]}" stroke-width="2.2"{dash}/>')
        for n, v in series:
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3.5" fill="{COLORS[m]}"/>')
        ly = top + 20 + index * 24
        out.append(f'<line x1="{width - right + 16}" y1="{ly}" x2="{width - right + 44}" y2="{ly}" '
                   f'stroke="{COLORS[m]}" stroke-width="2.2"{dash}/>')
        out.append(f'<text x="{width - right + 50}" y="{ly + 4}">{LABELS[m]}</text>')
    out.append("</svg>")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(out) + "\n")


# ---- Registration and first use (issue 11) --------------------------------------------------------------------------

FU_MECHANISMS = ("annotations", "plist", "json", "explicit", "explicit-typed", "swinject", "macros", "keys")
FU_LABELS = {
    "annotations": "(a) annotations (C records)",
    "plist": "(b) plist",
    "json": "(c) JSON",
    "explicit": "(d) explicit `register(service:impl:)`",
    "explicit-typed": "(d') explicit typed `register(P.self) { _ in Impl() }`",
    "swinject": "(e) Swinject, `.container` scope (singletons)",
    "macros": "(f) Swift macros `@BeeHiveService`",
    "keys": "(f') Swift macros, protocols with keys (`@BeeHiveServiceKey`), asked by key",
    "floor": "floor: N inserts into a reserved `[String: String]`",
    "wired": "floor: compile-time wiring (a lazy `static let` per service, no BeeHive)",
    "swinject-graph": "extra: Swinject, default `.graph` scope (not like for like; in no ratio)",
}
FU_REFERENCES = ("floor", "wired", "swinject-graph")
CACHED_LABELS = {
    "beehive": "BeeHive `createService(P.self)`, singleton already created",
    "beehive-shared": "BeeHive `Hive.shared.createService(P.self)`, singleton already created",
    "beehive-name": "BeeHive `createService(named:)` and `as!`, singleton already created",
    "dictionary": "floor: `[ObjectIdentifier: () -> Any]` of closures, then `as!`",
    "wired": "floor: compile-time wiring (a lazy `static let`)",
    "swinject-container": "Swinject `resolve(P.self)`, `.container` scope",
}
NAME_ONLY = ("annotations", "plist", "json")


def fmt_ir(value: float | None) -> str:
    if value is None:
        return "–"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.2f} M"
    if abs(value) >= 1e3:
        return f"{value / 1e3:.1f} K"
    return f"{value:.0f}"


def fu_costs(row: dict) -> dict:
    """Registration and first-use costs of one program: Ir differences and wall clock."""
    ir = row.get("ir", {})
    inproc = row.get("inprocess", {})
    hf = row.get("hyperfine", {})

    def diff(a: str, b: str) -> float | None:
        return ir[a] - ir[b] if a in ir and b in ir else None

    return {
        "regIr": diff("register", "none"),
        "typeIr": diff("type", "register"),
        "nameIr": diff("name", "register"),
        "regCold": inproc.get("all", inproc.get("register", {})).get("registerMedianNs"),
        "typeWall": inproc.get("type", {}).get("firstUseMedianNs"),
        "nameWall": inproc.get("name", {}).get("firstUseMedianNs"),
        "hf": hf,
    }


def ratio(a: float | None, b: float | None) -> str:
    return fmt_ratio(a / b) if a is not None and b else "–"


def profile_ir(data: dict, spec: str, needles: tuple[str, ...]) -> float | None:
    """Largest inclusive Ir of the functions named by `needles` in a kept profile (firstuse.py --profile): 0 when
    none ran; None without a profile."""
    for profile in data.get("profiles", []):
        if profile["spec"] != spec or not Path(profile["inclusive"]).exists():
            continue
        best = 0.0
        for line in Path(profile["inclusive"]).read_text().splitlines():
            if any(needle in line for needle in needles):
                match = re.match(r"\s*([\d,]+)", line)
                if match:
                    best = max(best, float(match.group(1).replace(",", "")))
        return best
    return None


def first_use_report(data: dict, results: dict, args: argparse.Namespace) -> list[str]:
    rows = data["results"]
    by = {(r["mechanism"], r["n"]): r for r in rows}
    tiers = sorted({r["n"] for r in rows})
    present = [m for m in FU_MECHANISMS if any(r["mechanism"] == m for r in rows)]
    lines = ["### Results: registration and first use", ""]
    lines += ["Machine:", ""] + [line.replace("- Commit:", "- Benchmark suite: commit") for line in machine()]
    if args.measured:
        lines.append(f"- **BeeHive measured: {args.measured}**")
    if args.load and args.load.exists():
        loads = "; ".join(line.strip() for line in args.load.read_text().splitlines() if line.strip())
        lines.append(f"- Load average (1, 5, 15 min) around the run, on a machine shared with other work:\n  {loads}")
    if args.command:
        lines += ["", "Commands:", "", "```sh"] + args.command.split(" && ") + ["```"]
    lines += [
        "",
        "Ir: instructions counted by callgrind, one process per count: registration = Ir(`register`) − Ir(`none`),",
        "first use = Ir(`type` or `name`) − Ir(`register`), where every mode is the same startup program",
        "(`Startup<Mechanism><N>`): `none` exits before registering, `register` builds the registry, `type` / `name`",
        "then resolve every service once. Wall clock: *warm* is package-benchmark's median of `register/<m>/<N>`",
        "(a new registry per sample in one long-lived process); *cold* and first use are read inside a fresh",
        "process (CLOCK_MONOTONIC around the work): first use the median of "
        f"{data.get('runs', '?')} processes per mode, *cold* the median over all the program's processes (every mode",
        "registers the same way first). Swinject has no resolution by name (–). The floor only registers.",
        "",
    ]
    for n in tiers:
        lines += [f"#### N = {n:,}", ""]
        lines.append("| mechanism | registration Ir | registration, warm | registration, cold | "
                     "first use by type Ir | by type, wall | first use by name Ir | by name, wall |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|")
        for m in present + list(FU_REFERENCES):
            row = by.get((m, n))
            if not row:
                continue
            c = fu_costs(row)
            warm = registration(results, m, n) if results else None
            lines.append(f"| {FU_LABELS[m]} | {fmt_ir(c['regIr'])} | {fmt_time(warm)} | {fmt_time(c['regCold'])} | "
                         f"{fmt_ir(c['typeIr'])} | {fmt_time(c['typeWall'])} | {fmt_ir(c['nameIr'])} | "
                         f"{fmt_time(c['nameWall'])} |")
        explicit = fu_costs(by[("explicit", n)]) if ("explicit", n) in by else {}
        swinject = fu_costs(by[("swinject", n)]) if ("swinject", n) in by else {}
        lines += ["", f"Ratios of instruction counts at N = {n:,} (lower is cheaper; × (d) explicit, × (e) Swinject):", ""]
        lines.append("| mechanism | registration × (d) | registration × (e) | first use by type × (d) | "
                     "first use by type × (e) | first use by name × (d) | registration + first use by type × (e) |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|")
        for m in present + ["floor"]:
            row = by.get((m, n))
            if not row:
                continue
            c = fu_costs(row)
            total = c["regIr"] + c["typeIr"] if c["regIr"] is not None and c["typeIr"] is not None else None
            total_sw = (swinject["regIr"] + swinject["typeIr"]
                        if swinject.get("regIr") is not None and swinject.get("typeIr") is not None else None)
            lines.append(f"| {FU_LABELS[m]} | {ratio(c['regIr'], explicit.get('regIr'))} | "
                         f"{ratio(c['regIr'], swinject.get('regIr'))} | {ratio(c['typeIr'], explicit.get('typeIr'))} | "
                         f"{ratio(c['typeIr'], swinject.get('typeIr'))} | {ratio(c['nameIr'], explicit.get('nameIr'))} | "
                         f"{ratio(total, total_sw)} |")
        lines.append("")
    floors = json.loads(args.floors.read_text()) if getattr(args, "floors", None) and args.floors.exists() else None
    lines += per_service_table(by, tiers, present, floors)
    lines += issue20_report(data, by, tiers)
    lines += issue33_report(data, by, tiers, floors)
    lines += issue32_report(data, by, tiers, results, floors)
    # Whole process with hyperfine.
    if any(r.get("hyperfine") for r in rows):
        lines += ["#### Whole process, spawn → exit (hyperfine -N, mean ± σ)", ""]
        lines.append("`none` exits before registering; `register` builds the registry; `type` / `name` also resolve every")
        lines.append("service once. The differences between columns are the registration and the first use.")
        lines += ["", "| N | mechanism | `none` | `register` | `type` | `name` |", "|---:|---|---:|---:|---:|---:|"]
        for n in tiers:
            for m in present + ["floor", "wired"]:
                row = by.get((m, n))
                if not row or not row.get("hyperfine"):
                    continue
                cells = []
                for mode in ("none", "register", "type", "name"):
                    st = row["hyperfine"].get(mode)
                    cells.append(f"{fmt_time(st['mean'])} ± {fmt_time(st['stddev'])}" if st else "–")
                lines.append(f"| {n:,} | {FU_LABELS[m]} | " + " | ".join(cells) + " |")
        lines.append("")
    # Foundation.
    loaded = {}
    for r in rows:
        loaded.setdefault(", ".join(r.get("foundation") or []) or "none", []).append(r["program"])
    lines += ["Foundation libraries loaded (LD_DEBUG=files, at exec or by dlopen), per program:", ""]
    for libraries, programs_ in sorted(loaded.items()):
        lines.append(f"- {libraries}: {len(programs_)} programs ({', '.join(sorted(programs_)[:4])}"
                     + (", …" if len(programs_) > 4 else "") + ")")
    lines.append("")
    # Verdicts.
    verdicts = []

    def cost(m: str, n: int, key: str) -> float | None:
        return fu_costs(by[(m, n)])[key] if (m, n) in by else None

    sw = cost("swinject", 1000, "typeIr")
    typed = cost("explicit-typed", 1000, "typeIr")
    if sw and typed is not None:
        verdicts.append(("first use by type, N = 1,000: (d') explicit typed ≤ 1.5× Swinject", typed / sw, 1.5))
    for m in NAME_ONLY:
        value = cost(m, 1000, "typeIr")
        if sw and value is not None:
            verdicts.append((f"first use by type, N = 1,000: {FU_LABELS[m]} ≤ 3× Swinject", value / sw, 3.0))
    for n, limit in ((10, 1.0), (1000, 0.5)):
        a, d = cost("annotations", n, "regIr"), cost("explicit", n, "regIr")
        if a is not None and d:
            verdicts.append((f"registration, N = {n:,}: (a) annotations ≤ {limit:.1f}× (d) explicit", a / d, limit))
    if verdicts:
        lines += ["#### Targets (issue 11), in instructions", "", "| target | measured | verdict |", "|---|---:|---|"]
        for text, value, limit in verdicts:
            lines.append(f"| {text} | {value:.2f}× | {'met' if value <= limit else '**missed**'} |")
        spec = "explicit-typed:1000:type"
        casts = profile_ir(data, spec, ("swift_dynamicCast ",))
        lookups = profile_ir(data, spec, ("swift_conformsToProtocolMaybeInstantiateSuperclasses", "swift_conformsToProtocol "))
        if casts is not None and typed:
            lines.append(f"| first use by type, N = 1,000: (d') explicit typed makes no dynamic conformance look-up "
                         f"at resolve | {fmt_ir(casts)} Ir in `swift_dynamicCast` ({casts / typed:.0%} of its first use) "
                         f"| {'met' if casts == 0 else '**missed**'} |")
            if lookups:
                lines += ["", f"What (d') still spends in the runtime's conformance look-up at first use, {fmt_ir(lookups)} "
                          "Ir, is no cast: it is made once per process, when the Swift runtime instantiates the metadata "
                          "of the registry's own generic storage from its mangled name and checks its `Hashable` "
                          "requirement."]
        floor = cost("floor", 1000, "regIr")
        a = cost("annotations", 1000, "regIr")
        if floor and a:
            lines += ["", f"Floor at N = 1,000: {fmt_ir(floor)} instructions; (a) annotations registration is "
                      f"{a / floor:.1f}× the floor."]
    return lines


# ---- Issue 20: per service, before main, cached resolve, route matching, verdicts -----------------------------------


def outside_main(row: dict | None) -> float | None:
    """Instructions of the `none` run spent outside `main`: loader, relocations, constructors (firstuse.py)."""
    if not row:
        return None
    ir = row.get("ir", {})
    return ir["none"] - ir["noneInsideMain"] if "none" in ir and "noneInsideMain" in ir else None


def verdict_row(text: str, value: float | None, limit: float, unit: str, note: str = "") -> str:
    if value is None:
        return f"| {text} | not measured{note} | – |"
    shown = f"{value:.2f}×" if unit == "×" else fmt_ir(value)
    return f"| {text} | {shown} | {'met' if value <= limit else '**missed**'} |"


def issue20_report(data: dict, by: dict, tiers: list[int]) -> list[str]:
    lines: list[str] = []

    def cost(m: str, n: int, key: str) -> float | None:
        return fu_costs(by[(m, n)])[key] if (m, n) in by else None

    # First use per service.
    mechanisms = [m for m in FU_MECHANISMS + ("wired", "swinject-graph") if any((m, n) in by for n in tiers)]
    lines += ["#### First use per service (issue 20), instructions", "",
              "First use by type, Ir(`type`) − Ir(`register`), divided by N: every one-time cost of resolving (type and "
              "conformance indexes, metadata, the instance) is in it; registration and what runs before `main` are "
              "counted apart below.", "",
              "| mechanism | " + " | ".join(f"N = {n:,}" for n in tiers) + " |",
              "|---|" + "---:|" * len(tiers)]
    for m in mechanisms:
        cells = []
        for n in tiers:
            value = cost(m, n, "typeIr")
            cells.append(fmt_ir(value / n) if value is not None else "–")
        lines.append(f"| {FU_LABELS[m]} | " + " | ".join(cells) + " |")
    lines.append("")

    # Before main.
    baseline = data.get("baseline")
    base_out = baseline["ir"] - baseline["insideMain"] if baseline else None
    lines += ["#### Before `main` (issue 20), instructions", "",
              "Everything a program spends outside `main` in mode `none` (it exits before registering): the dynamic "
              "loader, relocations, every ELF constructor, BeeHive's walk of the loaded images. Counted as "
              "Ir(`none`) − Ir(`none`, collected inside `main` only: callgrind `--toggle-collect=<Module>_main`). *Over no records*: "
              "minus the same count of (d) explicit at the same N, a program linked the same way (BeeHive and the "
              "tier's types) that holds no records at all."
              + (f" `StartupBaseline` (no BeeHive, no records): {fmt_ir(base_out)}." if base_out is not None else ""),
              "", "| mechanism | " + " | ".join(f"N = {n:,}, outside main | over no records" for n in tiers) + " |",
              "|---|" + "---:|---:|" * len(tiers)]
    for m in [m for m in FU_MECHANISMS + ("wired",) if any((m, n) in by for n in tiers)]:
        cells = []
        for n in tiers:
            value, plain = outside_main(by.get((m, n))), outside_main(by.get(("explicit", n)))
            cells += [fmt_ir(value), fmt_ir(value - plain) if value is not None and plain is not None else "–"]
        lines.append(f"| {FU_LABELS[m]} | " + " | ".join(cells) + " |")
    lines.append("")

    # Cached resolve.
    cached = {row["mechanism"]: row for row in data.get("cached", [])}
    if cached:
        lines += ["#### Cached resolve, per call (issue 20)", "",
                  f"`CachedResolve <mechanism> K`: one singleton service registered and resolved once, then K more "
                  f"resolves (K = {next(iter(cached.values()))['calls']:,}), each stored in a global; per call = "
                  "(count(K) − count(0)) / K of the same program: instructions by callgrind, heap allocations by "
                  "memcheck.", "",
                  "| mechanism | Ir per call | allocations per call | × dictionary | × wiring | × Swinject `.container` |",
                  "|---|---:|---:|---:|---:|---:|"]
        for m, label in CACHED_LABELS.items():
            row = cached.get(m)
            if not row:
                continue
            ir = row["irPerCall"]

            def times(other: str) -> str:
                return ratio(ir, cached[other]["irPerCall"]) if other in cached else "–"

            lines.append(f"| {label} | {ir:,.0f} | {row['allocationsPerCall']:.2f} | {times('dictionary')} | "
                         f"{times('wired')} | {times('swinject-container')} |")
        lines.append("")

    # Route matching.
    routes = data.get("routes", [])
    if routes:
        lines += ["#### Route matching from a URL string, BeeHive against RoutingKit (issue 20)", "",
                  "`RouteMatch <router> <routes> K`: `app://section<i>/item/:id/detail` and `app://section<i>/list/~` "
                  "(a catch-all: `**` in RoutingKit), half each; three URLs (3 to 12 components, with and without a query) matched round-robin. URL "
                  "parsing included: BeeHive's `Router.match(_:)` takes the string; for RoutingKit's `TrieRouter` the "
                  "string is cut at `?` and split at `/` first (the least a server does). Ir per match = "
                  "(Ir(K) − Ir(0)) / K by callgrind; wall clock: median of 5 processes of "
                  "300,000 matches each.", "",
                  "| routes | BeeHive Ir/match | RoutingKit Ir/match | × RoutingKit (Ir) | BeeHive ns/match | "
                  "RoutingKit ns/match | × RoutingKit (wall) |", "|---:|---:|---:|---:|---:|---:|---:|"]
        table = {(r["router"], r["routes"]): r for r in routes}
        for count in sorted({r["routes"] for r in routes}):
            b, k = table.get(("beehive", count), {}), table.get(("routingkit", count), {})
            lines.append(f"| {count:,} | {fmt_ir(b.get('irPerMatch'))} | {fmt_ir(k.get('irPerMatch'))} | "
                         f"{ratio(b.get('irPerMatch'), k.get('irPerMatch'))} | {fmt_time(b.get('nsPerMatch'))} | "
                         f"{fmt_time(k.get('nsPerMatch'))} | {ratio(b.get('nsPerMatch'), k.get('nsPerMatch'))} |")
        lines.append("")

    # Whole process over the same program without BeeHive.
    smallest = min(tiers)
    wired_ir = by.get(("wired", smallest), {}).get("ir", {}).get("type")
    if wired_ir is not None:
        lines += [f"#### Whole process over the same program without BeeHive, N = {smallest:,} (issue 20)", "",
                  "Mode `type` (start, register, resolve every service once, exit) less compile-time wiring's mode "
                  "`type` (the same services, no BeeHive): instructions, and wall clock spawn → exit with the two "
                  "programs run alternately (median of the paired differences).", "",
                  "| mechanism | + Ir | + wall clock |", "|---|---:|---:|"]
        for m in [m for m in FU_MECHANISMS if (m, smallest) in by]:
            row = by[(m, smallest)]
            total = row.get("ir", {}).get("type")
            paired = row.get("interleaved")
            lines.append(f"| {FU_LABELS[m]} | {fmt_ir(total - wired_ir) if total is not None else '–'} | "
                         f"{fmt_time(paired['overWiredMedianNs']) if paired else '–'} |")
        lines.append("")

    # Verdicts.
    rows = ["#### Targets (issue 20), in instructions", "", "| target | measured | verdict |", "|---|---:|---|"]
    macros_note = " (the Swift macros mechanism needs `--macros`)"
    for n, limit in ((10, 10_000), (100, 3_000), (1000, 3_000)):
        if n not in tiers:
            continue
        value = cost("macros", n, "typeIr")
        rows.append(verdict_row(f"(f) Swift macros, first use per service, N = {n:,}: ≤ {fmt_ir(limit)}",
                                value / n if value is not None else None, limit, "Ir", macros_note))
    if 1000 in tiers:
        for m in NAME_ONLY:
            value = cost(m, 1000, "typeIr")
            if (m, 1000) in by:
                rows.append(verdict_row(f"{FU_LABELS[m]}, first use per service, N = 1,000: ≤ 10 K",
                                        value / 1000 if value is not None else None, 10_000, "Ir"))
    hot = "beehive-shared" if "beehive-shared" in cached else "beehive"
    if hot in cached:
        rows.append(verdict_row(f"cached resolve ({CACHED_LABELS[hot].split(',')[0]}), per call: ≤ 300",
                                cached[hot]["irPerCall"], 300, "Ir"))
        allocations = cached[hot]["allocationsPerCall"]
        rows.append(f"| cached resolve, allocations per call: 0 | {allocations:.2f} | "
                    f"{'met' if allocations < 0.01 else '**missed**'} |")
        if "dictionary" in cached:
            rows.append(verdict_row("cached resolve: below the dictionary (× dictionary ≤ 1.0)",
                                    cached[hot]["irPerCall"] / cached["dictionary"]["irPerCall"], 1.0, "×"))
    for n in tiers:
        if n != 1000 and n != max(tiers):
            continue
        for m in ("macros", "keys", "annotations"):
            value, plain = outside_main(by.get((m, n))), outside_main(by.get(("explicit", n)))
            if m in ("macros", "keys") or (m, n) in by:
                rows.append(verdict_row(f"{FU_LABELS[m]}, before `main` over no records, N = {n:,}: ≤ 50 K"
                                        + ("" if n == 1000 else " (the target is at N = 1,000)"),
                                        value - plain if value is not None and plain is not None else None, 50_000,
                                        "Ir", "" if m == "annotations" else macros_note))
    if 10 in tiers:
        # Explicit code: the cheaper of (d) and (d') at N = 10, like for like (the typed factories are what
        # hand-written registration looks like; (d) pays for names).
        explicit = [v for v in (cost("explicit", 10, "regIr"), cost("explicit-typed", 10, "regIr")) if v]
        cheapest = min(explicit) if explicit else None
        for m in ("annotations", "macros", "keys"):
            a = cost(m, 10, "regIr")
            rows.append(verdict_row(f"{FU_LABELS[m]}, registration at N = 10: ≤ 1.0× explicit code (the cheaper of "
                                    "(d) and (d'))", a / cheapest if a is not None and cheapest else None, 1.0, "×",
                                    "" if m == "annotations" else macros_note))
        wired = by.get(("wired", 10), {}).get("ir", {}).get("type")
        for m in ("annotations", "macros", "keys"):
            total = by.get((m, 10), {}).get("ir", {}).get("type")
            rows.append(verdict_row(f"{FU_LABELS[m]}, whole process at N = 10 (every service resolved once), over "
                                    "the same program without BeeHive (compile-time wiring): ≤ +1.0 M",
                                    total - wired if total is not None and wired is not None else None, 1_000_000,
                                    "Ir", "" if m == "annotations" else macros_note))
            paired = by.get((m, 10), {}).get("interleaved")
            hf, hw = by.get((m, 10), {}).get("hyperfine", {}).get("type"), by.get(("wired", 10), {}).get(
                "hyperfine", {}).get("type")
            if paired:
                extra = paired["overWiredMedianNs"]
                rows.append(f"| {FU_LABELS[m]}, whole process at N = 10, wall clock over compile-time wiring (spawn → "
                            f"exit, the two run alternately, median of {paired['pairs']} paired differences): "
                            f"≤ +0.5 ms | {fmt_time(extra)} | {'met' if extra <= 0.5e6 else '**missed**'} |")
            elif hf and hw:
                extra = hf["mean"] - hw["mean"]
                rows.append(f"| {FU_LABELS[m]}, whole process at N = 10, wall clock over compile-time wiring "
                            f"(hyperfine means, one batch): ≤ +0.5 ms | {fmt_time(extra)} | "
                            f"{'met' if extra <= 0.5e6 else '**missed**'} |")
    return lines + rows + [""]


# ---- Issue 32: annotations the cheapest way in, from memory -------------------------------------------------------


def issue32_report(data: dict, by: dict, tiers: list[int], results: dict, floors: dict | None = None) -> list[str]:
    """Issue 32's verdicts: registration by annotation against a JSON file and explicit code at every N (instructions;
    wall clock warm for C records, cold for the Swift macros, which register in their process's constructor), a new
    hive's scan, the whole process at N = 10, and what runs before `main` across N, beside what the floor programs of
    the same run spend there."""

    def cost(m: str, n: int, key: str) -> float | None:
        return fu_costs(by[(m, n)])[key] if (m, n) in by else None

    def cheaper(values: list[float | None]) -> float | None:
        known = [v for v in values if v]
        return min(known) if known else None

    annotated = [m for m in ("annotations", "macros", "keys") if any((m, n) in by for n in tiers)]
    rows = ["#### Targets (issue 32), registration from memory", "",
            "Against the cheaper of (c) JSON and (d) explicit `register(service:impl:)` at the same N, as a ratio "
            "(≤ 1.00× is met). Wall clock *warm*: package-benchmark's median of a new registry per sample (C records "
            "only: the Swift macros register from the process's records once); *cold*: inside a fresh process, the "
            "median over every process of the program (all its modes register first, the same way).", "",
            "| target | measured | verdict |", "|---|---:|---|"]
    for n in tiers:
        for m in annotated:
            a, other = cost(m, n, "regIr"), cheaper([cost("json", n, "regIr"), cost("explicit", n, "regIr")])
            rows.append(verdict_row(f"{FU_LABELS[m]}, registration Ir, N = {n:,}: ≤ JSON and explicit",
                                    a / other if a is not None and other else None, 1.0, "×"))
        warm = registration(results, "annotations", n) if results else None
        other = cheaper([registration(results, "json", n), registration(results, "explicit", n)]) if results else None
        if ("annotations", n) in by:
            rows.append(verdict_row(f"{FU_LABELS['annotations']}, registration warm, N = {n:,}: ≤ JSON and explicit "
                                    f"({fmt_time(warm)} against {fmt_time(other)})",
                                    warm / other if warm is not None and other else None, 1.0, "×"))
        for m in annotated:
            a = cost(m, n, "regCold")
            other = cheaper([cost("json", n, "regCold"), cost("explicit", n, "regCold")])
            rows.append(verdict_row(f"{FU_LABELS[m]}, registration cold, N = {n:,}: ≤ JSON and explicit "
                                    f"({fmt_time(a)} against {fmt_time(other)})",
                                    a / other if a is not None and other else None, 1.0, "×"))
    scan = results.get("scan/this-process", {}).get("ns") if results else None
    if scan is not None:
        rows.append(f"| a new hive's scan of this benchmark process (~30 images; no section named, none copied): "
                    f"≤ 20 µs | {fmt_time(scan)} | {'met' if scan <= 20_000 else '**missed**'} |")
    wired = by.get(("wired", 10), {}).get("ir", {}).get("type")
    for m in annotated:
        total = by.get((m, 10), {}).get("ir", {}).get("type")
        rows.append(verdict_row(f"{FU_LABELS[m]}, whole process at N = 10 over the same program without BeeHive: "
                                "≤ +0.6 M", total - wired if total is not None and wired is not None else None,
                                600_000, "Ir"))
        paired = by.get((m, 10), {}).get("interleaved")
        if paired:
            extra = paired["overWiredMedianNs"]
            rows.append(f"| {FU_LABELS[m]}, whole process at N = 10, wall clock over the same program without "
                        f"BeeHive: ≤ +0.5 ms | {fmt_time(extra)} | {'met' if extra <= 0.5e6 else '**missed**'} |")
    growth: dict[str, float] = {}  # per added service before `main`, over explicit code, by mechanism
    if len(tiers) > 1:
        for m in annotated:
            outside = [outside_main(by.get((m, n))) for n in tiers]
            plain = [outside_main(by.get(("explicit", n))) for n in tiers]
            over = [o - p for o, p in zip(outside, plain) if o is not None and p is not None]
            if len(over) == len(tiers):
                # Flat: under 50 instructions more per added service, what the loader's relative relocations of a
                # record's pointers cost (a few per record); any work of BeeHive's per record would cost more.
                growth[m] = (over[-1] - over[0]) / (tiers[-1] - tiers[0])
                shown = " / ".join(fmt_ir(v) for v in over) + f" ({growth[m]:,.0f} per added service)"
                rows.append(f"| {FU_LABELS[m]}, before `main` over no records, flat in N (N = "
                            f"{' / '.join(f'{n:,}' for n in tiers)}: < 50 Ir more per added service) | {shown} | "
                            f"{'met' if growth[m] < 50 else '**missed**'} |")
    rows.append("")
    floor = {v: floor_growth_before_main(floors, v, tiers) for v in ("b2", "c", "w")}
    if "keys" in growth and None not in floor.values():
        rows += [f"The floor programs of this run grow before `main` too (mode `none`, per added service from N = "
                 f"{tiers[0]:,} to {tiers[-1]:,}): b2 {floor['b2']:,.0f}, c {floor['c']:,.0f}, w "
                 f"{floor['w']:,.0f} instructions, the loader relocating each service's types. c over b2, what its "
                 f"generated key per protocol costs there (a holder class, a resolve overload, a static slot), is "
                 f"{floor['c'] - floor['b2']:,.0f} per protocol; (f') keys over (d) explicit, "
                 f"{growth['keys']:,.0f} per key: a key that is a type carries metadata the loader relocates, "
                 "whichever library declares it.", ""]
    return rows


# ---- Issue 33: everything included per service, the floor programs of the same run, verdicts ------------------------

FLOOR_LABELS = {
    "b2": "b2: `[ObjectIdentifier: Cell]` keyed by `ObjectIdentifier(P.self)`, raw typed slots (default flags)",
    "b3": "b3: b2 built with `-Xfrontend -disable-concrete-type-metadata-mangled-name-accessors`",
    "c": "c: keys generated per protocol (a `resolve(_: (any P).Type)` overload and a static slot each)",
    "r": "r: c with a registry's duties (an entry per registration indexed by its service's name, one lock, a "
         "claimed slot per first use)",
    "n": "n: r's duties for name-bound records (C macros' JSON records parsed and indexed by name; each first use "
         "binds its implementation's name to a type of the records' image and its conformances, walked once)",
    "w": "w: compile-time wiring (a lazy `static let` per service)",
}
RATIO_FLOORS = ("b2", "c", "r", "n")  # the floors the targets of issue 33 are divided by, a column each


def floor_growth_before_main(floors: dict | None, variant: str, tiers: list[int]) -> float | None:
    """What a floor program's mode `none` (everything before `main`) costs more per added service, from the
    smallest N of the run to the largest; None when either was not measured."""
    none = {row["n"]: row["ir"]["none"] for row in (floors or {}).get("floors", []) if row["variant"] == variant}
    if len(tiers) < 2 or tiers[0] not in none or tiers[-1] not in none:
        return None
    return (none[tiers[-1]] - none[tiers[0]]) / (tiers[-1] - tiers[0])


def floor_rows(floors: dict | None) -> dict[tuple[str, int], dict]:
    """(variant, N) -> {reg, first, both, cached} per service, from floor_programs.py's output."""
    table = {}
    for row in (floors or {}).get("floors", []):
        table[(row["variant"], row["n"])] = {"reg": row["registration"], "first": row["firstUse"],
                                             "both": row["registration"] + row["firstUse"], "cached": row["cached"]}
    return table


def per_service(by: dict, m: str, n: int) -> dict:
    """Registration, first use by type and the two together, per service, of one mechanism at N (None if absent)."""
    c = fu_costs(by[(m, n)]) if (m, n) in by else {}
    reg = c["regIr"] / n if c.get("regIr") is not None else None
    first = c["typeIr"] / n if c.get("typeIr") is not None else None
    return {"reg": reg, "first": first, "both": reg + first if reg is not None and first is not None else None}


def per_service_table(by: dict, tiers: list[int], present: list[str], floors: dict | None) -> list[str]:
    table = floor_rows(floors)
    lines = ["#### Per service, everything included (issue 33), instructions", "",
             "Registration = (Ir(`register`) − Ir(`none`)) / N; first use by type = (Ir(`type`) − Ir(`register`)) / N; "
             "*all in* = the two together: what a service costs from nothing to its first instance, wherever a "
             "mechanism pays it (names at registration, metatypes at first use). The floor programs (below) are "
             "counted the same way in the same run.", "",
             "| mechanism | " + " | ".join(f"N = {n:,}: registration | first use | **all in**" for n in tiers) + " |",
             "|---|" + "---:|---:|---:|" * len(tiers)]
    for m in present + ["wired"]:
        if not any((m, n) in by for n in tiers):
            continue
        cells = []
        for n in tiers:
            v = per_service(by, m, n)
            cells += [fmt_ir(v["reg"]), fmt_ir(v["first"]), f"**{fmt_ir(v['both'])}**" if v["both"] is not None else "–"]
        lines.append(f"| {FU_LABELS[m]} | " + " | ".join(cells) + " |")
    for variant in FLOOR_LABELS:
        if not any((variant, n) in table for n in tiers):
            continue
        cells = []
        for n in tiers:
            v = table.get((variant, n), {})
            cells += [fmt_ir(v.get("reg")), fmt_ir(v.get("first")),
                      f"**{fmt_ir(v['both'])}**" if "both" in v else "–"]
        lines.append(f"| floor {FLOOR_LABELS[variant].split(':')[0]} | " + " | ".join(cells) + " |")
    return lines + [""]


def issue33_report(data: dict, by: dict, tiers: list[int], floors: dict | None) -> list[str]:
    table = floor_rows(floors)
    lines: list[str] = []
    if floors:
        ns = sorted({n for _, n in table})
        lines += ["#### The floor programs, measured in this run (issue 33), instructions per service", "",
                  "What a first use by type costs without BeeHive: small programs written by "
                  "`Benchmarks/Tools/floor_programs.py` (N protocols; a final class, a struct, a class nested in an "
                  "enum, a struct nested in a struct, in turn; every service a singleton made at its first resolve, "
                  "resolved by `resolve(P.self)`; each program checks its sum, its instance count, the dynamic types "
                  f"and the identity of classes before it is counted), built with `swiftc -O` ({floors.get('swiftc', '?')}) "
                  "and counted with callgrind as above; cached = (Ir(`twice`) − Ir(`type`)) / N, the second resolve "
                  "of every service.", "",
                  "| floor program | " + " | ".join(f"N = {n:,}: registration | first use | **all in** | cached"
                                                   for n in ns) + " |",
                  "|---|" + "---:|---:|---:|---:|" * len(ns)]
        for variant, label in FLOOR_LABELS.items():
            if not any((variant, n) in table for n in ns):
                continue
            cells = []
            for n in ns:
                v = table.get((variant, n), {})
                cells += [fmt_ir(v.get("reg")), fmt_ir(v.get("first")),
                          f"**{fmt_ir(v['both'])}**" if "both" in v else "–", fmt_ir(v.get("cached"))]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
        naming = sorted(floors.get("metatype", []), key=lambda row: row["n"])
        if naming:
            lines += ["", "Naming `(any P).self` once (`Benchmarks/Tools/metatype_floor.py`: N protocols, every "
                      "metatype named once, minus the same program naming none): "
                      + "; ".join(f"{fmt_ir(row['perProtocol'])} per protocol at N = {row['n']:,}" for row in naming)
                      + ". b2 pays it at registration (its keys), n at the first use (its caller); c, r and w never "
                      "make the metatype."]
        lines.append("")

    def times(value: float | None, variant: str, n: int | None, key: str) -> str:
        floor = table.get((variant, n), {}).get(key) if n is not None else None
        return ratio(value, floor)

    no_ratios = "– | " * len(RATIO_FLOORS)
    rows = ["#### Targets (issue 33), in instructions", "",
            "*× b2*, *× c*, *× r* and *× n*: the measured value over the same figure of the floor program at the same "
            "N (registration + first use, or the cached resolve), from this run. n is the floor of the name-bound "
            "rows, r of the keys'.", "",
            "| target | measured | " + "".join(f"× {v} | " for v in RATIO_FLOORS) + "verdict |",
            "|---|---:|" + "---:|" * len(RATIO_FLOORS) + "---|"]

    def row(text: str, value: float | None, limit: float, n: int | None, key: str, note: str = "") -> str:
        if value is None:
            return f"| {text} | not measured{note} | {no_ratios}– |"
        return (f"| {text} | {fmt_ir(value)} | " + "".join(f"{times(value, v, n, key)} | " for v in RATIO_FLOORS)
                + f"{'met' if value <= limit else '**missed**'} |")

    macros_note = " (the Swift macros mechanism needs `--macros`)"
    for n in tiers:
        limit = 6_000 if n < 100 else 3_000
        rows.append(row(f"(f) Swift macros, registration + first use per service, N = {n:,}: ≤ {fmt_ir(limit)}",
                        per_service(by, "macros", n)["both"], limit, n, "both", macros_note))
    for n in tiers:
        limit = 6_000 if n < 100 else 3_000
        rows.append(row(f"(f') Swift macros with service keys, registration + first use per service, N = {n:,}: "
                        f"≤ {fmt_ir(limit)}", per_service(by, "keys", n)["both"], limit, n, "both", macros_note))
    for n in tiers:
        rows.append(row(f"(f') a key per protocol (item 3), everything included per service, N = {n:,}: ≤ 1.5 K",
                        per_service(by, "keys", n)["both"], 1_500, n, "both", macros_note))
    if 1000 in tiers:
        for m in NAME_ONLY:
            if (m, 1000) in by:
                rows.append(row(f"{FU_LABELS[m]} (name-bound), registration + first use per service, N = 1,000: "
                                "≤ 10 K", per_service(by, m, 1000)["both"], 10_000, 1000, "both"))
    cached = {r["mechanism"]: r for r in data.get("cached", [])}
    largest = max((n for _, n in table), default=None)
    for hot in ("beehive-shared", "beehive"):
        if hot in cached:
            label = CACHED_LABELS[hot].split(",")[0]
            floor_note = f" (floors: their cached resolve at N = {largest:,})" if largest else ""
            rows.append(row(f"cached resolve, {label}, per call: ≤ 300{floor_note}", cached[hot]["irPerCall"], 300,
                            largest, "cached"))
            allocations = cached[hot]["allocationsPerCall"]
            rows.append(f"| cached resolve, {label}, allocations per call: 0 | {allocations:.2f} | {no_ratios}"
                        f"{'met' if allocations < 0.01 else '**missed**'} |")
            break
    else:
        rows.append(f"| cached resolve, `Hive.shared.createService(P.self)`, per call: ≤ 300 | not measured | "
                    f"{no_ratios}– |")
    return lines + rows + [""]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="report.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--benchmarks", type=Path)
    parser.add_argument("--first-use", type=Path, help="firstuse.py measure output: write the first-use tables")
    parser.add_argument("--floors", type=Path, help="floor_programs.py measure output, with --first-use (issue 33)")
    parser.add_argument("--measured", default="", help="what was measured (commit), for the first-use tables")
    parser.add_argument("--startup", type=Path)
    parser.add_argument("--scan", type=Path)
    parser.add_argument("--callgrind", type=Path)
    parser.add_argument("--load", type=Path, help="load averages before and after the run (benchmark.sh)")
    parser.add_argument("--command", default="", help="the command that produced the results, for the document")
    parser.add_argument("--doc", type=Path, help="Markdown file whose GENERATED block is replaced")
    parser.add_argument("--svg", type=Path)
    parser.add_argument("--svg-link", default="images/registration-cost.svg")
    parser.add_argument("--no-targets", action="store_true", help="leave out the target verdicts (smoke runs)")
    args = parser.parse_args(argv)

    if args.first_use:
        results = read_benchmarks(args.benchmarks) if args.benchmarks else {}
        text = "\n".join(first_use_report(json.loads(args.first_use.read_text()), results, args)) + "\n"
        print(text)
        if args.doc:
            replace_block(args.doc, FIRST_USE_BEGIN, FIRST_USE_END, text)
        return 0
    if not args.benchmarks:
        parser.error("expected --benchmarks (or --first-use)")
    results = read_benchmarks(args.benchmarks)
    if not results:
        print(f"report.py: no benchmark results in {args.benchmarks}", file=sys.stderr)
        return 1
    callgrind = json.loads(args.callgrind.read_text()) if args.callgrind and args.callgrind.exists() else None
    lines = ["## Results", "", "Machine:", ""] + machine()
    if args.load and args.load.exists():
        loads = "; ".join(line.strip() for line in args.load.read_text().splitlines() if line.strip())
        lines.append(f"- Load average (1, 5, 15 min) around the run, on a machine shared with other work:\n  {loads}")
    if args.command:
        lines += ["", f"Command: `{args.command}`"]
    lines.append("")
    reg_lines, verdicts = registration_tables(results, callgrind)
    lines += reg_lines
    if args.svg:
        svg_chart(results, args.svg)
        lines += ["", f"![Registration cost against N]({args.svg_link})"]
    res_lines, res_verdicts = resolve_tables(results, callgrind)
    lines += res_lines
    verdicts.update(res_verdicts)
    lines += fixed_costs(results)
    lines += routing_table(results)
    if args.startup and args.startup.exists():
        lines += startup_tables(json.loads(args.startup.read_text()))
    if args.scan and args.scan.exists():
        scan_lines, scan_verdicts = scan_tables(json.loads(args.scan.read_text()))
        lines += scan_lines
        verdicts.update(scan_verdicts)
    if verdicts and not args.no_targets:
        lines += ["", "### Targets (issue 3), each with its unit, on this machine", "",
                  "Wall clock moves with the machine's load (the load averages around the run are above): a target "
                  "missed here on a loaded machine says more about the machine than about BeeHive. The cost "
                  "figures of Docs/Performance.md are instruction counts (callgrind, `Scripts/benchmark.sh --first-use`), which load "
                  "does not move, and the wall clock of a quiet machine (Docs/benchmarks.md).", "",
                  "| target | measured | verdict |", "|---|---:|---|"]
        for target, (_, met, text) in verdicts.items():
            lines.append(f"| {target} | {text} | {'met' if met else '**missed** on this machine'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.doc:
        replace_block(args.doc, BEGIN, END, text)
    return 0


def replace_block(doc: Path, begin: str, end: str, text: str) -> None:
    """Replaces what lies between the markers `begin` and `end` of `doc` (appended when absent)."""
    document = doc.read_text() if doc.exists() else f"{begin}\n{end}\n"
    if begin not in document or end not in document:
        document += f"\n{begin}\n{end}\n"
    head, rest = document.split(begin, 1)
    _, tail = rest.split(end, 1)
    doc.write_text(f"{head}{begin}\n{text}{end}{tail}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
