"""torcrun's stand-in for the parts of Torc's Python client that orchestrator jobs use.

Newer Torc's dynamic-jobs orchestrators (its examples/scripts/dynamic_orchestrator.py) do
``from torc import Orchestrator, SpawnJobModel``. Torc's own module is a generated OpenAPI client;
this one has the same names and calls but sends nothing over HTTP itself: every call runs
``torcrun spawn-jobs``, which reads the job's identity (server, workflow, job, attempt, run,
lineage) from the environment the torcrun worker gave the job, fences the request by the job's
attempt and sends it again, unchanged, when a reply is lost (the server answers a replay with the
jobs the first request created).

Put this directory on PYTHONPATH (``PYTHONPATH=<torcrun>/python``) in the workflow's ``env``, or
where the worker starts. The ``torcrun`` binary is ``$TORCRUN`` when set, else ``torcrun`` on PATH.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any, Optional

__all__ = ("Orchestrator", "SpawnJobModel", "SpawnJobsResponse")


@dataclass
class SpawnJobModel:
    """One job to add (Torc's SpawnJobModel)."""

    name: str
    command: str
    resource_requirements: Optional[str] = None
    priority: Optional[int] = None
    depends_on: Optional[list[str]] = None
    cancel_on_blocking_job_failure: Optional[bool] = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "command": self.command}
        for key in ("resource_requirements", "priority", "depends_on",
                    "cancel_on_blocking_job_failure"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out


@dataclass
class SpawnJobsResponse:
    """The server's answer (Torc's SpawnJobsResponse)."""

    spawned_job_ids: list[int] = field(default_factory=list)
    iteration: int = 0


def _torcrun() -> str:
    exe = os.environ.get("TORCRUN") or shutil.which("torcrun")
    if not exe:
        raise RuntimeError("torcrun is not on PATH and TORCRUN is unset: the torc module of "
                           "torcrun runs `torcrun spawn-jobs`")
    return exe


def _run(args: list[str], stdin: Optional[str] = None) -> str:
    done = subprocess.run([_torcrun(), "spawn-jobs", *args], input=stdin, text=True,
                          stdout=subprocess.PIPE, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"torcrun spawn-jobs {' '.join(args)} failed with exit code "
                           f"{done.returncode} (its message is on stderr)")
    return done.stdout


class Orchestrator:
    """A dynamic-jobs orchestrator job: its lineage, generation, spawn and converge."""

    def __init__(self, workflow_id: int, job_id: int, lineage: str) -> None:
        self.workflow_id = workflow_id
        self.job_id = job_id
        self.lineage = lineage
        self._generation: Optional[int] = None

    @classmethod
    def from_env(cls, *, lineage_fallback: Optional[str] = None) -> "Orchestrator":
        for name in ("TORC_API_URL", "TORC_WORKFLOW_ID", "TORC_JOB_ID"):
            if not os.environ.get(name):
                raise RuntimeError(f"Required environment variable {name!r} is unset")
        lineage = os.environ.get("TORC_ORCHESTRATOR_LINEAGE_ID") or lineage_fallback
        if not lineage:
            raise RuntimeError("Orchestrator lineage is unset: provide `lineage_fallback` "
                               "(typically `sys.argv[1]`) on the seed invocation; spawned "
                               "continuations inherit it via TORC_ORCHESTRATOR_LINEAGE_ID.")
        return cls(int(os.environ["TORC_WORKFLOW_ID"]), int(os.environ["TORC_JOB_ID"]), lineage)

    @property
    def generation(self) -> int:
        if self._generation is None:
            self._generation = int(_run(["--generation", "--lineage", self.lineage]).strip())
        return self._generation

    def _call(self, jobs: list[SpawnJobModel], state: Any) -> SpawnJobsResponse:
        request = {"lineage": self.lineage, "jobs": [j.to_dict() for j in jobs]}
        if state is not None:
            request["state"] = state
        answer = json.loads(_run(["-"], stdin=json.dumps(request)))
        return SpawnJobsResponse(spawned_job_ids=list(answer["spawned_job_ids"]),
                                 iteration=int(answer["iteration"]))

    def spawn(self, jobs: list[SpawnJobModel], *, state: Any = None) -> SpawnJobsResponse:
        response = self._call(jobs, state)
        self._generation = None
        return response

    def converge(self, *, state: Any = None) -> SpawnJobsResponse:
        return self._call([], state)
