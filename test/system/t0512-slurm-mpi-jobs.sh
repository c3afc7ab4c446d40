#!/usr/bin/env bash
# Done-when 3 of issue 5: MPI programs as jobs of per-node workers launched by
# `srun --mpi=pmix`, so that each worker step carries PMIX_* variables, as the reporter's Cray PMI
# step did. Each worker runs two concurrent direct-mode jobs, each an Open MPI hello started as a
# singleton (tcp on lo, given through environment.set: the default scrub removes OMPI_*).
# With the scrub (default) every job is rank 0 of 1 and exits 0, and the workers live on to
# finish the workflow. With environment.scrub=false the same run fails as Torc's report says:
# the jobs join the worker step's PMIx namespace ("rank 1 of 2"), or MPI_Init aborts and Slurm
# kills the worker step. Both outcomes are asserted, so the test proves the scrub is the fix.
# Issue 22, the Torc way across nodes: a slurm-mode worker runs a job of num_nodes 2 as Torc
# v0.25.1's one-task step (`srun --nodes=2 --ntasks=1`); its command, run once, starts the MPI
# program over both nodes with its own `srun --overlap --mpi=pmix -N2 -n2`: rank 0 on n1, rank 1
# on n2, one MPI world of 2.
set -euo pipefail
torcrun=$(readlink -f "$1")
source "$(dirname "$0")/slurm_lib.sh"
source "$(dirname "$0")/slurm_worker_lib.sh"
slurm_use_cluster
slurm_worker_setup
command -v mpicc >/dev/null || fail "mpicc is missing (Debian: openmpi-bin libopenmpi-dev)"

cat >"$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char** argv)
{
    int rank = -1, size = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("%s rank %d of %d\n", getenv("SLURMD_NODENAME"), rank, size);
    fflush(stdout);
    sleep(3);
    MPI_Finalize();
    return 0;
}
C
mpicc -o "$tmp/hello" "$tmp/hello.c" || fail "mpicc failed"

python3 - "$tmp/spec.json" "$tmp/hello" <<'PY'
import json, sys
path, hello = sys.argv[1], sys.argv[2]
json.dump({"name": "mpi",
           "resource_requirements": [{"name": "half", "num_cpus": 4, "num_gpus": 0, "num_nodes": 1,
                                      "memory": "100m", "runtime": "PT1M"}],
           "jobs": [{"name": f"mpi{i}", "command": hello, "resource_requirements": "half"}
                    for i in range(4)]}, open(path, "w"))
