"""``fray spares``: placeholder until the spare-node study lands."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``spares`` sub-command."""
    p = sub.add_parser("spares", help="spare-node allocation and sliding substitution study")
    p.set_defaults(func=lambda args: 0)
