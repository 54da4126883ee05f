#!/usr/bin/env bash
# Builds the plugin server, starts it on 127.0.0.1 with the hello feature (v1), drives bounded load with wrk (or a
# client loop of curl when wrk cannot be installed) while upgrading the feature 100 times (v2, v1, v2, …: each a new
# build copied over the feature's file in place, then POST /admin/upgrade/hello), then retires it and loads it again.
# Every answer is checked: each greeting must come from v1 or v2 (never "not found" or an error during an upgrade),
# and no probe that began after an upgrade returned, and ended before the next one was asked for, may see the old
# version. The script exits 1 on any failed request, wrong body or stale answer, and reports the requests served,
# the upgrade latencies, the moment answers switched from v1 to v2, the events the server logged, and its resident
# memory after each upgrade. Then it loads a second price plugin of a higher rank beside the first, checks that it
# serves, and retires it: the first serves again. Before the upgrades and after them, the server's debug page
# (/debug/beehive.html) is loaded in headless Chromium and checked (check-debug-page.sh).
#
#     Examples/PluginServer/run-load-test.sh            # debug build (the default; CONFIGURATION=release for release)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
configuration="${CONFIGURATION:-debug}"
upgrades="${UPGRADES:-100}"
port="${PORT:-$((20000 + RANDOM % 20000))}"
export PATH="/opt/swift/usr/bin:$PATH"

echo "== building ($configuration)"
swift build -c "$configuration" --package-path "$here" 2>&1 | grep -E "error|warning: |Build" | grep -v "unhandled; explicitly declare" || true
bin="$(swift build -c "$configuration" --package-path "$here" --show-bin-path)"
for product in PluginServer libHelloV1.so libHelloV2.so libPricesStandard.so libPricesPremium.so libPricesLegacy.so; do
    [[ -e "$bin/$product" ]] || { echo "missing $bin/$product"; exit 1; }
done

