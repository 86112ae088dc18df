"""Typed options as classes: routings, engines, host costs and workloads.

Each class stands for one kind of one option family and takes that kind's options as
keyword arguments; the core checks them and prints the value (``fray._fray.option_build``),
so a class holds no grammar of its own. ``str(obj)`` is the spec string the command line,
the scenario files and every function taking a spec accept, in its canonical short form
(defaults left out); ``repr(obj)`` is the constructor call. ``parse_routing``,
``parse_engine``, ``parse_host`` and ``parse_workload`` read a spec string into the object.

>>> import fray
>>> fray.Ugal(threshold=800, links="adaptive")
Ugal(threshold=800, links='adaptive')
>>> str(fray.PacketEngine(mtu="2KiB", buffer="16KiB"))
'packet:mtu=2048,buffer=16384'
>>> fray.parse_workload("halo3d26:jobs=4,nx=30")
Halo3D26(nx=30, jobs=4)

A bad value raises ``fray.SpecError`` whose ``field`` names the option.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fray._fray import option_build, option_parse

__all__ = [
    "AllToAll",
    "Doal",
    "Dor",
    "DorRetry",
    "Ember",
    "Firefly",
    "FlowEngine",
    "Halo3D26",
    "HostCosts",
    "LoadEngine",
    "Lqcd",
    "Minimal",
    "Option",
    "PacketEngine",
    "Sweep3D",
    "Table",
    "Ugal",
    "Uniform",
    "UpDown",
    "UpDownFt",
    "Valiant",
    "parse_engine",
    "parse_host",
    "parse_routing",
    "parse_workload",
]

#: The class of every (family, kind), filled as the classes are defined.
_CLASSES: dict[tuple[str, str], type[Option]] = {}


class Option:
    """One value of an option family: its kind (the class), its options and its spec.

    Immutable; equal when the specs are; usable as a dict key; pickles as its spec."""

    __slots__ = ("_arguments", "_options", "_spec")
    #: The option family (``routing``, ``engine``, ``host``, ``workload``).
    family: ClassVar[str]
    #: The kind, as the spec starts (``ugal``, ``packet``, ``ember``, ``halo3d26``).
    kind: ClassVar[str]

    def __init_subclass__(cls, family: str, kind: str, **rest: Any) -> None:
        super().__init_subclass__(**rest)
        cls.family, cls.kind = family, kind
        _CLASSES[(family, kind)] = cls

    def __new__(cls, **options: Any) -> Option:  # noqa: PYI034 (may be another kind's class)
        return _of(cls.family, option_build(cls.family, cls.kind, list(options.items())))

    @property
    def options(self) -> dict[str, str]:
        """The options that differ from the defaults, as the spec writes them."""
        return dict(self._options)

    def __str__(self) -> str:
        return self._spec

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._arguments})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Option):
            return NotImplemented
        return (self.family, self._spec) == (other.family, other._spec)

    def __hash__(self) -> int:
        return hash((self.family, self._spec))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return _parse, (self.family, self._spec)


def _of(family: str, view: tuple[str, str, str, list[tuple[str, str]]]) -> Option:
    """The object of the class of ``view``'s kind (the core's ``(kind, spec, arguments,
    options)``)."""
    kind, spec, arguments, options = view
    obj = object.__new__(_CLASSES[(family, kind)])
    for name, value in (("_spec", spec), ("_arguments", arguments), ("_options", options)):
        object.__setattr__(obj, name, value)
    return obj


def _parse(family: str, spec: object) -> Option:
    return _of(family, option_parse(family, str(spec)))


# Routings (``--routing``).
class Dor(Option, family="routing", kind="dor"):
    """Dimension order on a mesh, torus or HyperX (``dor``)."""


class DorRetry(Option, family="routing", kind="dor-retry"):
    """Dimension order, other orders around failed links (``dor-retry``)."""


class Doal(Option, family="routing", kind="doal"):
    """HyperX DOAL (``doal``); ``weights="merlin"`` weighs as SST's merlin does."""


