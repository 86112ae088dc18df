"""``fray._fray.flow_messages``: the flow engine on an explicit list of messages."""

import pytest
from fray import Fabric, SpecError, _fray


def test_each_message_gets_its_own_completion_time():
    # A 4-ring with ideal host links and no latency: 0->1 and 1->2 cross different cables
    # (1 MB at 10 GB/s each); 2->3 and 2->3 again share one cable (half each).
    ring = Fabric.parse("torus:4").with_class_link("host", 1e18, 0.0)
    ring = ring.with_class_link("x", 1e10, 0.0)
    out = _fray.flow_messages(
        ring, [(0, 1, 1e6), (1, 2, 1e6), (2, 3, 1e6), (2, 3, 1e6)], routing="dor", time_tolerance=0
    )
    assert out["routing"] == "dor"
    assert out["completion_s"] == pytest.approx([1e-4, 1e-4, 2e-4, 2e-4], rel=1e-12)
    assert out["end_s"] == pytest.approx(2e-4, rel=1e-12)


def test_latency_is_paid_per_hop():
    ring = Fabric.parse("torus:8").with_class_link("host", 1e18, 0.0)
    hop = ring.channel(0)
    out = _fray.flow_messages(ring, [(0, 3, 1e6)], routing="dor", time_tolerance=0)
    expected = 3 * hop["latency_s"] + 1e6 / hop["bandwidth_bytes_s"]
    assert out["completion_s"] == pytest.approx([expected], rel=1e-12)


def test_bad_endpoints_are_refused():
    with pytest.raises(SpecError, match="rank 9"):
        _fray.flow_messages(Fabric.parse("torus:4"), [(0, 9, 1.0)])
