"""Type stubs of the extension module ``fray._fray`` (built from ``crates/fray-py``).

The functions and classes that take a person's values (``Fabric``, ``Faults``, ``SpareStudy``,
the diagnostics, the quantities, the studies' settings; not yet the data-integrity ones) read
their arguments by name (``crates/fray-py/src/args.rs``): a value of the wrong type, or a
number out of the range the core holds it in, raises ``SpecError`` naming the argument (``seed: expected a whole number
from 0 to 18446744073709551615, got -1``), not a ``TypeError`` or ``OverflowError``."""

from collections.abc import Callable, Sequence
from os import PathLike
from typing import Any, TypeAlias

class FrayError(Exception):
    """Base class of every error fray raises."""

class SpecError(FrayError):
    """Bad input: a spec, file, field or value that fray cannot accept."""

class UnroutableError(FrayError):
    """Faults disconnect a source from its destination."""

class Fabric:
    """Routers, endpoints and directed channels (router channels first, then each endpoint's
    injection and ejection channel)."""

    @staticmethod
    def parse(
        spec: str, bandwidth_bytes_s: float = 10e9, latency_s: float = 100e-9, lanes: int = 1
    ) -> Fabric: ...
    @staticmethod
    def read(path: str, format: str | None = None) -> Fabric:
        """Reads an ``ibnetdiscover`` dump, fray's ``json`` format or Cray ``aries`` wiring
        (None: told by the file's text)."""
    @staticmethod
    def torus(dims: list[int], bandwidth_bytes_s: float = 10e9, latency_s: float = 100e-9) -> Fabric: ...
    @staticmethod
    def mesh(dims: list[int], bandwidth_bytes_s: float = 10e9, latency_s: float = 100e-9) -> Fabric: ...
    def with_class_link(
        self, cls: str, bandwidth_bytes_s: float, latency_s: float, lanes: int = 1
    ) -> Fabric: ...
    @property
    def num_routers(self) -> int: ...
    @property
    def num_endpoints(self) -> int: ...
    @property
    def num_channels(self) -> int: ...
    @property
    def num_router_channels(self) -> int: ...
    @property
    def class_names(self) -> list[str]: ...
    @property
    def channel_class_ids(self) -> list[int]: ...
    @property
    def channel_bandwidths_bytes_s(self) -> list[float]: ...
    @property
    def dims(self) -> list[int]: ...
    @property
    def default_routing(self) -> str: ...
    def coords(self, router: int) -> list[int]: ...
    def hop_count(self, src: int, dst: int) -> int: ...
    def router_name(self, router: int) -> str: ...
    def endpoint_name(self, endpoint: int | str) -> str: ...
    def router_of(self, endpoint: int | str) -> int: ...
    def channel(self, channel: int) -> dict[str, Any]: ...
    def summary(self) -> list[dict[str, Any]]: ...
    def route(
        self,
        src: int | str,
        dst: int | str,
        routing: str | None = None,
        faults: Faults | None = None,
        seed: int = 0,
    ) -> list[int]: ...

class Faults:
    """What is down in one fabric; ``fail_*`` methods add to it and return it."""

    def __init__(self, fabric: Fabric) -> None: ...
    @staticmethod
    def fail_links(fabric: Fabric, cls: str = "router", fraction: float = 0.0, seed: int = 0) -> Faults: ...
    def fail_random(self, cls: str, fraction: float, seed: int = 0) -> int: ...
    def fail_spec(self, spec: str, seed: int = 0) -> int: ...
    def fail_cables(self, names: list[str]) -> Faults: ...
    def fail_file(self, path: str) -> int: ...
    def fail_router(self, router: int | str) -> Faults: ...
    def fail_endpoint(self, endpoint: int | str) -> Faults: ...
    def lose_lanes(self, channel: int, lanes: int) -> Faults:
        """Sets the number of lanes ``channel`` (one direction) has lost to ``lanes``,
        replacing any earlier count rather than adding to it: ``lose_lanes(c, 3)`` twice on
        a 4-lane channel leaves 3 lost. Its bandwidth scales with the lanes left; losing
        every lane takes the channel down, and a later, smaller count does not bring it
        back."""
    def bandwidth_bytes_s(self, channel: int) -> float: ...
    def channel_is_down(self, channel: int) -> bool: ...
    @property
    def num_channels_down(self) -> int: ...

