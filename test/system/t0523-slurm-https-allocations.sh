#!/usr/bin/env bash
# Issue 14 §3 on the real cluster: `torcrun submit` against an HTTPS `torcrun server` (a test CA
# made here with openssl, Basic auth) carries out the spec's on_workflow_start schedule_nodes
# action, and the allocation's worker, which knows the CA only from the sbatch script
# (`--tls-ca-cert`, no TORC_TLS_CA_CERT anywhere in the environment), verifies the server and
# runs every job; its password comes from the worker configuration's password file and is in
# no script, log or job file (t0316 checks a wrong CA's message). `torcrun logs` finds the job's
# output through the directory the worker recorded on its compute node.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
trap 'cancel_workflow_allocations; kill_servers; slurm_cleanup' EXIT
unset TORC_TLS_CA_CERT TORC_PASSWORD TORC_API_URL
source "$(dirname "$0")/tls_lib.sh"
make_ca test-ca
make_cert server test-ca 'IP:127.0.0.1,DNS:localhost' 2
ca=$certs/test-ca.pem

# bcrypt (cost 4) of the password.
password='Tls-Pw-7fq2Xr'
echo 'alice:$2b$04$vzB1/26nFks3hhUMY6rU9eNbLEVHoczP8x0p1V5DjZc3BVYLlEaAW' >"$tmp/users"
printf '%s\n' "$password" >"$tmp/password"
start_server "$tmp/db" --tls-cert "$certs/server.pem" --tls-key "$certs/server.key" \
    --set auth.htpasswd_file="$tmp/users"
[[ $base == https://127.0.0.1:* ]] || fail "listening line: $base"
mkdir -p "$tmp/out"
cat >"$tmp/worker.json" <<JSON
{"server": {"url": "$base", "username": "alice", "password_file": "$tmp/password"},
 "output_dir": "$tmp/out",
 "poll": {"interval_seconds": 0.5, "long_poll_seconds": 1},
 "limits": {"idle_timeout_seconds": 20}}
JSON
cat >"$tmp/spec.json5" <<'JSON'
{
  name: "https-allocation",
  execution_config: {mode: "direct"},
  resource_requirements: [{name: "small", num_cpus: 1, memory: "100m", runtime: "PT1M"}],
  slurm_schedulers: [{name: "one_node", account: "test", nodes: 1, walltime: "00:03:00"}],
  actions: [{trigger_type: "on_workflow_start", action_type: "schedule_nodes",
             scheduler: "one_node", scheduler_type: "slurm", num_allocations: 1}],
  jobs: [
    {name: "a", command: "echo a on $SLURMD_NODENAME", resource_requirements: "small"},
    {name: "b", command: "env > \"$TORC_OUTPUT_DIR/b-env.txt\"; echo b", resource_requirements: "small"},
  ],
}
JSON
client=(--url "$base" --tls-ca-cert "$ca" --user alice --password-file "$tmp/password")
wf=$("$torcrun" submit "${client[@]}" --config "$tmp/worker.json" --output-dir "$tmp/out" \
    "$tmp/spec.json5" 2>"$tmp/submit.err") || fail "submit: $(cat "$tmp/submit.err")"
[[ "$wf" =~ ^[0-9]+$ ]] || fail "submit stdout is not an id: '$wf'"
scripts=("$tmp"/out/torcrun_wf"$wf"_one_node_a0_*.sh)
[ "${#scripts[@]}" = 1 ] && [ -f "${scripts[0]}" ] || fail "scripts: ${scripts[*]}"
grep -q -- "--tls-ca-cert $ca" "${scripts[0]}" || fail "the script has no CA: $(cat "${scripts[0]}")"

# The allocation runs both jobs and ends.
deadline=$((SECONDS + 120))
while [ -n "$(workflow_allocations)" ] || [ "$("$torcrun" jobs "${client[@]}" "$wf" --json |
        python3 -c 'import json, sys; print(sorted(j["status"] for j in json.load(sys.stdin)))')" \
        != "['completed', 'completed']" ]; do
    [ $SECONDS -lt $deadline ] || fail "not done after 120 s: $(workflow_allocations);" \
        "$(cat "$tmp"/out/slurm_output_wf"$wf"_sl*.e 2>/dev/null | tail -20)"
    sleep 0.5
done
# The logs, found through the directory the allocation's worker recorded on its compute node.
a_out=$(cd / && "$torcrun" logs "$wf" a "${client[@]}" 2>&1) || fail "logs a: $a_out"
[[ $a_out == "a on n1" || $a_out == "a on n2" ]] || fail "job a's stdout: $a_out"
grep -q '^TORC_API_URL=https://' "$tmp/out/b-env.txt" || fail "job b's env: $(cat "$tmp/out/b-env.txt")"
# The password is nowhere on disk but in its own file.
if grep -rlF -- "$password" "$tmp/out" "$tmp/submit.err" "$server_log"; then
    fail "the password was written into the files above"
fi

echo ok
