#!/usr/bin/env bash
# Builds the plugin server, starts it on 127.0.0.1 with the hello feature (v1), drives bounded load with wrk (or a
# client loop of curl when wrk cannot be installed) while upgrading the feature 20 times (v2, v1, v2, …: each a new
# build copied over the feature's file in place, then POST /admin/upgrade/hello), and reports the requests served,
# the failed requests (must be 0: the script exits 1 otherwise), the moment answers switched from v1 to v2, and the
# server's resident memory after each upgrade.
#
#     Examples/PluginServer/run-load-test.sh            # debug build (the default; CONFIGURATION=release for release)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
configuration="${CONFIGURATION:-debug}"
upgrades="${UPGRADES:-20}"
port="${PORT:-$((20000 + RANDOM % 20000))}"
export PATH="/opt/swift/usr/bin:$PATH"

echo "== building ($configuration)"
swift build -c "$configuration" --package-path "$here" 2>&1 | grep -E "error|warning: |Build" | grep -v "unhandled; explicitly declare" || true
bin="$(swift build -c "$configuration" --package-path "$here" --show-bin-path)"
for product in PluginServer libHelloV1.so libHelloV2.so; do
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
"$bin/PluginServer" --port "$port" "hello=$work/hello.so" >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 100); do
    curl -sf "$base/version" >/dev/null 2>&1 && break
    sleep 0.1
done
curl -sf "$base/version" >/dev/null || { echo "the server did not answer"; cat "$work/server.log"; exit 1; }
rss() { awk '/^VmRSS:/ { print $2 }' "/proc/$server_pid/status"; }
echo "answers: $(curl -s "$base/hello/world")  rss: $(rss) kB"

if ! command -v wrk >/dev/null 2>&1; then
    (apt-get install -y wrk >/dev/null 2>&1 || (apt-get update >/dev/null 2>&1 && apt-get install -y wrk >/dev/null 2>&1)) || true
fi

duration=$((upgrades / 4 + 4))
# Probe: which version answers, with a timestamp, until the load ends.
(
    end=$((SECONDS + duration))
    while ((SECONDS < end)); do
        printf '%s %s\n' "$(date +%s.%N)" "$(curl -s "$base/version" || echo failed)"
    done
) >"$work/probe.log" &
probe_pid=$!

if command -v wrk >/dev/null 2>&1; then
    tool="wrk -t2 -c16 -d${duration}s"
    cat >"$work/count.lua" <<'LUA'
done = function(summary, latency, requests)
    local e = summary.errors
    io.write(string.format("served %d errors %d\n", summary.requests,
        e.connect + e.read + e.write + e.status + e.timeout))
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
    [[ "$answer" == upgraded* ]] || { echo "upgrade $number failed: $answer"; exit 1; }
    sizes+=("$(rss)")
    sleep 0.2
done

if [[ -n "$load_pid" ]]; then wait "$load_pid"; else wait; fi
wait "$probe_pid" 2>/dev/null || true
kill -0 "$server_pid" 2>/dev/null || { echo "the server died"; cat "$work/server.log"; exit 1; }

if [[ -n "$load_pid" ]]; then
    served=$(awk '/^served/ { print $2 }' "$work/load.log")
    failed=$(awk '/^served/ { print $4 }' "$work/load.log")
    grep -E "Requests/sec|Latency" "$work/load.log" || true
else
    served=0; failed=0
    for client in 1 2 3 4; do
        read -r ok bad <"$work/client-$client"; served=$((served + ok + bad)); failed=$((failed + bad))
    done
fi
switch=$(awk -v start="$first_upgrade" '$2 == "hello" && $4 == "v2" && $1 >= start { printf "%.1f ms", ($1 - start) * 1000; exit }' "$work/probe.log")
probes_failed=$(grep -c -v -E "hello plugin v[12]$" "$work/probe.log" || true)

echo "== results"
echo "requests served:        $served (plus $(wc -l <"$work/probe.log") probes of /version)"
echo "failed requests:        $failed (probes failed: $probes_failed)"
echo "v1 -> v2 switch:        first v2 answer ${switch:-never} after the first upgrade request was sent"
echo "rss before upgrades:    see above; after each upgrade (kB): ${sizes[*]}"
echo "rss growth:             $(((sizes[${#sizes[@]} - 1] - sizes[0]) / (${#sizes[@]} - 1))) kB per upgrade (upgrade 1 to $upgrades)"
if ((failed > 0 || probes_failed > 0)); then
    echo "FAILED: $failed failed requests"
    exit 1
fi
echo "OK"
