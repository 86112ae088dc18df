"""A scenario file: one TOML file that describes a study, checked before anything runs.

```toml
[study]
kind = "spares"                 # a registered study kind (fray.campaign.studies)
name = "spare_curve"            # the results table; default: the file name
description = "..."

[fabric] / [faults] / ...       # the kind's sections (see docs/campaigns.md)

[sweep]                         # optional: points, grid, random draws (fray.campaign.sweep)

[replications]
count = 1                       # independent repetitions of every point
seed = 0                        # every random choice derives from it
```

Every key is checked: an unknown section or key, a value of the wrong type, or a required key
left out is a :class:`~fray.campaign.schema.ScenarioError` naming the file and the key. The
scenario's hash covers everything that changes results (not the description, not comments or
the order keys are written in), so results of a changed scenario are never mixed with old ones.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fray.campaign import studies
from fray.campaign.kind import StudyKind
from fray.campaign.limits import I64_MAX, MAX_REPLICATIONS
from fray.campaign.schema import REQUIRED, Field, ScenarioError, closest, describe, text, whole
from fray.campaign.sweep import Sweep, parse_sweep

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Point", "Scenario", "load_scenario", "parse_scenario"]

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,62}$")


def _study_name(value: Any) -> str:
    if not isinstance(value, str) or not _NAME.match(value) or value.startswith("fray_"):
        raise ValueError("")
    return value


#: Sections every scenario may hold, whatever its kind.
SHARED: dict[str, dict[str, Field]] = {
    "study": {
        "kind": Field("the name of a study kind", text, REQUIRED),
        "name": Field('a table name: lower-case letters, digits and "_", starting with a '
                      'letter, not starting with "fray_"', _study_name),
        "description": Field("a string", text, ""),
    },
    "replications": {
        "count": Field(f"a positive whole number, at most {MAX_REPLICATIONS:,}",
                       whole(1, MAX_REPLICATIONS), 1),
        "seed": Field("a whole number from 0 to 2^63-1", whole(0, I64_MAX), 0),
    },
}


@dataclass(frozen=True)
class Point:
    """One point of the sweep: its index, the values the sweep set, and the full config."""

    index: int
    values: dict[str, Any]
    config: dict[str, dict[str, Any]]

    @property
    def label(self) -> str:
        """``key=value, ...`` of the swept values (empty when nothing is swept); a boolean
        reads as the file writes it (``true``)."""
        return ", ".join(f"{k}={describe(v) if isinstance(v, bool) else v}"
                         for k, v in self.values.items())


@dataclass(frozen=True)
class Scenario:
    """A checked scenario. ``config`` holds every key of the kind's sections, defaults
    filled in (``None`` where a key has no default and is set by the sweep)."""

    source: str
    kind: str
    name: str
    description: str
    config: dict[str, dict[str, Any]]
    sweep: Sweep
    replications: int
    seed: int
    text: str
    hash: str

    @property
    def study_kind(self) -> StudyKind:
        return studies.get(self.kind)

    def points(self) -> list[Point]:
        """The sweep's points, each with its full config, in a fixed order."""
        out = []
        for i, values in enumerate(self.sweep.overlays(self.seed)):
            config = {s: dict(keys) for s, keys in self.config.items()}
            for path, value in values.items():
                section, key = path.split(".", 1)
                config[section][key] = value
            point = Point(i, values, config)
            for section, fields in self.study_kind.sections.items():
                for key, f in fields.items():
                    if f.required and config[section][key] is None:
                        raise ScenarioError(self.source, f"{section}.{key}",
                                            f"missing in sweep point {i} ({point.label}): "
                                            f"expected {f.expected}")
            out.append(point)
        return out

    def error_at(self, point: Point, key: str, message: str) -> ScenarioError:
        """The error of ``key`` in this scenario at sweep ``point``, which it names when the
        sweep set values."""
        at = f" (sweep point {point.index}: {point.label})" if point.values else ""
        return ScenarioError(self.source, key, message + at)

    def canonical(self) -> dict:
        """Everything that changes results, as plain data in a fixed order."""
        return {
            "kind": self.kind,
            "name": self.name,
            "config": {s: dict(sorted(k.items())) for s, k in sorted(self.config.items())},
            "sweep": self.sweep.canonical(),
            "replications": {"count": self.replications, "seed": self.seed},
        }


