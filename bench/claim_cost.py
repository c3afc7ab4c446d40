#!/usr/bin/env python3
"""Server CPU and wall time per claim: TORCRUN READY CLAIMS GROUPS.

Starts `TORCRUN server` on a temporary database, creates READY + CLAIMS jobs spread over GROUPS
resource requirements, then times CLAIMS one-job claim_jobs_based_on_resources requests over one
keep-alive connection; the server's CPU comes from /proc (10 ms ticks, so use 1,000 claims)."""
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

binary, ready, n, groups = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tmp = tempfile.mkdtemp(prefix="torcrun-claim-cost-")
log = open(os.path.join(tmp, "server.log"), "w+")
srv = subprocess.Popen([binary, "server", "--port", "0", "--db", os.path.join(tmp, "t.db")],
                       stderr=log)
try:
    m = None
    for _ in range(200):
        log.seek(0)
        m = re.search(r"listening on http://127.0.0.1:(\d+)(/\S*)", log.read())
        if m:
            break
        time.sleep(0.05)
    if not m:
        sys.exit("claim_cost: no listening line from the server")
    conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)))

    def call(method, path, body=None):
        conn.request(method, m.group(2) + path, body=None if body is None else json.dumps(body),
                     headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        if r.status != 200:
            sys.exit(f"claim_cost: {method} {path}: HTTP {r.status}: {data!r}")
        return json.loads(data)

    call("POST", "/workflows", {"name": "w", "user": "me"})
    rr = [call("POST", "/resource_requirements",
               {"workflow_id": 1, "name": f"r{k}", "num_cpus": 1 + k % 4})["id"]
          for k in range(groups)]
    call("POST", "/bulk_jobs", {"jobs": [
        {"workflow_id": 1, "name": f"j{i}", "command": "c",
         "resource_requirements_id": rr[i % groups]}
        for i in range(ready + n)]})
    call("POST", "/workflows/1/initialize_jobs")
    body = {"num_cpus": 8, "memory_gb": 16, "num_gpus": 0, "num_nodes": 1}

    def ticks():
        fields = open(f"/proc/{srv.pid}/stat").read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    t0, w0 = ticks(), time.perf_counter()
    for _ in range(n):
        if len(call("POST", "/workflows/1/claim_jobs_based_on_resources/1", body)["jobs"]) != 1:
            sys.exit("claim_cost: a claim got no job")
    t1, w1 = ticks(), time.perf_counter()
    cpu_us = (t1 - t0) / os.sysconf("SC_CLK_TCK") * 1e6 / n
    print(f"ready {ready + n}..{ready} groups {groups} claims {n}: "
          f"server CPU {cpu_us:.0f} us/claim, wall {(w1 - w0) * 1e6 / n:.0f} us/claim")
finally:
    srv.terminate()
    srv.wait()
    shutil.rmtree(tmp)
