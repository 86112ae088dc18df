"""Named profiles: one name for a set-up that otherwise takes several options.

A profile supplies the routing, the engine, the host costs and the link rate of a run
(``fray._fray.profile``; the values and where they come from are in the core's
``fray_core::profile``). A value given explicitly always wins over the profile's; without a
profile every option keeps its own default.

>>> from fray import profiles
>>> profiles.SST.routing
Ugal(threshold='800B', links='adaptive')
>>> str(profiles.SST.routing)
'ugal:threshold=800B,links=adaptive'
"""

from __future__ import annotations

from dataclasses import dataclass

from fray._fray import Fabric, SpecError, profile, profile_names
from fray.options import Option, parse_engine, parse_host, parse_routing

__all__ = ["NAMES", "SST", "Profile", "apply", "choose", "parse"]


@dataclass(frozen=True)
class Profile:
    """A named set of option values: ``routing``, ``engine`` and ``host`` as the typed values
    of :mod:`fray.options` (``str()`` of each is what ``--routing``, ``--engine`` and
    ``--host`` take), ``link_bandwidth_bytes_s`` in bytes per second
    (``--link-bandwidth``). Replace a field with :func:`dataclasses.replace`."""

    name: str
    routing: Option
    engine: Option
    host: Option
    link_bandwidth_bytes_s: float

    def __str__(self) -> str:
        return self.name


def parse(name: str) -> Profile:
    """The profile called ``name`` (one of :data:`NAMES`); an unknown name raises
    ``SpecError`` with ``field`` ``"profile"``."""
    values = profile(name)
    return Profile(name=values["name"], routing=parse_routing(values["routing"]),
                   engine=parse_engine(values["engine"]), host=parse_host(values["host"]),
                   link_bandwidth_bytes_s=values["link_bandwidth_bytes_s"])


#: The names of every profile.
NAMES: tuple[str, ...] = tuple(profile_names())
#: SST 16's Ember, Firefly and merlin as the failed-links paper's dragonflies set them.
SST: Profile = parse("sst")


def choose(profile: Profile | str | None, **given):
    """``given`` (field name to value) with each ``None`` replaced by the profile's value of
    that field, the options as their spec strings: an explicit value wins; without a profile
    everything stays as given."""
    if profile is None:
        return given
    chosen = _profile(profile)

    def value_of(key: str, value: object) -> object:
        if value is None:
            value = getattr(chosen, key)
        return str(value) if isinstance(value, Option) else value

    return {key: value_of(key, value) for key, value in given.items()}


def _profile(profile: Profile | str) -> Profile:
    """``profile`` as a :class:`Profile`: one as it is, a name read; anything else is a
    ``SpecError`` naming the argument."""
    if isinstance(profile, Profile):
        return profile
    if isinstance(profile, str):
        return parse(profile)
    raise SpecError(f"profile: expected a fray.profiles.Profile or a profile name (one of "
                    f"{', '.join(NAMES)}), got {profile!r}")


def apply(profile: Profile | str | None, fabric: Fabric | str, workload: str | Option,
          routing: str | Option | None, engine: str | Option | None
          ) -> tuple[Fabric | str, str, str | None, str | None]:
    """The fabric, workload, routing and engine of a run under ``profile``: a fabric spec is
    read with the profile's link rate (a ``Fabric`` keeps its own), a workload spec without
    ``host=`` gets the profile's host costs, and a ``None`` routing or engine the profile's.
    The workload, routing and engine may be the objects of :mod:`fray.options`; they come
    back as their spec strings."""
    if profile is None:
        return fabric, str(workload), *_specs(routing, engine)
    c = choose(profile, routing=routing, engine=engine, host=None, link_bandwidth_bytes_s=None)
    if isinstance(fabric, str):
        fabric = Fabric.parse(fabric, bandwidth_bytes_s=c["link_bandwidth_bytes_s"])
    workload = str(workload)
    name, _, options = workload.partition(":")
    keys = {item.split("=", 1)[0].strip() for item in options.split(",") if item.strip()}
    if "host" not in keys:
        workload = f"{name}:{options},host={c['host']}" if keys else f"{name}:host={c['host']}"
    return fabric, workload, *_specs(c["routing"], c["engine"])


def _specs(*values: str | Option | None) -> tuple[str | None, ...]:
    """Each value as its spec string (``None`` stays ``None``)."""
    return tuple(None if v is None else str(v) for v in values)