def stencil_messages(
    fabric: Fabric,
    stencil: str,
    periodic: bool,
    size_bytes: float,
    dims: list[int] | None = None,
) -> list[tuple[int, int, float]]:
    """The ``(src_endpoint, dst_endpoint, size_bytes)`` messages of one stencil exchange,
    rank ``i`` on endpoint ``i``."""

def simulate(
    fabric: Fabric,
    workload: str | None = None,
    messages: list[tuple[int, int, float]] | None = None,
    traffic: tuple[float, float, float] | None = None,
    faults: Faults | None = None,
    routing: str | None = None,
    engine: str | None = None,
    host: str | None = None,
    seed: int = 1,
    time_tolerance: float | None = None,
    time_resolution: float | None = None,
) -> dict[str, Any]:
    """One run of exactly one of a workload spec, a phase of messages or ``(load,
    warmup_s, measure_s)`` traffic: ``engine``, ``routing``, ``jobs``, ``throughput``,
    ``channel_bytes``, ``traffic``, ``vcs`` (see ``fray.simulate``)."""

def profile(name: str) -> dict[str, Any]:
    """The settings of the profile ``name`` (``"sst"``): ``name``, ``routing``, ``engine``,
    ``host`` (specs) and ``link_bandwidth_bytes_s``; an unknown name raises ``SpecError``
    with ``field`` ``"profile"``."""

def profile_names() -> list[str]:
    """The names of every profile."""

def host_costs(text: str) -> dict[str, float]:
    """What host-costs spec ``text`` (``"ember+send_copy=344ps/B"``, ...) charges: the costs in
    seconds (``send_s``, ``recv_s``, ``match_s``, ``register_s``, ``register_s_per_page``,
    ``nic_latency_s``),
    seconds per byte (``send_copy_s_per_byte``, ``recv_copy_s_per_byte``) and bytes
    (``eager_limit_bytes``). Raises ``SpecError`` naming what is wrong."""

_Outcome: TypeAlias = tuple[list[int] | None, list[float] | None, str | None]

class LinksStudy:
    """A prepared failed-links study (``fray.links.study`` runs it)."""

    def __init__(
        self,
        fabric: Fabric,
        workload: str,
        routing: str,
        fail: str,
        jobs: list[int],
        failed_pct: list[float],
        seeds: int,
        seed: int,
        time_tolerance: float | None = None,
        engine: str = "flow",
        down: str = "",
        down_file: str = "down",
        time_resolution: float | None = None,
    ) -> None: ...
    @property
    def chunk_len(self) -> int: ...
    @property
    def engine(self) -> str: ...
    @property
    def flow_times(self) -> tuple[float, float] | None: ...
    def replica_seed(self, replica: int) -> int: ...
    @property
    def num_cases(self) -> int: ...
    def case(self, i: int) -> tuple[int, float, int, bool]: ...
    def run(self, start: int, stop: int) -> list[_Outcome]: ...
    def run_loads(self, i: int) -> tuple[_Outcome, list[float], list[bool]]: ...
    @property
    def num_repair_runs(self) -> int: ...
    def run_repairs(self, jobs: int, start: int, stop: int) -> list[_Outcome]: ...
    def summarize_repairs(self, outcomes: list[_Outcome]) -> list[dict[str, Any]]: ...
    def summarize(self, outcomes: list[_Outcome]) -> list[dict[str, Any]]: ...
    def greedy_repairs(self, jobs: int, steps: int, exact: bool) -> list[dict[str, Any]]: ...
    def case_faults_file(self, i: int) -> str: ...

