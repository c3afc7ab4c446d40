#!/usr/bin/env bash
# `torcrun server` with bcrypt cost 10 (about 60 ms a check): four clients sending wrong
# passwords, four requests at a time each, do not starve a client with the right password. Its
# credentials are cached after its first request and wrong passwords are checked off the reactor
# thread, so each of its pings is answered in well under a second (0.5 s allowed: the point is
# starvation, not speed; with bcrypt on the reactor 16 queued checks take about 1 s). The
# attackers get 401 throughout, and so does an unknown user.
set -euo pipefail
torcrun=$1
tmp=$(mktemp -d)
source "$(dirname "$0")/server_lib.sh"
trap 'stop_background; kill_servers; rm -rf "$tmp"' EXIT

# alice / "secret" at cost 10 (2^10 rounds).
echo 'alice:$2b$10$cm0S3A4h1OEfBt/Q/uD3eudTTIDIYA23P4IGZgBaka4Sm8UKPfeDq' >"$tmp/users"
start_server "$tmp/db" --set auth.htpasswd_file="$tmp/users"

ping_as() {  # ping_as USER:PASSWORD: prints "<status> <seconds>"
    curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -u "$1" "$base/ping"
}
read -r code _ < <(ping_as alice:secret)
[ "$code" = 200 ] || fail "right password: HTTP $code"
read -r code _ < <(ping_as mallory:secret)
[ "$code" = 401 ] || fail "unknown user: HTTP $code"

for i in 1 2 3 4; do
    (
        while [ ! -e "$tmp/stop" ]; do
            curl -s -w '%{http_code}\n' -u alice:wrong --parallel --parallel-max 4 \
                -o /dev/null "$base/ping" -o /dev/null "$base/ping" \
                -o /dev/null "$base/ping" -o /dev/null "$base/ping" >>"$tmp/attack.$i" 2>/dev/null || true
        done
    ) &
    background_pids+=($!)
done
sleep 1  # the attack in full swing

worst=0
for _ in $(seq 1 10); do
    read -r code seconds < <(ping_as alice:secret)
    [ "$code" = 200 ] || fail "ping during the attack: HTTP $code"
    worst=$(python3 -c 'import sys; print(max(float(sys.argv[1]), float(sys.argv[2])))' "$worst" "$seconds")
    sleep 0.1
done
touch "$tmp/stop"
wait "${background_pids[@]}"  # each loop ends after its current round
background_pids=()

attempts=$(cat "$tmp"/attack.* | wc -l)
refused=$(grep -c '^401$' "$tmp"/attack.* | awk -F: '{n += $2} END {print n}')
[ "$attempts" -ge 8 ] || fail "the attackers made only $attempts requests"
[ "$refused" = "$attempts" ] || fail "attackers: $refused of $attempts requests got 401"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) < 0.5 else 1)' "$worst" \
    || fail "the slowest ping took $worst s during the attack ($attempts wrong-password requests)"
echo "slowest ping $worst s while $attempts wrong-password requests were refused"

stop_server
[ "$stop_rc" = 0 ] || fail "server exit status $stop_rc: $(cat "$server_log")"