PY
# write_config NAME SCRUB: $tmp/NAME.json, the worker configuration with environment.scrub=SCRUB.
write_config() {
    python3 - "$tmp/worker.json" "$tmp/$1.json" "$2" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["environment"] = {"scrub": sys.argv[3] == "true",
                    "set": {"OMPI_MCA_btl": "self,tcp", "OMPI_MCA_btl_tcp_if_include": "lo",
                            "OMPI_MCA_oob_tcp_if_include": "lo", "OMPI_ALLOW_RUN_AS_ROOT": "1",
                            "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}}
json.dump(c, open(sys.argv[2], "w"))
PY
}
outputs() { cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stdout 2>/dev/null | sort; }

# with the scrub: four singletons, two at a time on each node, all completed; workers exit 0
write_config scrubbed true
submit_workflow "$tmp/spec.json"
slurm_batch_wait 90 -N2 --exclusive --time=5 -o "$tmp/scrubbed.log" --wrap \
    "srun --mpi=pmix --ntasks-per-node=1 --overlap --kill-on-bad-exit=0 --wait=0 \
     $torcrun worker $wf --mode direct --config $tmp/scrubbed.json" ||
    fail "scrubbed: the allocation failed: $(tail -40 "$tmp/scrubbed.log")"
[ "$(job_status_counts)" = "completed 4" ] ||
    fail "scrubbed: statuses $(job_status_counts): $(tail -40 "$tmp/scrubbed.log")
the jobs' stderr: $(tail -n 20 "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stderr)"
got=$(outputs | tr '\n' ';')
[ "$got" = "n1 rank 0 of 1;n1 rank 0 of 1;n2 rank 0 of 1;n2 rank 0 of 1;" ] ||
    fail "scrubbed: the jobs printed: $got"
[ "$(grep -c 'exit 0 (workflow complete)' "$tmp/scrubbed.log")" = 2 ] ||
    fail "scrubbed: both workers should finish the workflow: $(tail -40 "$tmp/scrubbed.log")"
echo "scrubbed: $got"

# without it: the jobs join the worker step's namespace or abort in MPI_Init, and Slurm kills
# the worker step. The batch script's srun then does not return (the allocation would idle to
# its time limit), so this run is watched until the step is killed, then cancelled.
write_config unscrubbed false
submit_workflow "$tmp/spec.json"
job=$(slurm_submit -N2 --exclusive --time=5 -o "$tmp/unscrubbed.log" --wrap \
    "srun --mpi=pmix --ntasks-per-node=1 --overlap --kill-on-bad-exit=0 --wait=0 \
     $torcrun worker $wf --mode direct --config $tmp/unscrubbed.json")
deadline=$((SECONDS + 60))
until grep -qE 'STEP [0-9]+\.0 ON n[0-9]+ CANCELLED|rank [01] of 2' "$tmp/unscrubbed.log" \
    "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stdout 2>/dev/null; do
    [ $SECONDS -lt $deadline ] || fail "unscrubbed: nothing failed in 60 s: $(cat "$tmp/unscrubbed.log")"
    sleep 0.5
done
sleep 3
echo "unscrubbed: left on the nodes before scancel:" \
    "$(pgrep -fc "$tmp/hello" || true) MPI jobs, $(pgrep -fc "worker $wf --mode direct" || true) workers"
scancel "$job"
slurm_wait_jobs_done 30
got=$(outputs | tr '\n' ';')
echo "unscrubbed: jobs printed: ${got:-nothing}; statuses: $(job_status_counts)"
grep -hE 'MPI_Init|CANCELLED|Killed|rank [0-9] of 2|_errhandler' "$tmp/unscrubbed.log" \
    "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stderr 2>/dev/null | cut -c1-160 || true
joined=$(grep -c 'rank [01] of 2' <<<"$(outputs)" || true)
aborted=$(cat "$tmp"/out/jobs/wf"$wf"_j*/r*_a1/stderr | grep -c 'error occurred in MPI_Init' || true)
killed=$(grep -cE 'STEP [0-9]+\.0 ON n[0-9]+ CANCELLED' "$tmp/unscrubbed.log" || true)
[ "$joined" -gt 0 ] || [ "$aborted" -gt 0 ] ||
    fail "unscrubbed: no job joined the worker's namespace or aborted in MPI_Init: $got"
[ "$killed" -gt 0 ] || [ "$joined" -gt 0 ] ||
    fail "unscrubbed: Slurm did not kill the worker step: $(tail -20 "$tmp/unscrubbed.log")"
[ "$(job_status_counts)" != "completed 4" ] || fail "unscrubbed: the run did not fail"
left=$(pgrep -f "$tmp/hello" || true)
[ -z "$left" ] || fail "unscrubbed: MPI jobs left after the allocation: $left"
echo "unscrubbed: $joined jobs joined the worker's PMIx namespace, $aborted MPI_Init aborts," \
    "$killed worker step(s) cancelled by Slurm"

# slurm mode, a 2-node job: one task, whose own srun spreads the MPI ranks over the nodes
cat >"$tmp/spread.sh" <<SCRIPT
#!/bin/bash
echo "launcher on \$SLURMD_NODENAME" >&2
exec srun --overlap --mpi=pmix -N2 -n2 --ntasks-per-node=1 $tmp/hello
SCRIPT
chmod +x "$tmp/spread.sh"
python3 - "$tmp/spread.json" "$tmp/spread.sh" <<'PY'
import json, sys
json.dump({"name": "mpi-across-nodes",
           "resource_requirements": [{"name": "both", "num_cpus": 2, "num_gpus": 0, "num_nodes": 2,
                                      "memory": "100m", "runtime": "PT1M"}],
           "jobs": [{"name": "spread", "command": sys.argv[2], "resource_requirements": "both"}]},
          open(sys.argv[1], "w"))
PY
submit_workflow "$tmp/spread.json"
slurm_batch_wait 90 -N2 --exclusive --time=5 -o "$tmp/spread.log" --wrap \
    "exec $torcrun worker $wf --mode slurm --config $tmp/scrubbed.json" ||
    fail "across nodes: the allocation failed: $(tail -40 "$tmp/spread.log")"
attempt=$(echo "$tmp"/out/jobs/wf"$wf"_j*/r*_a1)
[ "$(job_status_counts)" = "completed 1" ] ||
    fail "across nodes: statuses $(job_status_counts): $(tail -20 "$tmp/spread.log")
the job's stderr: $(cat "$attempt/stderr")"
launchers=$(grep -c '^launcher on ' "$attempt/stderr" || true)
[ "$launchers" = 1 ] || fail "across nodes: the command ran $launchers times: $(cat "$attempt/stderr")"
got=$(sort "$attempt/stdout" | tr '\n' ';')
[ "$got" = "n1 rank 0 of 2;n2 rank 1 of 2;" ] || fail "across nodes: the ranks printed: $got"
grep -q -- '--ntasks=1 ' "$attempt/command.txt" || fail "across nodes: $(cat "$attempt/command.txt")"
echo "across nodes: one command, ranks $got"
echo ok