def stop_runs() -> None:
    """Asks every core run in progress to stop, as Ctrl-C does (for runs on other threads)."""

def allow_runs() -> None:
    """Withdraws :func:`stop_runs`' request, so that the next run goes to its end."""

#: The flow engine's relative time tolerance unless a run sets its own.
DEFAULT_TIME_TOLERANCE: float
#: The flow engine's absolute time resolution unless a run sets its own, in seconds.
DEFAULT_TIME_RESOLUTION_S: float
#: The longest horizon a plan covers, seconds (1,000 years of 365.25 days).
MAX_PLAN_HORIZON_S: float
#: The most fault states a plan's loss model evaluates (points x samples over every class).
MAX_MODEL_STATES: int
#: The most operations a fabric collective runs (each one's time is kept).
MAX_COLLECTIVE_OPS: int
#: The most independent replications a study draws: a links study's seeds per cell, a
#: plan's horizons.
MAX_REPLICATIONS: int
#: The most grid points per class of a plan's loss model.
MAX_MODEL_POINTS: int
#: The most sampled states per grid point of a plan's loss model.
MAX_MODEL_SAMPLES: int
#: The most layouts (seeds) per fault state of a plan.
MAX_PLAN_SEEDS: int
#: The largest buffer a checksum measurement allocates, and the largest message the
#: ping-pong sends, in bytes (1 GiB).
MAX_BUFFER_BYTES: int
#: The most samples a checksum measurement takes, and the most ping-pong trials.
MAX_SAMPLES: int

_JobKey: TypeAlias = tuple[int, int, int | None, list[int] | None]

class PlanSetup:
    """A repair plan on a fabric with the loss of its states from a workload
    (``fray.plan.plan`` and the ``plan`` campaign kind)."""

    def __init__(
        self,
        fabric: Fabric,
        workload: str,
        routing: str,
        engine: str,
        jobs: int,
        seeds: int,
        seed: int,
        time_tolerance: float | None,
        time_resolution: float | None,
        classes: list[tuple[str, str]],
        horizon: str,
        replications: int,
        policies: list[str],
    ) -> None: ...
    def run(self, reuse: str = "model", points: int = 8, samples: int = 4) -> dict[str, Any]:
        """Runs the plan: ``outcomes``, ``best_window``, ``model``, ``evaluations``,
        ``lookups``."""
    def model_jobs(self, points: int, samples: int) -> list[_JobKey]:
        """The states a loss model evaluates: ``(class, count, draw, cables)``."""
    def evaluate(self, job: _JobKey) -> tuple[int, float | None]:
        """One state's cut-off draws and loss."""
    def run_with_values(
        self, points: int, samples: int, values: list[tuple[_JobKey, int, float | None]]
    ) -> dict[str, Any]:
        """The report with the model fitted from every state's value, as :meth:`run`."""

def fit_failure_log(
    fabric: Fabric, text: str, file: str, cls: str, span: str | None = None, kind: str = "exp"
) -> dict[str, Any]:
    """A failure model fitted to one class of a failure log (``fray.plan.fit_failures``)."""

def plan_spec(kind: str, text: str) -> str:
    """A ``failure`` model or ``policy`` spec checked and printed as the core prints it."""

def allreduce_study(
    fabric: Fabric,
    replication: str,
    errors: str = "none",
    ops: int = 1000,
    mtu: int = 256,
    nak_s: float = 0.0,
    seed: int = 1,
) -> dict[str, Any]:
    """``ops`` fabric-based allreduces on an XGFT: ``op_times_s``, ``mean_s``, ``p50_s``,
    ``p99_s``, ``std_s`` (seconds), ``retransmissions``, ``replication``, ``copies``."""

def spare_allocation(fabric: str, alloc: str) -> dict[str, Any]:
    """``num_nodes``, ``num_spares``, ``spare_fraction``, ``paper_fraction``, ``compute_extents``."""

