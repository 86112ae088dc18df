"""Type stubs of the extension module ``fray._fray`` (built from ``crates/fray-py``)."""

from typing import Any

class FrayError(Exception):
    """Base class of every error fray raises."""

class SpecError(FrayError):
    """Bad input: a spec, file, field or value that fray cannot accept."""

class UnroutableError(FrayError):
    """Faults disconnect a source from its destination."""

class Fabric:
    """Routers, endpoints and directed channels."""

    @staticmethod
    def parse(spec: str, bandwidth_bytes_s: float = 10e9, latency_s: float = 100e-9) -> Fabric: ...
    @property
    def num_routers(self) -> int: ...
    @property
    def num_channels(self) -> int: ...
    @property
    def dims(self) -> list[int]: ...
    def coords(self, router: int) -> list[int]: ...
    def hop_count(self, src: int, dst: int) -> int: ...
    def route(self, src: int, dst: int) -> list[int]: ...

def stencil_load(fabric: Fabric, stencil: str, periodic: bool, size_bytes: float) -> dict[str, Any]:
    """Static load of one stencil exchange: ``max_routes``, ``histogram``, ``total_hops``,
    ``phase_time_s`` (seconds) and per-channel ``routes``."""

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
    def run_samples(self, seed: int, start: int, count: int) -> None: ...
    def exhaustive_cases(self, start: int, end: int) -> int: ...
    def run_exhaustive(self, start: int, end: int) -> None: ...
    def replay(self, ranks: list[int]) -> list[tuple[int, int] | None]: ...
    def placement_after(self, ranks: list[int]) -> list[int]: ...
    def table(self) -> dict[str, list[Any]]: ...
