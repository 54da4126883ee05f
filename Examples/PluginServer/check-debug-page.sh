#!/usr/bin/env bash
# Loads the plugin server's debug page (GET /debug/beehive.html) in headless Chromium, which runs the page's script
# (it fetches /debug/beehive and renders the report), and checks the DOM Chromium dumps against the report taken just
# before: every service registration (service, name, implementation, state, source, plugin), plugin, route,
# withdrawn service and problem of the report has its row, and every EXPECTATION holds:
#
#     SERVICE=IMPLEMENTATION   a row of SERVICE by IMPLEMENTATION (hard-coded names, so an empty report fails)
#     !TEXT                    no service row whose implementation or source image is TEXT
#
# It prints one line (the services rendered) or FAILED with the reason and the DOM, and exits 1. Needs chromium
# (Scripts/install-dependencies.sh), curl and python3. Run-load-test.sh calls it before and after the upgrades.
#
#     Examples/PluginServer/check-debug-page.sh http://127.0.0.1:8080 "before" PluginServerAPI.Greeting=HelloV1.Greeter
set -euo pipefail

base="$1"
label="$2"
shift 2
fail() {
    echo "FAILED: the debug page ($label): $1"
    exit 1
}
browser="$(command -v chromium || command -v chromium-browser || true)"
[[ -n "$browser" ]] || fail "chromium is not installed (Scripts/install-dependencies.sh installs it)"

started="$(date +%s.%N)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -sf "$base/debug/beehive" >"$work/report.json" || fail "GET /debug/beehive failed"
type="$(curl -sf -o /dev/null -w '%{content_type}' "$base/debug/beehive.html")" || fail "GET /debug/beehive.html failed"
[[ "$type" == text/html* ]] || fail "GET /debug/beehive.html is $type, not text/html"

# A profile of its own (nothing shared with another run); the virtual time budget lets the page's fetch and
# rendering finish before the DOM is dumped. --no-sandbox: root in a container has no user namespaces for it.
timeout 60 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --virtual-time-budget=5000 --dump-dom "$base/debug/beehive.html" >"$work/dom.html" 2>"$work/chromium.log" ||
    { cat "$work/chromium.log"; fail "chromium failed"; }

seconds="$(awk -v start="$started" -v now="$(date +%s.%N)" 'BEGIN { printf "%.1f", now - start }')"
python3 - "$work/report.json" "$work/dom.html" "$label" "$seconds" "$@" <<'PY' || { cat "$work/dom.html"; exit 1; }
import json, sys
from html.parser import HTMLParser

label, seconds, expectations = sys.argv[3], sys.argv[4], sys.argv[5:]
try:
    report, dom = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
except ValueError as error:
    sys.exit(f"FAILED: the debug page ({label}): GET /debug/beehive is not JSON: {error}")


class Rows(HTMLParser):
    """The rows of the page's tables: each tr's class, data attributes and cell texts; the html element's."""

    def __init__(self):
        super().__init__()
        self.rows, self.row, self.cell, self.page = [], None, None, {}

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "html":
            self.page = attrs
        elif tag == "tr":
            data = {k[5:]: v or "" for k, v in attrs.items() if k.startswith("data-")}
            self.row = {"class": (attrs.get("class") or "").split(), "data": data, "cells": []}
            self.rows.append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row["cells"].append("".join(self.cell))
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


rows = Rows()
rows.feed(dom)
problems = []
if rows.page.get("data-report") != "loaded":
    problems.append(f"the page's script did not render the report (data-report={rows.page.get('data-report')!r})")
of = lambda kind: [r for r in rows.rows if kind in r["class"]]
services = of("service")

for s in report["services"]:
    wanted = {"service": s["service"], "name": s.get("name", ""), "implementation": s["implementation"],
              "state": s["state"], "image": s["source"].get("image", ""), "plugin": s.get("plugin", "")}
    if not any(all(r["data"].get(k) == v for k, v in wanted.items()) and s["source"]["description"] in r["cells"]
               for r in services):
        problems.append(f"no row for the service {wanted}")
plugins = {r["data"].get("plugin") for r in of("plugin")}
for entry in report["services"] + report.get("routes", []) + report.get("modules", []):
    if entry.get("plugin") and entry["plugin"] not in plugins:
        problems.append(f"no row for the plugin {entry['plugin']}")
for r in report.get("routes", []):
    if not any(x["data"].get("pattern") == r["pattern"] and x["data"].get("handler") == r["handler"] for x in of("route")):
        problems.append(f"no row for the route {r['pattern']} ({r['handler']})")
for w in report.get("withdrawn", []):
    if not any(x["data"].get("service") == w["service"] and w["reason"] in x["cells"] for x in of("withdrawn")):
        problems.append(f"no row for the withdrawn {w['service']}")
for p in report.get("problems", []):
    if not any(x["data"].get("code") == p["code"] and p["message"] in x["cells"] for x in of("problem")):
        problems.append(f"no row for the problem {p['code']}: {p['message']}")
for expectation in expectations:
    if expectation.startswith("!"):
        text = expectation[1:]
        if any(text in (r["data"].get("implementation"), r["data"].get("image")) for r in services):
            problems.append(f"a service row still shows {text}")
    else:
        service, implementation = expectation.split("=", 1)
        if not any(r["data"].get("service") == service and r["data"].get("implementation") == implementation
                   for r in services):
            problems.append(f"no row for {service} by {implementation}")

if problems:
    print(f"FAILED: the debug page ({label}), rendered by headless Chromium:\n  " + "\n  ".join(problems))
    sys.exit(1)
shown = ", ".join(f"{r['data']['implementation']} {r['data']['state']} ({r['data']['image'].rsplit('/', 1)[-1]})"
                  for r in services)
print(f"debug page ({label}, {seconds} s): {len(services)} services, {len(of('plugin'))} plugins, {len(of('route'))} routes, "
      f"{len(of('withdrawn'))} withdrawn, {len(of('problem'))} problems rendered, as the report has them "
      f"(+{len(expectations)} expected by name): {shown}")
PY
