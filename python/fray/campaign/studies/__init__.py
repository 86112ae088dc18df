"""The registry of study kinds: the values ``study.kind`` may take in a scenario file.

A new kind subclasses :class:`fray.campaign.kind.StudyKind` and is registered here (built-in
kinds) or with :func:`register` by a module that workers import too (a Dask worker looks a
task's kind up by name).
"""

from __future__ import annotations

from fray.campaign.kind import StudyKind

__all__ = ["get", "names", "register"]

_KINDS: dict[str, StudyKind] = {}


def register(kind: StudyKind) -> StudyKind:
    """Makes ``kind`` available as ``study.kind = "<kind.name>"``; returns it."""
    if not isinstance(kind, StudyKind):
        raise TypeError(f"{kind!r} is not a StudyKind")
    _KINDS[kind.name] = kind
    return kind


def names() -> list[str]:
    """The registered kinds, in registration order."""
    _builtins()
    return list(_KINDS)


def get(name: str) -> StudyKind:
    """The kind registered as ``name`` (``KeyError`` if none)."""
    _builtins()
    return _KINDS[name]


def _builtins() -> None:
    if "spares" not in _KINDS:
        from fray.campaign.studies.spares import SPARES

        register(SPARES)
    if "links" not in _KINDS:
        from fray.campaign.studies.links import LINKS

        register(LINKS)
    if "plan" not in _KINDS:
        from fray.campaign.studies.plan import PLAN

        register(PLAN)