work="$(mktemp -d)"
server_pid=""
cleanup() {
    [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
cp "$bin/libHelloV1.so" "$work/hello.so"

echo "== starting the server on 127.0.0.1:$port"
"$bin/PluginServer" --port "$port" "hello=$work/hello.so" "standard=$bin/libPricesStandard.so" >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -sf "$base/version" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -sf "$base/version" >/dev/null || { echo "the server did not answer"; cat "$work/server.log"; exit 1; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"; }
echo "answers: $(curl -s "$base/hello/world")  rss: $(rss) kB"
# The debug page, rendered by headless Chromium: every service of the report, and these by name.
"$here/check-debug-page.sh" "$base" "before the upgrades" PluginServerAPI.Greeting=HelloV1.Greeter \
    PluginServerAPI.PriceService=PricesStandard.StandardPrices
hello_image() {
    curl -s "$base/debug/beehive" | python3 -c 'import json, sys
print([s["source"]["image"] for s in json.load(sys.stdin)["services"] if s["service"].endswith(".Greeting")][0])'
}
first_image="$(hello_image)"

if ! command -v wrk >/dev/null 2>&1; then
    (apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1)) || true
fi

duration=$((upgrades / 4 + 4))
# Probe: which version answers, with a timestamp, until the load ends.
(
    end=$((SECONDS + duration))
    while ((SECONDS < end)); do
        start="$(date +%s.%N)"
        answer="$(curl -s "$base/version" || echo failed)"
        printf '%s %s %s\n' "$start" "$(date +%s.%N)" "$answer"
    done
) >"$work/probe.log" &
probe_pid=$!

if command -v wrk >/dev/null 2>&1; then
    tool="wrk -t2 -c16 -d${duration}s"
    cat >"$work/count.lua" <<'LUA'
-- Every answer is read: a greeting from v1 or v2, or a wrong body (a "not found", an error, anything else).
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) bad = 0; v1 = 0; v2 = 0 end
function response(status, headers, body)
    if status == 200 and body:match("from v1") then v1 = v1 + 1
    elseif status == 200 and body:match("from v2") then v2 = v2 + 1
    else bad = bad + 1 end
end
done = function(summary, latency, requests)
    local e = summary.errors
    local wrong, ones, twos = 0, 0, 0
    for _, thread in ipairs(threads) do
        wrong = wrong + thread:get("bad"); ones = ones + thread:get("v1"); twos = twos + thread:get("v2")
    end
    io.write(string.format("served %d errors %d wrong %d v1 %d v2 %d\n", summary.requests,
        e.connect + e.read + e.write + e.status + e.timeout, wrong, ones, twos))
end
LUA
    wrk -t2 -c16 -d"${duration}s" -s "$work/count.lua" "$base/hello/load" >"$work/load.log" 2>&1 &
    load_pid=$!
else
    tool="a client loop of curl (4 clients; wrk could not be installed)"
    for client in 1 2 3 4; do
        (
            end=$((SECONDS + duration)); ok=0; bad=0
            while ((SECONDS < end)); do
                if curl -sf "$base/hello/load" | grep -q "from v"; then ok=$((ok + 1)); else bad=$((bad + 1)); fi
            done
            echo "$ok $bad" >"$work/client-$client"
        ) &
    done
    load_pid=""
fi

sleep 1
echo "== upgrading the hello feature $upgrades times under load ($tool)"
first_upgrade=""
sizes=()
for number in $(seq 1 "$upgrades"); do
    if ((number % 2 == 1)); then next="$bin/libHelloV2.so"; else next="$bin/libHelloV1.so"; fi
    cat "$next" >"$work/hello.so" # a new build written over the feature's file in place (same inode)
    stamp="$(date +%s.%N)"
    [[ -z "$first_upgrade" ]] && first_upgrade="$stamp"
    answer="$(curl -s -X POST "$base/admin/upgrade/hello")"
    returned="$(date +%s.%N)"
    [[ "$answer" == upgraded* ]] || { echo "upgrade $number failed: $answer"; exit 1; }
    echo "$stamp $returned $((number % 2 == 1 ? 2 : 1))" >>"$work/upgrades.log"
    sizes+=("$(rss)")
    sleep 0.1
done

if [[ -n "$load_pid" ]]; then wait "$load_pid"; else wait; fi
wait "$probe_pid" 2>/dev/null || true
kill -0 "$server_pid" 2>/dev/null || { echo "the server died"; cat "$work/server.log"; exit 1; }

echo "== retiring the feature, then loading it again"
last=$((upgrades % 2 == 1 ? 2 : 1))
retired="$(curl -s -X POST "$base/admin/retire/hello")"
after_retire="$(curl -s -o /dev/null -w '%{http_code}' "$base/version")"
reloaded="$(curl -s -X POST "$base/admin/load/hello")"
after_reload="$(curl -s "$base/version")"
echo "$retired$after_retire after the retire; $reloaded$after_reload"
[[ "$retired" == retired* && "$after_retire" == 404 && "$reloaded" == loaded* && "$after_reload" == "hello plugin v$last" ]] ||
    { echo "FAILED: retire and reload"; cat "$work/server.log"; exit 1; }

echo "== ranks: a premium price plugin (rank 10) beside the standard one (rank 0), then retired"
price() { curl -s "$base/price/apple"; }
standard_first="$(price)"
# A plugin built for PluginServerAPI 1.3 (the server serves 2.0.0): refused before it joins, and no later load is
# affected by it.
legacy="$(curl -s -X POST "$base/admin/load/legacy?path=$bin/libPricesLegacy.so")"
echo "$legacy" | head -3
[[ "$legacy" == *"load of legacy failed"*"[refused]"*"incompatibleAPIVersion"* &&
    "$legacy" == *"PricesLegacy.LegacyPrices was built against 1.3.0"* && "$(price)" == "apple: 10 (standard)" ]] ||
    { echo "FAILED: the legacy plugin (API 1.3) was not refused as expected"; exit 1; }
premium_loaded="$(curl -s -X POST "$base/admin/load/premium?path=$bin/libPricesPremium.so")"
premium_serves="$(price)"
all_prices="$(curl -s "$base/prices/apple" | tr '\n' ';')"
# The report: the premium prices serve, the standard ones wait behind them, each naming its plugin.
report="$(curl -s "$base/debug/beehive")"
python3 - "$report" <<'PY' || { echo "FAILED: the report"; echo "$report"; exit 1; }
import json, sys
report = json.loads(sys.argv[1])
prices = [s for s in report["services"] if s["service"] == "PluginServerAPI.PriceService"]
states = [(s["implementation"], s["state"], s.get("rank", 0), s["plugin"].rsplit("/", 1)[-1]) for s in prices]
assert [(s[0], s[2]) for s in states] == [("PricesPremium.PremiumPrices", 10), ("PricesStandard.StandardPrices", 0)], states
assert states[0][1] in ("bound", "created") and states[1][1] == "waiting", states
assert [s[3] for s in states] == ["libPricesPremium.so", "libPricesStandard.so"], states
print("report: " + ", ".join(f"{i} {st} rank {r} ({p})" for i, st, r, p in states) + f"; {len(report['services'])} services")
PY
# The page after the upgrades, and one more to the other version (from its build's path): the hello feature's new
# implementation from a new image, not the first image nor the version before; the premium prices beside the
# standard ones.
other=$((3 - last))
switched="$(curl -s -X POST "$base/admin/upgrade/hello?path=$bin/libHelloV$other.so")"
[[ "$switched" == upgraded* && "$(curl -s "$base/version")" == "hello plugin v$other" ]] ||
    { echo "FAILED: the upgrade to v$other: $switched"; exit 1; }
"$here/check-debug-page.sh" "$base" "after the upgrades" "PluginServerAPI.Greeting=HelloV$other.Greeter" \
    "!HelloV$last.Greeter" "!$first_image" PluginServerAPI.PriceService=PricesPremium.PremiumPrices \
    PluginServerAPI.PriceService=PricesStandard.StandardPrices
premium_retired="$(curl -s -X POST "$base/admin/retire/premium")"
standard_again="$(price)"
echo "$standard_first | $premium_serves | all: $all_prices | after the retire: $standard_again"
[[ "$standard_first" == "apple: 10 (standard)" && "$premium_loaded" == loaded* && "$premium_serves" == "apple: 8 (premium)" &&
    "$all_prices" == "apple: 8 (premium);apple: 10 (standard);" && "$premium_retired" == retired* &&
    "$standard_again" == "apple: 10 (standard)" ]] || { echo "FAILED: ranks"; cat "$work/server.log"; exit 1; }
grep "^prices: " "$work/server.log" || true

wrong=0
if [[ -n "$load_pid" ]]; then
    served=$(awk '/^served/ { print $2 }' "$work/load.log")
    failed=$(awk '/^served/ { print $4 }' "$work/load.log")
    wrong=$(awk '/^served/ { print $6 }' "$work/load.log")
    versions=$(awk '/^served/ { printf "v1 %d, v2 %d", $8, $10 }' "$work/load.log")
    grep -E "Requests/sec|Latency" "$work/load.log" || true
else
    served=0; failed=0
    for client in 1 2 3 4; do
        read -r ok bad <"$work/client-$client"; served=$((served + ok + bad)); failed=$((failed + bad))
    done
fi
switch=$(awk -v start="$first_upgrade" '$3 == "hello" && $5 == "v2" && $1 >= start { printf "%.1f ms", ($2 - start) * 1000; exit }' "$work/probe.log")
probes_failed=$(grep -c -v -E "hello plugin v[12]$" "$work/probe.log" || true)
# A probe that began after upgrade n returned and ended before upgrade n + 1 was asked for must see n's version.
stale=$(awk 'NR == FNR { sent[NR] = $1; back[NR] = $2; version[NR] = $3; n = NR; next }
    $3 == "hello" {
        for (i = n; i >= 1 && back[i] > $1; i--) {}
        if (i >= 1 && (i == n || $2 < sent[i + 1]) && $5 != "v" version[i]) bad++
    }
    END { print bad + 0 }' "$work/upgrades.log" "$work/probe.log")
latencies=$(awk '{ printf "%.1f\n", ($2 - $1) * 1000 }' "$work/upgrades.log" | sort -n |
    awk '{ v[NR] = $1 } END { printf "p50 %s ms, p90 %s ms, p99 %s ms, max %s ms", v[int(NR * 0.5) + 1], v[int(NR * 0.9) + 1], v[int(NR * 0.99) + 1], v[NR] }')
events=$(grep -c "^greeting: " "$work/server.log" || true)
removing=$(grep -c "^greeting: removing" "$work/server.log" || true)

echo "== results"
echo "requests served:        $served (plus $(wc -l <"$work/probe.log") probes of /version)"
echo "failed requests:        $failed (probes failed: $probes_failed)"
echo "wrong bodies:           $wrong (${versions:-not counted by the curl clients}); stale v1/v2 after an upgrade returned: $stale"
echo "upgrade latency:        $latencies ($upgrades upgrades)"
echo "greeting events logged: $events ($removing removing)"
echo "v1 -> v2 switch:        first v2 answer ${switch:-never} after the first upgrade request was sent"
echo "rss before upgrades:    see above; after each upgrade (kB): ${sizes[*]}"
echo "rss growth:             $(((sizes[${#sizes[@]} - 1] - sizes[0]) / (${#sizes[@]} - 1))) kB per upgrade (upgrade 1 to $upgrades)"
if ((failed > 0 || probes_failed > 0 || wrong > 0 || stale > 0 || removing < upgrades)); then
    echo "FAILED: $failed failed requests, $wrong wrong bodies, $stale stale answers, $removing removing events"
    exit 1
fi
echo "OK"