class UpDown(Option, family="routing", kind="updown"):
    """Fat-tree up/down with D-mod-k up ports (``updown``)."""


class UpDownFt(Option, family="routing", kind="updown-ft"):
    """Up/down around failed parts (``updown-ft``)."""


class Table(Option, family="routing", kind="table"):
    """Shortest paths around failed parts on any fabric (``table``)."""


class Minimal(Option, family="routing", kind="minimal"):
    """Dragonfly minimal routing (``minimal``)."""


class Valiant(Option, family="routing", kind="valiant"):
    """Dragonfly Valiant routing (``valiant``)."""


class Ugal(Option, family="routing", kind="ugal"):
    """Dragonfly UGAL (``ugal``): ``threshold``, ``links`` (``random``, ``adaptive``),
    ``credits``, ``factor``, ``queues`` (``port``, ``vc``)."""


# Engines (``--engine``).
class LoadEngine(Option, family="engine", kind="load"):
    """The static load engine (``load``)."""


class FlowEngine(Option, family="engine", kind="flow"):
    """The max-min fair flow engine (``flow``): ``time_tolerance`` (a share of a message's
    time, default 0.003) and ``time_resolution`` (a time, default ``"20ns"``), both 0 being
    exact; ``nic`` (``"shared"``, the default: every posted message of an endpoint moves at
    once, or ``"fifo"``: one at a time in post order, as the packet engine's NIC)."""


class PacketEngine(Option, family="engine", kind="packet"):
    """The packet engine (``packet``): ``route``, ``mtu``, ``buffer``, ``vcs``,
    ``arbitration``, ``queue``, ``queue_cap``, ``nic_setup``, ``speedup``, ``out_buffer``,
    ``input_latency``, ``output_latency``, ``router`` (``input-queued``, ``merlin``); sizes
    and times take units (``"2KiB"``, ``"20ns"``)."""


# Host costs (``--host``, a workload's ``host``).
class HostCosts(Option, family="host", kind="none"):
    """Host costs from none (``none``): ``send``, ``recv``, ``match``, ``register``,
    ``page``, ``nic``, ``post`` (times), ``copy``, ``send_copy``, ``recv_copy`` (times per
    byte, ``"344ps/B"``), ``eager`` (bytes), ``progress`` (``released``, ``calls``)."""


class Ember(Option, family="host", kind="ember"):
    """SST Ember's host costs (``ember``), times ``scale`` (``ember*K``), with the same
    overrides as :class:`HostCosts`."""


class Firefly(Option, family="host", kind="firefly"):
    """SST Ember's host costs charged call by call as SST Firefly charges them
    (``firefly``), with the same overrides as :class:`HostCosts`."""


# Workloads (``--workload`` and the links study's workload spec).
class Halo3D26(Option, family="workload", kind="halo3d26"):
    """Ember's Halo3D26 (``halo3d26``)."""


class Sweep3D(Option, family="workload", kind="sweep3d"):
    """Ember's Sweep3D (``sweep3d``)."""


class Lqcd(Option, family="workload", kind="lqcd"):
    """Ember's LQCD (``lqcd``)."""


class Uniform(Option, family="workload", kind="uniform"):
    """Uniform random traffic (``uniform``)."""


class AllToAll(Option, family="workload", kind="alltoall"):
    """Ember's all-to-all as Firefly runs it, a pairwise exchange (``alltoall``)."""


def parse_routing(spec: str | Option) -> Option:
    """The routing object a ``--routing`` spec names (``"ugal:threshold=800"``)."""
    return _parse("routing", spec)


def parse_engine(spec: str | Option) -> Option:
    """The engine object an ``--engine`` spec names (``"packet:mtu=2KiB"``)."""
    return _parse("engine", spec)


def parse_host(spec: str | Option) -> Option:
    """The host-costs object a ``--host`` spec names (``"ember+send=190ns"``)."""
    return _parse("host", spec)


def parse_workload(spec: str | Option) -> Option:
    """The workload object a workload spec names (``"halo3d26:jobs=4,nx=30"``)."""
    return _parse("workload", spec)
