"""``fray integrity``: placeholder until the integrity work lands."""

from __future__ import annotations

import argparse


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Registers the ``integrity`` sub-command."""
    p = sub.add_parser("integrity", help="(integrity work in progress)")
    p.set_defaults(func=lambda args: 0)
