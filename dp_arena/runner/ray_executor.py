"""Running table units on Ray: an embedded local Ray, or an existing cluster.

:class:`RayExecutor` sends batches of table units to Ray tasks
(:func:`~dp_arena.runner.worker.run_batch`); each task seats its units' bots in the
worker, plays them and returns plain JSON data. The bots' files travel with the work
(:mod:`dp_arena.runner.parcels`): each bot that is not part of dp-arena is packed once,
put in Ray's object store, and named by its content hash in the batches that seat it,
so a node needs only the same dp-arena. Units go out as JSON data
(:meth:`~dp_arena.units.TableUnit.to_json`) and results come back as JSON
data, handed on in the order of the units, so every executor and every worker count
gives the same results.

- **Embedded** (no address): a private Ray instance is started for the run with
  ``address="local"`` (a plain ``ray.init()`` would join whatever cluster runs on the
  machine), one CPU per worker, no dashboard, no usage statistics, worker output kept
  out of the terminal, and is shut down at the end; its logs are copied into the run
  directory. It dies with the driver, even one killed with ``SIGKILL``: a watchdog
  (:mod:`dp_arena.runner.ray_watchdog`) kills what is left of it.
- **A cluster** (``address`` is ``"auto"``, ``"host:port"`` or ``"ray://host:port"``):
  the driver connects, uses the cluster's CPUs (``workers`` caps the tasks in flight),
  and disconnects at the end without stopping anything.

On a cluster of more than one node, the driver places every table itself, so that the
mirrored copies of a bot in one section play on different nodes
(:mod:`dp_arena.runner.placement`; ``mirrors_apart=False`` leaves it to Ray): each batch
holds the tables of one node, and is bound to that node. :attr:`RayExecutor.placement`
says what was done, counted from the node each batch reports it played on.

Ray retries a task whose worker died (``max_retries``); a unit's result is the same
whichever attempt produced it. Ray is imported only when an executor starts.
"""

from __future__ import annotations

import itertools
import logging
import math
import os
import shutil
import socket
import sys
import time
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dp_arena.errors import RunError
from dp_arena.results import TableSessionResult
from dp_arena.rundir.store import StoredResults, stored_data
from dp_arena.runner.checkpoint import ResultSink
from dp_arena.runner.fingerprint import code_version, package_folder
from dp_arena.runner.placement import MirrorCount, Node, Placement, place
from dp_arena.runner.ray_watchdog import Watchdog, new_instance_folder, start_watchdog
from dp_arena.runner.worker import run_batch, warm_up
from dp_arena.units import OnResult, TableUnit

__all__ = ["RayExecutor", "check_address"]

# Results are small and fetched as soon as they arrive; a modest object store keeps Ray
# from reserving a third of the memory (and, with a 64 MB /dev/shm, of /tmp).
_OBJECT_STORE_BYTES = 256 * 1024 * 1024


