"""The ``[sweep]`` of a scenario: explicit points, a grid, and random draws, and their product.

```toml
[[sweep.points]]                       # explicit points (each a partial scenario)
jobs.spare_allocation = "2D(1,1)"
mitigation.substitution = "0D"

[sweep.grid]                           # every combination of these values
fabric.topology = ["mesh:11x5", "mesh:7x7"]

[sweep.random]                         # draws, seeded by the scenario's seed
draws = 4
faults.max_failures = { int = [2, 8] }            # a whole number, both ends included
workload.stencil = { choice = ["5P", "9P"] }      # one of the values
```

A key is named by its section and key (``fabric.topology``), whether written as a dotted key,
a sub-table or a quoted key. The points of a study are every explicit point times every grid
combination times every draw, in a fixed order (grid keys sorted), so that the same scenario
always gives the same points, whatever the order its keys are written in.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fray.campaign.schema import Field, ScenarioError, closest, describe, whole

__all__ = ["Sweep", "parse_sweep"]

_DRAWS = ("choice", "int", "uniform")


@dataclass(frozen=True)
class Sweep:
    """A parsed sweep: values are already checked against their fields."""

    points: list[dict[str, Any]] = field(default_factory=list)
    grid: dict[str, list[Any]] = field(default_factory=dict)
    draws: int = 0
    random: dict[str, dict[str, list[Any]]] = field(default_factory=dict)

    def paths(self) -> set[str]:
        """Every key the sweep sets."""
        return {p for pt in self.points for p in pt} | set(self.grid) | set(self.random)

    def canonical(self) -> dict:
        """The sweep as plain data in a fixed order (hashed with the scenario)."""
        return {
            "points": [dict(sorted(p.items())) for p in self.points],
            "grid": dict(sorted(self.grid.items())),
            "draws": self.draws,
            "random": dict(sorted(self.random.items())),
        }

    def overlays(self, seed: int) -> list[dict[str, Any]]:
        """Every point's values (path -> value), in order; draws come from ``seed``."""
        explicit = self.points or [{}]
        keys = sorted(self.grid)
        grid = [dict(zip(keys, combo)) for combo in itertools.product(*(self.grid[k]
                                                                         for k in keys))]
        draws = [self._draw(seed, i) for i in range(self.draws)] or [{}]
        return [p | g | d for p in explicit for g in grid for d in draws]

    def _draw(self, seed: int, index: int) -> dict[str, Any]:
        rng = np.random.default_rng([seed, index])
        out: dict[str, Any] = {}
        for path in sorted(self.random):
            (how, args), = self.random[path].items()
            if how == "choice":
                out[path] = args[int(rng.integers(len(args)))]
            elif how == "int":
                out[path] = int(rng.integers(args[0], args[1] + 1))
            else:
                out[path] = float(rng.uniform(args[0], args[1]))
        return out


def parse_sweep(
    table: Any, fields: Mapping[str, Mapping[str, Field]], source: str
) -> Sweep:
    """Checks the ``[sweep]`` table against the kind's ``fields``."""
    if not isinstance(table, dict):
        raise ScenarioError(source, "sweep", f"expected a table, got {describe(table)}")
    for key in table:
        if key not in ("points", "grid", "random"):
            raise ScenarioError(source, f"sweep.{key}", "unknown key (expected points, grid "
                                f"or random){closest(key, ('points', 'grid', 'random'))}")
    points = _parse_points(table.get("points", []), fields, source)
    grid = _parse_grid(table.get("grid", {}), fields, source)
    draws, random = _parse_random(table.get("random", {}), fields, source)
    seen: dict[str, str] = {}
    for where, paths in (("sweep.points", {p for pt in points for p in pt}),
                         ("sweep.grid", set(grid)), ("sweep.random", set(random))):
        for p in sorted(paths):
            if p in seen:
                raise ScenarioError(source, f"{where}.{p}",
                                    f"already swept by {seen[p]}; sweep a key in one place")
            seen[p] = where
    return Sweep(points=points, grid=grid, draws=draws, random=random)


