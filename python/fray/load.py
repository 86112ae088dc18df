"""The static load engine's two questions as one call each: where a phase of messages goes
(:func:`static_load`) and where one stencil exchange goes (:func:`stencil_load`). Both are
:func:`fray.simulate` on the load engine, and give its :class:`~fray.simulate.LoadReport`.

>>> import fray
>>> fray.static_load("torus:4x4", [(0, 5, 1e6)]).total_hops
2
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from fray import _fray
from fray._fray import Fabric, Faults, SpecError
from fray.simulate import LoadReport, _fabric, simulate

__all__ = ["static_load", "stencil_load"]


def static_load(fabric: Fabric | str, messages: Sequence, routing: object = None,
                faults: Faults | None = None, seed: int = 0) -> LoadReport:
    """Routes every message of ``messages`` (``(src_endpoint, dst_endpoint, size_bytes)``)
    at once on the load engine, with ``routing`` (default: the fabric's) under ``faults`` and
    the routing's random choices from ``seed``: ``fray.simulate(fabric, messages,
    engine="load", ...).loads[0]``. Raises ``UnroutableError`` when a pair cannot be routed
    and ``SpecError`` naming the first message whose endpoint does not exist."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise SpecError("messages: expected a list of (src_endpoint, dst_endpoint, size_bytes), "
                        f"got {messages!r}")
    return simulate(fabric, list(messages), faults=faults, routing=routing, engine="load",
                    seed=seed).loads[0]


def stencil_load(fabric: Fabric | str, stencil: str, periodic: bool, size_bytes: float,
                 dims: Sequence[int] | None = None, routing: object = None,
                 faults: Faults | None = None, seed: int = 0) -> LoadReport:
    """:func:`static_load` of one ``stencil`` exchange (``"5P"``, ``"7P"``, ...;
    ``periodic`` wraps the grid) with rank ``i`` on endpoint ``i``, over a grid of ``dims``
    ranks (default: the dimensions of a mesh or torus), every message ``size_bytes``."""
    fab = _fabric(fabric)
    messages = _fray.stencil_messages(fab, stencil, periodic, size_bytes, dims)
    return static_load(fab, messages, routing=routing, faults=faults, seed=seed)