class RayExecutor:
    """Runs table units on Ray, in batches. Use it as a context manager (or call
    :meth:`start` and :meth:`close`); :meth:`run` starts it when needed.

    ``workers``: embedded, the CPUs of the local Ray (default: this machine's cores);
    on a cluster, the most tasks in flight (default: the cluster's CPUs). Several
    batches per worker keep the workers busy to the end of a session; a batch is at
    most ``max_batch`` units. ``mirrors_apart``: on a cluster of several nodes, place
    the tables so that a bot's mirrored copies in a section play on different nodes (the
    module docstring); ``False`` lets Ray place them.
    """

    def __init__(
        self,
        *,
        address: str | None = None,
        workers: int | None = None,
        log_dir: Path | None = None,
        max_retries: int = 3,
        batches_per_worker: int = 8,
        max_batch: int = 32,
        mirrors_apart: bool = True,
    ) -> None:
        if workers is not None and workers < 1:
            raise RunError(f"--workers must be at least 1, not {workers}")
        self.address = address
        self.workers = workers
        self.log_dir = log_dir
        self.max_retries = max_retries
        self.batches_per_worker = batches_per_worker
        self.max_batch = max_batch
        self.mirrors_apart = mirrors_apart
        self.nodes: list[Node] = []  # the cluster's nodes that can play, found at start
        self._most_together = 0  # most copies of a bot in a section that shared a node
        self.startup_seconds = 0.0
        self.code_version = ""
        self.capacity = 0
        self.tasks = 0
        self.worker_peaks_kib: dict[str, int] = {}
        # spec -> its parcel's descriptor (None: it does not travel), packed once a run.
        self._parcels: dict[str, dict[str, Any] | None] = {}
        self.copied_bots: dict[str, set[str]] = {}  # worker -> specs seated from copies
        self._remote: Any = None
        self._owns_connection = False
        self._embedded = False
        self._logs_source: Path | None = None
        self._watchdog: Watchdog | None = None
        self._instance_folder: Path | None = None

    @property
    def description(self) -> str:
        if self._embedded:
            return f"Ray (embedded, {self.capacity} workers)"
        if self.address is None:
            return f"Ray (already running in this process, {self.capacity} workers)"
        return f"Ray cluster at {self.address} ({self.capacity} workers)"

    @property
    def placement(self) -> Placement:
        """How the tables were placed on the cluster's nodes (so far)."""
        if len(self.nodes) <= 1:
            return Placement("one node", 1)
        mode = "apart" if self.mirrors_apart else "off"
        return Placement(mode, len(self.nodes), self._most_together)

    @property
    def logs(self) -> Path | None:
        """The embedded Ray's log folder (copied into ``log_dir`` at the end)."""
        return self._logs_source

    # -- life cycle --------------------------------------------------------------------

    def start(self) -> None:
        """Start (embedded) or join (address) Ray; a Ray already initialised in this
        process (a notebook, a test fixture) is used as it is and left running."""
        if self._remote is not None:
            return
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        if self.address is not None:
            check_address(self.address)
        _choose_authentication(embedded=self.address is None)
        import ray

        self.code_version = code_version()
        started = time.perf_counter()
        try:
            if ray.is_initialized():
                self._owns_connection = False
            elif self.address is None:
                # The watchdog first, so that a driver killed while Ray starts leaves
                # nothing either: it knows the instance by its private folder.
                self._instance_folder = new_instance_folder()
                self._watchdog = start_watchdog(self._instance_folder)
                ray.init(
                    address="local",
                    num_cpus=self.workers or os.cpu_count() or 1,
                    include_dashboard=False,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                    object_store_memory=_OBJECT_STORE_BYTES,
                    namespace="dp-arena",
                    _temp_dir=str(self._instance_folder),
                )
                self._owns_connection = True
                self._embedded = True
                self._logs_source = _session_logs()
            elif self.address.startswith("ray://"):
                ray.init(address=self.address, logging_level=logging.WARNING, namespace="dp-arena")
                self._owns_connection = True
            else:
                ray.init(
                    address=self.address,
                    log_to_driver=False,
                    logging_level=logging.WARNING,
                    namespace="dp-arena",
                )
                self._owns_connection = True
        except (ConnectionError, RuntimeError, ValueError) as error:
            self._stop_watchdog()
            where = (
                "start a local Ray"
                if self.address is None
                else f"join the Ray cluster at {self.address}"
            )
            raise RunError(f"cannot {where}: {error}") from None
        cluster_cpus = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call]
        self.capacity = self.workers if self.workers is not None else max(1, cluster_cpus)
        if self._embedded:
            self.capacity = min(self.capacity, cluster_cpus)
        self.nodes = _playing_nodes(ray)
        self._remote = ray.remote(num_cpus=1, max_retries=self.max_retries)(run_batch)
        # Start the workers and let them import the engine now, all at once, so start-up
        # is measured as start-up and not billed to the first table-sessions.
        warm = ray.remote(num_cpus=1)(warm_up)
        ray.get([warm.remote() for _ in range(self.capacity)])
        self.startup_seconds = time.perf_counter() - started

    def close(self) -> None:
        """Shut down the embedded Ray, or disconnect from the cluster; copy Ray's logs
        into ``log_dir``."""
        if self._remote is None:
            return
        self._remote = None
        if not self._owns_connection:
            return
        import ray

        ray.shutdown()
        self._stop_watchdog()
        if self._logs_source is not None and self.log_dir is not None:
            shutil.copytree(self._logs_source, self.log_dir / "ray", dirs_exist_ok=True)
            # The logs are kept in the run directory: the instance's folder can go.
            if self._instance_folder is not None:
                shutil.rmtree(self._instance_folder, ignore_errors=True)

    def _stop_watchdog(self) -> None:
        """After Ray's own shutdown: the watchdog kills any process of the instance still
        there, and ends."""
        if self._watchdog is not None:
            self._watchdog.close()
            self._watchdog = None

    def __enter__(self) -> RayExecutor:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- running -----------------------------------------------------------------------

    def batch_size(self, units: int) -> int:
        """Units per task for ``units`` units: several batches per worker, at most
        ``max_batch``."""
        wanted = max(1, self.capacity) * self.batches_per_worker
        return max(1, min(self.max_batch, math.ceil(units / wanted)))

    def run_json(
        self,
        units: Sequence[TableUnit],
        on_result: ResultSink | None = None,
        *,
        histories: bool = False,
    ) -> Sequence[dict[str, Any]]:
        """Results of ``units`` as JSON data, in the order of ``units``;
        ``on_result(index, data, history, stored)`` is told of each as it arrives, with
        its hand history as the worker wrote it when ``histories`` (else ``None``) and
        its stored form as the worker encoded it (each result crosses from the worker
        in that form: compressed, and encoded where it was played)."""
        self.start()
        import ray

        self._pack(ray, units)
        queue = deque(self._batches(units))
        # Embedded, Ray's CPUs bound the work in flight; on a cluster, ``workers`` does.
        limit = self.workers if (self.workers and not self._embedded) else len(queue)
        pending: dict[Any, list[int]] = {}
        results: list[bytes | None] = [None] * len(units)  # stored forms: see StoredResults
        together = MirrorCount()  # where each table did play, as its worker says
        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    indices, node = queue.popleft()
                    chosen = [units[index] for index in indices]
                    batch = [unit.to_json() for unit in chosen]
                    parcels = self._batch_parcels(chosen)
                    pending[self._task(node).remote(batch, histories, parcels)] = indices
                    self.tasks += 1
                ready, _ = ray.wait(list(pending), num_returns=1)
                for reference in ready:
                    indices = pending.pop(reference)
                    chosen = [units[index] for index in indices]
                    payload = self._fetch(ray, reference, chosen)
                    if payload.get("node") is not None:
                        for unit in chosen:
                            together.add(payload["node"], unit)
                        self._most_together = max(self._most_together, together.most)
                    texts = payload.get("histories") or [None] * len(payload["results"])
                    for index, stored, text in zip(indices, payload["results"], texts, strict=True):
                        results[index] = stored
                        if on_result is not None:
                            on_result(index, stored_data(stored), text, stored)
        except BaseException:
            for reference in pending:
                ray.cancel(reference, force=True)
            raise
        missing = [index for index, stored in enumerate(results) if stored is None]
        if missing:
            raise RunError(f"Ray returned no result for {len(missing)} of {len(units)} table units")
        return StoredResults([stored for stored in results if stored is not None])

    def _batches(self, units: Sequence[TableUnit]) -> list[tuple[list[int], str | None]]:
        """The batches of ``units`` (their indices), each with the node it is bound to
        (``None``: wherever Ray sends it). Mirrors apart, each node's tables are batched
        apart, several batches for each of its CPUs, and the nodes' batches interleaved so
        that every node has work from the start; else the units in order."""
        if not self.mirrors_apart or len(self.nodes) <= 1:
            size = self.batch_size(len(units))
            return [
                (list(range(start, min(start + size, len(units)))), None)
                for start in range(0, len(units), size)
            ]
        placed: dict[str, list[int]] = {node.node_id: [] for node in self.nodes}
        for index, node_id in enumerate(place(units, self.nodes)):
            placed[node_id].append(index)
        per_node = []
        for node in self.nodes:
            indices = placed[node.node_id]
            wanted = max(1, node.cpus) * self.batches_per_worker
            size = max(1, min(self.max_batch, math.ceil(len(indices) / wanted)))
            starts = range(0, len(indices), size)
            per_node.append([(indices[start : start + size], node.node_id) for start in starts])
        return [batch for batches in itertools.zip_longest(*per_node) for batch in batches if batch]

    def _task(self, node_id: str | None) -> Any:
        """The remote batch function, bound to ``node_id`` when one is given: a hard
        binding, so that a node that is gone fails its batches instead of their copies
        meeting on another node (the run stops, and a resume places them again)."""
        if node_id is None:
            return self._remote
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        return self._remote.options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)
        )

    def run(
        self, units: Sequence[TableUnit], on_result: OnResult | None = None
    ) -> list[TableSessionResult]:
        """The :class:`~dp_arena.units.Executor` interface."""

        def decoded(
            index: int, data: dict[str, Any], history: str | None, stored: bytes | None
        ) -> None:
            del history, stored
            if on_result is not None:
                on_result(index, TableSessionResult.from_json(data))

        return [TableSessionResult.from_json(data) for data in self.run_json(units, decoded)]

    def _pack(self, ray: Any, units: Sequence[TableUnit]) -> None:
        """Pack and put in the object store each bot of ``units`` not packed yet."""
        from dp_arena.runner.parcels import pack

        for unit in units:
            for seat in unit.seats:
                if seat.spec is None or seat.spec in self._parcels:
                    continue
                parcel = pack(seat.spec)
                self._parcels[seat.spec] = (
                    None if parcel is None else parcel.descriptor(ray.put(parcel.files))
                )

    def _batch_parcels(self, units: Sequence[TableUnit]) -> dict[str, dict[str, Any]]:
        """The descriptors of the parcels the seats of ``units`` need."""
        wanted: dict[str, dict[str, Any]] = {}
        for unit in units:
            for seat in unit.seats:
                descriptor = self._parcels.get(seat.spec) if seat.spec is not None else None
                if descriptor is not None and seat.spec is not None:
                    wanted[seat.spec] = descriptor
        return wanted

    def _fetch(self, ray: Any, reference: Any, batch: Sequence[TableUnit]) -> dict[str, Any]:
        try:
            payload: dict[str, Any] = ray.get(reference)
        except ray.exceptions.RayError as error:
            tables = ", ".join(
                f"session {unit.session} section {unit.section} table {unit.table}"
                f" ({', '.join(unit.players)})"
                for unit in batch[:3]
            )
            more = f" and {len(batch) - 3} more" if len(batch) > 3 else ""
            first_line = (str(error).strip().splitlines() or [""])[0]
            raise RunError(
                f"a Ray task failed after {self.max_retries} retries playing {tables}{more}:"
                f" {type(error).__name__}: {first_line}; the units finished so far are"
                " stored: fix the cause and `dp-arena resume`"
            ) from error
        self.check_worker(payload)
        key = f"{payload['host']}:{payload['pid']}"
        self.worker_peaks_kib[key] = max(self.worker_peaks_kib.get(key, 0), payload["peak_rss_kib"])
        if payload.get("copied_bots"):
            self.copied_bots.setdefault(key, set()).update(payload["copied_bots"])
        return payload

    def check_worker(self, payload: dict[str, Any]) -> None:
        """Refuse results from a worker that runs another dp-arena: on another machine,
        or from another folder, its source must hash to this driver's code version. (A
        worker that runs the very files of the driver runs the same code, even if they
        were edited in between, so the hash is not compared then.)"""
        same_files = (
            payload["host"] == socket.gethostname() and payload["package"] == package_folder()
        )
        if not same_files and payload["code_version"] != self.code_version:
            raise RunError(
                f"the Ray worker {payload['host']}:{payload['pid']} runs a different dp-arena"
                f" source (code version {payload['code_version'][:12]}, this driver"
                f" {self.code_version[:12]}): install the same dp-arena on every node, and"
                " restart a cluster whose dp-arena was changed since it started"
            )


