"""The transport's error: data that stayed corrupted, or a peer that gave up."""

from __future__ import annotations

from fray import FrayError


class IntegrityError(FrayError):
    """A message could not be delivered intact (retries exhausted, or the peer aborted)."""
