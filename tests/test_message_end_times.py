"""A phase of messages on the flow engine through ``fray.simulate``: each message's own
end time (``SimulationResult.message_end_s``)."""

import fray
import pytest
from fray import Fabric, SpecError

EXACT = fray.FlowEngine(time_tolerance=0, time_resolution="0s")


def test_each_message_gets_its_own_completion_time():
    # A 4-ring with ideal host links and no latency: 0->1 and 1->2 cross different cables
    # (1 MB at 10 GB/s each); 2->3 and 2->3 again share one cable (half each).
    ring = Fabric.parse("torus:4").with_class_link("host", 1e18, 0.0)
    ring = ring.with_class_link("x", 1e10, 0.0)
    out = fray.simulate(ring, [(0, 1, 1e6), (1, 2, 1e6), (2, 3, 1e6), (2, 3, 1e6)],
                        routing="dor", engine=EXACT)
    assert out.routing == "dor"
    assert out.message_end_s.tolist() == pytest.approx([1e-4, 1e-4, 2e-4, 2e-4], rel=1e-12)
    assert out.jobs[0].makespan_s == pytest.approx(2e-4, rel=1e-12)


def test_latency_is_paid_per_hop():
    ring = Fabric.parse("torus:8").with_class_link("host", 1e18, 0.0)
    hop = ring.channel(0)
    out = fray.simulate(ring, [(0, 3, 1e6)], routing="dor", engine=EXACT)
    expected = 3 * hop["latency_s"] + 1e6 / hop["bandwidth_bytes_s"]
    assert out.message_end_s.tolist() == pytest.approx([expected], rel=1e-12)


def test_only_a_phase_of_messages_on_the_flow_engine_has_end_times():
    torus = Fabric.parse("torus:4x4")
    assert fray.simulate(torus, [(0, 5, 1e6)], engine="load").message_end_s is None
    assert fray.simulate(torus, "halo3d26:nx=4,compute=no").message_end_s is None


def test_bad_endpoints_are_refused():
    with pytest.raises(SpecError, match="destination"):
        fray.simulate(Fabric.parse("torus:4"), [(0, 9, 1.0)])
