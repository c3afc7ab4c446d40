#!/usr/bin/env bash
# Node monitoring (issue 23 item 6, resource_monitor.compute_node): `torcrun run` of a spec with
# compute_node {enabled: true, granularity: time_series} sampled every second and a job busy
# for 3 s: the compute node on the server (a `torcrun server` on the run's database) carries
# Torc's sample_count (>= 2), peak/avg CPU % (peak > 0 and >= avg) and peak/avg memory bytes;
# D/node_usage_<id>.json holds the node's points; D/report.html draws the node's CPU and memory
# lines. With granularity summary: the fields, no file, no lines. With compute_node {enabled:
# false}: no file, no usage fields, no node lines.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'kill_servers; rm -rf "$tmp"' EXIT
cd "$tmp"
unset TORC_API_URL

spec() {  # spec ENABLED [GRANULARITY]
    cat <<SPEC
{"name": "node monitoring",
 "resource_monitor": {"sample_interval_seconds": 1,
                      "compute_node": {"enabled": $1, "granularity": "${2:-time_series}"}},
 "jobs": [{"name": "busy",
           "command": "python3 -c 'import time\nt = time.time()\nwhile time.time() - t < 3: pass'"}]}
SPEC
}

spec true >"$tmp/on.json"
"$torcrun" run "$tmp/on.json" --output-dir "$tmp/D" >"$tmp/run.out" 2>"$tmp/run.err" ||
    fail "run: $(cat "$tmp/run.err")"

cp "$tmp/D/torcrun.db" "$tmp/on.db"
start_server "$tmp/on.db"
expect GET "/compute_nodes?workflow_id=1" "" 200
node=$(field "$body" 'd["items"][0]')
id=$(field "$node" 'd["id"]')
expect GET "/compute_nodes/$id" "" 200
[ "$(field "$body" 'd["sample_count"] >= 2')" = true ] || fail "sample_count: $body"
[ "$(field "$body" 'd["peak_cpu_percent"] > 0 and d["peak_cpu_percent"] >= d["avg_cpu_percent"]')" = true ] ||
    fail "CPU %: $body"
[ "$(field "$body" 'd["peak_memory_bytes"] > 0 and d["peak_memory_bytes"] >= d["avg_memory_bytes"] > 0')" = true ] ||
    fail "memory: $body"
[ "$(field "$body" 'd["is_active"]')" = false ] || fail "node still active: $body"
stop_server

file=$tmp/D/node_usage_$id.json
[ -f "$file" ] || fail "no $file: $(ls "$tmp/D")"
[ "$(field "$(cat "$file")" 'len(d["seconds"]) >= 2 and len(d["seconds"]) == len(d["cpu_percent"]) == len(d["memory_bytes"]) <= 80')" = true ] ||
    fail "node usage file: $(cat "$file")"
[ "$(field "$(cat "$file")" 'd["compute_node_id"]')" = "$id" ] || fail "node id: $(cat "$file")"
[ "$(field "$(cat "$file")" 'max(d["cpu_percent"]) > 0')" = true ] || fail "no CPU: $(cat "$file")"
grep -q "<path class=\"node-cpu\" data-node=\"$id\"" "$tmp/D/report.html" ||
    fail "report.html: no node CPU line"
grep -q "<path class=\"node-mem\" data-node=\"$id\"" "$tmp/D/report.html" ||
    fail "report.html: no node memory line"

# Summary: the node's figures on the server, no series.
spec true summary >"$tmp/summary.json"
"$torcrun" run "$tmp/summary.json" --output-dir "$tmp/S" >"$tmp/run-s.out" 2>"$tmp/run-s.err" ||
    fail "run (summary): $(cat "$tmp/run-s.err")"
compgen -G "$tmp/S/node_usage_*.json" >/dev/null && fail "a node usage file for summary"
grep -q 'node-cpu' "$tmp/S/report.html" && fail "node lines for summary"
cp "$tmp/S/torcrun.db" "$tmp/summary.db"
start_server "$tmp/summary.db"
expect GET "/compute_nodes?workflow_id=1" "" 200
[ "$(field "$body" 'd["items"][0]["sample_count"] >= 2 and d["items"][0]["peak_memory_bytes"] > 0')" = true ] ||
    fail "summary: $body"
stop_server

# Off: what Torc does when compute_node is absent or disabled.
spec false >"$tmp/off.json"
"$torcrun" run "$tmp/off.json" --output-dir "$tmp/E" >"$tmp/run-off.out" 2>"$tmp/run-off.err" ||
    fail "run (off): $(cat "$tmp/run-off.err")"
compgen -G "$tmp/E/node_usage_*.json" >/dev/null && fail "a node usage file without monitoring"
grep -q 'node-cpu\|node-mem\|node-usage' "$tmp/E/report.html" && fail "node lines without monitoring"
cp "$tmp/E/torcrun.db" "$tmp/off.db"
start_server "$tmp/off.db"
expect GET "/compute_nodes?workflow_id=1" "" 200
[ "$(field "$body" '[n.get("sample_count") for n in d["items"]] == [None]')" = true ] ||
    fail "usage fields without monitoring: $body"
stop_server
echo "ok"
