"""Opening a fabric from what a person types: a spec string or a fabric file.

``open_fabric("dragonfly:p=4,a=8,h=4,g=9")`` parses a spec; ``open_fabric("x5.topofile")``
reads an ``ibnetdiscover`` dump, ``open_fabric("my.json")`` fray's JSON format and
``open_fabric("edison_aries_links.txt")`` Cray XC (Aries) wiring (the core tells the format
from the file's text unless ``format`` names it).
"""

from __future__ import annotations

from pathlib import Path

from fray import SpecError
from fray._fray import Fabric

__all__ = ["FILE_FORMATS", "describe", "open_fabric"]

#: Fabric file formats fray reads.
FILE_FORMATS = ("ibnetdiscover", "json", "aries")


def open_fabric(spec_or_file: str, format: str | None = None) -> Fabric:
    """The fabric a spec string describes, or the one a fabric file holds; a name that is
    neither a spec (``FAMILY:PARAMETERS``) nor a file is a missing file."""
    path = Path(spec_or_file)
    if format is not None or path.exists():  # a directory too: the reader names it
        return Fabric.read(str(path), format)
    if ":" not in spec_or_file:
        raise SpecError(f"{spec_or_file}: no such file (nor a FAMILY:PARAMETERS spec)")
    return Fabric.parse(spec_or_file)


def describe(fabric: Fabric) -> dict:
    """What ``fray fabric info`` prints: routers, endpoints, channels, default routing, and
    cables per class with lanes and bandwidth (``GB/s`` is 10^9 bytes per second)."""
    return {
        "routers": fabric.num_routers,
        "endpoints": fabric.num_endpoints,
        "channels": fabric.num_channels,
        "router_channels": fabric.num_router_channels,
        "default_routing": fabric.default_routing,
        "classes": fabric.summary(),
    }