class SpareStudy:
    """A prepared spare-node study and the curve accumulated so far."""

    def __init__(
        self,
        fabric: str,
        alloc: str,
        method: str,
        stencil: str | None = None,
        periodic: bool | None = None,
        max_failures: int | None = None,
    ) -> None: ...
    @property
    def num_ranks(self) -> int: ...
    @property
    def num_spares(self) -> int: ...
    @property
    def max_failures(self) -> int: ...
    @property
    def baseline_collisions(self) -> int: ...
    def run_samples(self, seed: int, start: int, count: int,
                    progress: Callable[[int], object] | None = None) -> None: ...
    def exhaustive_cases(self, start: int, end: int) -> int: ...
    def run_exhaustive(self, start: int, end: int,
                       progress: Callable[[int], object] | None = None) -> None: ...
    def replay(self, ranks: list[int]) -> list[tuple[int, int] | None]: ...
    def placement_after(self, ranks: list[int]) -> list[int]: ...
    def table(self) -> dict[str, list[Any]]: ...

# Data integrity (fray.integrity)


INTEGRITY_HEADER_BYTES: int

def integrity_algorithms() -> list[tuple[str, int, str, bool]]: ...
def integrity_checksum(data: Any, algorithm: str, seed: int = 0) -> int: ...
def integrity_copy_checksum(dst: Any, src: Any, algorithm: str, seed: int = 0,
                            strategy: str = "fused") -> int: ...

class Checksummer:
    def __init__(self, algorithm: str, seed: int = 0) -> None: ...
    @property
    def algorithm(self) -> str: ...
    def update(self, data: Any) -> None: ...
    def update_copy(self, dst: Any, src: Any) -> None: ...
    def value(self) -> int: ...

def integrity_detection_table(algorithms: list[str], patterns: list[str], message_bytes: int,
                              trials: int, seed: int) -> list[tuple[str, str, int, int]]: ...
def integrity_measure(operation: str, algorithm: str, size_bytes: int, min_sample_s: float,
                      samples: int) -> tuple[str, str, int, float, float, list[float]]: ...
def integrity_tune(sizes_bytes: list[int], candidates: list[str], patterns: list[str],
                   message_bytes: int, trials: int, seed: int, min_sample_s: float,
                   samples: int) -> tuple[str, str, float, list[tuple[Any, ...]]]: ...
def integrity_paper_params() -> tuple[float, float, float, float, float, float]: ...
def integrity_model_table(sizes_bytes: list[float], net_bandwidth_bytes_s: float,
                          net_latency_s: float, csum_bandwidth_bytes_s: float, gap_s: float,
                          sub_block_bytes: float, rendezvous_threshold_bytes: float
                          ) -> list[tuple[float, list[tuple[str, float, float, float]]]]: ...
def integrity_cpu_model() -> str: ...
def integrity_cpu_features() -> list[str]: ...
def integrity_chunk_plan(message_bytes: int, first_chunk_bytes: int, ratio: float,
                         max_chunk_bytes: int, align_bytes: int) -> list[int]: ...
def integrity_write_header(out: Any, algorithm: str, seq: int, message_bytes: int,
                           checksum: int, tag: int) -> None: ...
def integrity_read_header(frame: Any) -> tuple[int, int, int, str] | None: ...
def integrity_net_chunk_plan(net_bandwidth_bytes_s: float, gap_s: float,
                             csum_bandwidth_bytes_s: float) -> tuple[int, float, int]: ...
def integrity_inject_ber(buf: Any, ber: float, seed: int, stream: int) -> int: ...

class MpiTransport:
    """Checked messages over an MPI communicator, driven from the compiled core."""
    def __init__(self, *, comm: int, byte: int, any_source: int, request_bytes: int,
                 status: bytes, status_source: int, rank: int, tag_ub: int, algorithm: str,
                 eager_threshold_bytes: int, first_chunk_bytes: int, ratio: float,
                 max_chunk_bytes: int, max_retries: int,
                 max_message_bytes: int, ber: float, seed: int, logged: bool) -> None: ...
    def send(self, buf: Any, dest: int, tag: int) -> tuple[int, int]: ...
    def recv(self, buf: Any, source: int | None, tag: int) -> tuple[int, int, int, int]: ...
    def flush(self) -> int: ...