def _playing_nodes(ray: Any) -> list[Node]:
    """The live nodes of the cluster with at least one CPU, in the order of their ids."""
    nodes = []
    for node in ray.nodes():
        cpus = int(node.get("Resources", {}).get("CPU", 0))
        if node.get("Alive") and cpus >= 1:
            nodes.append(Node(str(node["NodeID"]), cpus))
    return sorted(nodes, key=lambda node: node.node_id)


def check_address(address: str) -> None:
    """Refuse at once a malformed address, or one where nothing listens: Ray itself
    retries for minutes."""
    if address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise RunError(f"--ray-address {address!r} is not auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=10).close()
    except OSError as error:
        raise RunError(
            f"cannot join the Ray cluster at {address}: nothing answers at {host}:{port}"
            f" ({error.strerror or error}); start it with `ray start --head` (docs/running.md)"
        ) from None


def _token_available() -> bool:
    if os.environ.get("RAY_AUTH_TOKEN"):
        return True
    path = os.environ.get("RAY_AUTH_TOKEN_PATH")
    return Path(path).is_file() if path else (Path.home() / ".ray" / "auth_token").is_file()


def _choose_authentication(*, embedded: bool) -> None:
    """Say which authentication Ray uses when ``RAY_AUTH_MODE`` does not: tokens (Ray's
    default for a new local cluster, and the default of ``ray start``) for an embedded
    Ray, and for a cluster when a token is at hand. Said explicitly, Ray does not warn;
    and a driver that leaves the mode unset cannot join a cluster that wants a token.
    Ray reads the mode when it is imported, so it is refreshed if Ray already was."""
    if "RAY_AUTH_MODE" in os.environ or not (embedded or _token_available()):
        return
    os.environ["RAY_AUTH_MODE"] = "token"
    if "ray" in sys.modules:
        try:
            from ray._raylet import Config  # type: ignore[attr-defined]  # a compiled module

            Config.initialize("")
        except (ImportError, AttributeError):
            pass


def _session_logs() -> Path | None:
    """The log folder of the Ray session this process started (a private Ray API, so
    every failure just means no logs are copied)."""
    try:
        from ray._private import worker

        node = worker._global_node
        return Path(node.get_logs_dir_path()) if node is not None else None
    except (ImportError, AttributeError):
        return None
