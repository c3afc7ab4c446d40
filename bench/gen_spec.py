#!/usr/bin/env python3
"""Writes the Torc workflow specs the benchmarks run (JSON on stdout).

  gen_spec.py independent N CMD   N jobs running CMD, no dependencies
  gen_spec.py chain N CMD         N jobs running CMD, job i depends on job i-1
  gen_spec.py idle                one job needing 4096 CPUs: never claimable, never complete
  gen_spec.py sleep N SECONDS     N jobs running `sleep SECONDS`
  gen_spec.py staged STAGES WIDTH STAGES stages of WIDTH jobs; every job of a stage waits for
                                  every job of the one before, listed by name in even stages
                                  and by one regex in odd ones (STAGES-1 * WIDTH^2 edges)
  gen_spec.py fan N               N jobs stage1_i and N jobs stage2_i, each of the second
                                  waiting for all of the first through one regex (N^2 edges)
  gen_spec.py triangle N          N jobs, each listing every job before it by name
                                  (N(N-1)/2 edges)
  gen_spec.py dag N EDGES WIDTH   N jobs in levels of WIDTH, EDGES dependencies in all: each job
                                  past the first level depends on EDGES / (N - WIDTH) jobs of the
                                  level before (the first jobs one more, for the remainder)
"""
import json
import sys


def independent(n, cmd):
    return {"name": f"bench_independent_{n}",
            "jobs": [{"name": f"j{i}", "command": cmd} for i in range(n)]}


def chain(n, cmd):
    jobs = [{"name": "j0", "command": cmd}]
    jobs += [{"name": f"j{i}", "command": cmd, "depends_on": [f"j{i - 1}"]} for i in range(1, n)]
    return {"name": f"bench_chain_{n}", "jobs": jobs}


def idle():
    # A job no worker on this machine can take: the worker has nothing to claim and the
    # workflow never completes, so it stays up, idle, until it is stopped.
    return {"name": "bench_idle",
            "jobs": [{"name": "too_big", "command": "true", "resource_requirements": "huge"}],
            "resource_requirements": [{"name": "huge", "num_cpus": 4096, "memory": "1m"}]}


def sleeping(n, seconds):
    return {"name": f"bench_sleep_{n}",
            "jobs": [{"name": f"s{i}", "command": f"sleep {seconds}"} for i in range(n)]}


def staged(stages, width):
    # Templates, as a user writes them: one per stage, expanded over i.
    jobs = [{"name": "s0_{i}", "command": "echo {i}", "parameters": {"i": f"0:{width - 1}"}}]
    for k in range(1, stages):
        job = {"name": f"s{k}_{{i}}", "command": "echo {i}",
               "parameters": {"i": f"0:{width - 1}"}}
        if k % 2:
            job["depends_on_regexes"] = [f"^s{k - 1}_"]
        else:
            job["depends_on"] = [f"s{k - 1}_{j}" for j in range(width)]
        jobs.append(job)
    return {"name": f"bench_staged_{stages}x{width}", "jobs": jobs}


def fan(n):
    return {"name": f"bench_fan_{n}",
            "jobs": [{"name": "stage1_{i}", "command": "echo {i}",
                      "parameters": {"i": f"0:{n - 1}"}},
                     {"name": "stage2_{i}", "command": "echo {i}",
                      "parameters": {"i": f"0:{n - 1}"}, "depends_on_regexes": ["stage1_.*"]}]}


def triangle(n):
    return {"name": f"bench_triangle_{n}",
            "jobs": [{"name": f"j{i}", "command": "true", "depends_on": [f"j{k}" for k in range(i)]}
                     for i in range(n)]}
def dag(n, edges, width):
    if width <= 0 or width >= n:
        sys.exit("gen_spec.py dag: WIDTH must be between 1 and N - 1")
    dependents = n - width
    per, extra = divmod(edges, dependents)
    if per + 1 > width:
        sys.exit("gen_spec.py dag: more dependencies per job than jobs in a level")
    jobs = []
    for i in range(n):
        job = {"name": f"j{i}", "command": "true"}
        if i >= width:
            level_start = (i // width - 1) * width
            count = per + (1 if i - width < extra else 0)
            # distinct blockers in the level before, spread by a stride coprime to most widths
            job["depends_on"] = [f"j{level_start + (i + 7919 * k) % width}" for k in range(count)]
        jobs.append(job)
    return {"name": f"bench_dag_{n}_{edges}", "jobs": jobs}


def main(argv):
    kind = argv[1] if len(argv) > 1 else ""
    if kind == "independent" and len(argv) == 4:
        spec = independent(int(argv[2]), argv[3])
    elif kind == "chain" and len(argv) == 4:
        spec = chain(int(argv[2]), argv[3])
    elif kind == "idle" and len(argv) == 2:
        spec = idle()
    elif kind == "sleep" and len(argv) == 4:
        spec = sleeping(int(argv[2]), argv[3])
    elif kind == "staged" and len(argv) == 4:
        spec = staged(int(argv[2]), int(argv[3]))
    elif kind == "fan" and len(argv) == 3:
        spec = fan(int(argv[2]))
    elif kind == "triangle" and len(argv) == 3:
        spec = triangle(int(argv[2]))
    elif kind == "dag" and len(argv) == 5:
        spec = dag(int(argv[2]), int(argv[3]), int(argv[4]))
    else:
        sys.exit(__doc__)
    json.dump(spec, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv)