class SharedMemoryRings:
    """Checked rings to and from the other ranks of one node, in shared memory."""
    def __init__(self, rank: int, outbound: list[tuple[int, Any]], inbound: list[tuple[int, Any]],
                 *, slots: int, slot_bytes: int, algorithm: str, first_chunk_bytes: int,
                 ratio: float, max_retries: int, max_message_bytes: int, ber: float,
                 seed: int) -> None: ...
    @staticmethod
    def region_bytes(slots: int, slot_bytes: int) -> int: ...
    def send(self, buf: Any, dest: int, tag: int) -> tuple[int, int]: ...
    def recv(self, buf: Any, source: int | None, tag: int) -> tuple[int, int, int, int]: ...

class TopoBwPlan:
    """The phases of a TopoBW run: ``layout`` is ``builtin:XxYxZ`` or a layout file's name
    with its text in ``text``; ``sharing`` is ``exclusive``, ``shared`` or ``both``."""

    def __init__(self, layout: str, ranks: int, text: str | None = None,
                 sharing: str = "both") -> None: ...
    @property
    def phases(self) -> list[list[tuple[int, int]]]: ...
    @property
    def num_transfers(self) -> int: ...
    def report(self, seconds: list[float], bytes: float) -> str: ...

def netwatch_parse(text: str) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]: ...
def topobw_simulate(machine: str, degrades: list[str], message_bytes: float, count: int,
                    sharing: str = "both", routing: str = "dor-retry") -> str: ...
def topobw_simulate_hosts(fabric: Fabric, message_bytes: float, count: int,
                          routing: str | None = None) -> str: ...
def topobw_locate(
    name: str, text: str, fabric: Fabric | None = None, machine: str | None = None
) -> list[dict[str, Any]]: ...
def localisation_study(machine: str, cases: int, faults_per_case: int = 2, noise: float = 0.0,
                       seed: int = 1, message_bytes: float = 4e6,
                       count: int = 16) -> dict[str, dict[str, float]]: ...
def slow_links(fabric: Fabric) -> list[dict[str, Any]]: ...
def classify_cables(
    dump: str | PathLike[str],
    counters: Sequence[str | PathLike[str]] = ...,
    down: str | PathLike[str] | None = None,
    ber: float = 1e-12,
    confidence: float = 0.95,
    xmit_wait_ratio: float = 0.1,
) -> dict[str, list[Any]]: ...
def job_cost(machine: str, degrades: list[str], cells: int = 30,
             iterations: int = 1) -> dict[str, float]: ...

# Quantities typed by people (crates/fray-py/src/units.rs): a bad value raises SpecError
# with the field as its `field` attribute; the printers refuse a negative or non-finite amount.
def parse_rate(text: str, field: str = "bandwidth") -> float: ...
def parse_bytes(text: str, field: str = "size") -> int: ...
def parse_seconds(text: str, field: str = "time") -> float: ...
def parse_size_list(text: str, field: str = "sizes") -> list[int]: ...
def format_rate(bytes_per_s: float) -> str: ...
def format_bytes(size_bytes: int) -> str: ...
def format_seconds(seconds: float) -> str: ...

# Typed options (crates/fray-py/src/options.rs), behind the classes of fray.options: each
# returns (kind, canonical spec, constructor arguments, options as (name, value)); a bad
# value raises SpecError with the option as its `field` attribute.
def option_build(
    family: str, kind: str, options: list[tuple[str, Any]]
) -> tuple[str, str, str, list[tuple[str, str]]]: ...
def option_parse(family: str, text: str) -> tuple[str, str, str, list[tuple[str, str]]]: ...