def load_scenario(path: str | Path) -> Scenario:
    """Reads and checks the scenario file at ``path``."""
    path = Path(path)
    try:
        data = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise ScenarioError(str(path), None, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError(str(path), None, f"cannot read it ({exc})") from None
    return parse_scenario(data, str(path))


def parse_scenario(data: str, source: str = "<scenario>") -> Scenario:
    """Checks the TOML text ``data``; ``source`` names it in errors (usually the file)."""
    try:
        doc = tomllib.loads(data)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(source, None, f"not valid TOML: {exc}") from None
    study = doc.get("study")
    if not isinstance(study, dict):
        raise ScenarioError(source, "study", "missing: expected a [study] table with kind = "
                            f'"{studies.names()[0]}" (known kinds: {_quoted(studies.names())})')
    kind_name = study.get("kind")
    if kind_name not in studies.names():
        got = "missing" if kind_name is None else f"got {describe(kind_name)}"
        hint = closest(kind_name, studies.names()) if isinstance(kind_name, str) else ""
        raise ScenarioError(source, "study.kind", f"expected one of {_quoted(studies.names())}, "
                            f"{got}{hint}")
    kind = studies.get(kind_name)
    fields = dict(kind.sections)
    known = [*SHARED, *fields, "sweep"]
    for section in doc:
        if section not in known:
            raise ScenarioError(source, section, f"unknown section (expected one of "
                                f"{', '.join(known)}){closest(section, known)}")
    sweep = parse_sweep(doc.get("sweep", {}), fields, source)
    shared = {s: _section(doc, s, f, source, set()) for s, f in SHARED.items()}
    config = {s: _section(doc, s, f, source, sweep.paths()) for s, f in fields.items()}
    name = shared["study"]["name"] or _default_name(source)
    scenario = Scenario(
        source=source,
        kind=kind_name,
        name=name,
        description=shared["study"]["description"],
        config=config,
        sweep=sweep,
        replications=shared["replications"]["count"],
        seed=shared["replications"]["seed"],
        text=data,
        hash="",
    )
    digest = hashlib.sha256(json.dumps(scenario.canonical(), sort_keys=True).encode())
    return replace(scenario, hash=digest.hexdigest()[:16])


def _section(doc: dict, section: str, fields: dict[str, Field], source: str,
             swept: set[str]) -> dict[str, Any]:
    table = doc.get(section, {})
    if not isinstance(table, dict):
        raise ScenarioError(source, section, f"expected a table [{section}], got "
                            + describe(table))
    out = {}
    for key, value in table.items():
        if key not in fields:
            raise ScenarioError(source, f"{section}.{key}", "unknown key (expected one of "
                                f"{', '.join(fields)}){closest(key, fields)}")
        try:
            out[key] = fields[key].normalise(value)
        except ValueError as exc:
            raise ScenarioError(source, f"{section}.{key}", str(exc)) from None
    for key, f in fields.items():
        if key in out:
            continue
        if f.required and f"{section}.{key}" not in swept:
            raise ScenarioError(source, f"{section}.{key}", f"missing: expected {f.expected}")
        out[key] = None if f.required else f.default
    return out


def _default_name(source: str) -> str:
    stem = re.sub(r"[^a-z0-9_]", "_", Path(source).stem.lower()).strip("_")
    if not stem or not stem[0].isalpha():
        stem = "study_" + stem
    return _study_name(stem[:63]) if not stem.startswith("fray_") else "study_" + stem[:57]


def _quoted(names: list[str]) -> str:
    return ", ".join(f'"{n}"' for n in names)