def _flatten(table: dict, prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": v}}`` and ``{"a.b": v}`` as ``{"a.b": v}``: a value two names deep is a
    leaf, whatever its type (a draw's ``{ int = [...] }`` stays a table)."""
    out: dict[str, Any] = {}
    for key, value in table.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and "." not in path:
            out.update(_flatten(value, path))
        else:
            out[path] = value
    return out


def _field(path: str, fields: Mapping[str, Mapping[str, Field]], source: str,
           where: str) -> Field:
    section, _, key = path.partition(".")
    if section not in fields or "." in key or key not in fields[section]:
        known = [f"{s}.{k}" for s in fields for k in fields[s]]
        raise ScenarioError(source, f"{where}.{path}",
                            f"not a key this study can sweep{closest(path, known)}")
    return fields[section][key]


def _check(f: Field, value: Any, source: str, key: str) -> Any:
    try:
        return f.normalise(value)
    except ValueError as exc:
        raise ScenarioError(source, key, str(exc)) from None


def _parse_points(points: Any, fields, source: str) -> list[dict[str, Any]]:
    if not isinstance(points, list) or not all(isinstance(p, dict) for p in points):
        raise ScenarioError(source, "sweep.points",
                            "expected an array of tables ([[sweep.points]] blocks)")
    out = []
    for i, point in enumerate(points):
        where = f"sweep.points[{i}]"
        flat = _flatten(point)
        if not flat:
            raise ScenarioError(source, where, "expected at least one key = value")
        out.append({p: _check(_field(p, fields, source, where), v, source, f"{where}.{p}")
                    for p, v in flat.items()})
    if len({tuple(sorted(p.items())) for p in out}) != len(out):
        raise ScenarioError(source, "sweep.points", "two points are the same")
    return out


def _parse_grid(grid: Any, fields, source: str) -> dict[str, list[Any]]:
    if not isinstance(grid, dict):
        raise ScenarioError(source, "sweep.grid", f"expected a table, got {describe(grid)}")
    out = {}
    for path, values in _flatten(grid).items():
        key = f"sweep.grid.{path}"
        f = _field(path, fields, source, "sweep.grid")
        if not isinstance(values, list) or not values:
            raise ScenarioError(source, key, f"expected a non-empty list of values, each "
                                f"{f.expected}, got {describe(values)}")
        checked = [_check(f, v, source, f"{key}[{i}]") for i, v in enumerate(values)]
        if len(set(map(repr, checked))) != len(checked):
            raise ScenarioError(source, key, "expected distinct values, got a repeated one")
        out[path] = checked
    return out


def _parse_random(table: Any, fields, source: str) -> tuple[int, dict]:
    if not isinstance(table, dict):
        raise ScenarioError(source, "sweep.random", f"expected a table, got {describe(table)}")
    table = dict(table)
    draws = table.pop("draws", None)
    params = _flatten(table)
    if not params:
        if draws is not None:
            raise ScenarioError(source, "sweep.random", "draws without any key to draw")
        return 0, {}
    try:
        draws = whole(1)(draws)
    except (TypeError, ValueError):
        raise ScenarioError(source, "sweep.random.draws",
                            f"expected a positive whole number, got {describe(draws)}") from None
    out = {}
    for path, spec in params.items():
        key = f"sweep.random.{path}"
        f = _field(path, fields, source, "sweep.random")
        if not isinstance(spec, dict) or len(spec) != 1 or next(iter(spec)) not in _DRAWS:
            raise ScenarioError(source, key, "expected one of { choice = [...] }, "
                                "{ int = [low, high] } or { uniform = [low, high] }, got "
                                + describe(spec))
        (how, args), = spec.items()
        if how == "choice":
            if not isinstance(args, list) or not args:
                raise ScenarioError(source, f"{key}.choice", "expected a non-empty list")
            args = [_check(f, v, source, f"{key}.choice[{i}]") for i, v in enumerate(args)]
        else:
            ok = (isinstance(args, list) and len(args) == 2
                  and all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args)
                  and (how == "uniform" or all(isinstance(a, int) for a in args))
                  and args[0] <= args[1])
            if not ok:
                kind = "whole numbers" if how == "int" else "numbers"
                raise ScenarioError(source, f"{key}.{how}",
                                    f"expected [low, high], two {kind} with low <= high, got "
                                    + describe(args))
            for i, a in enumerate(args):
                _check(f, a, source, f"{key}.{how}[{i}]")
        out[path] = {how: args}
    return draws, out
