//! The spellings the docs, examples and scenario files use read as typed values whose
//! canonical print reads back to the same value, so a spec copied from a result (which
//! prints the canonical form) configures the same run as the spec typed by hand; and the
//! value built from its kind and options is that value again.

use fray_core::options::OptionFamily;
use fray_core::routing::RoutingSpec;
use fray_core::sim::Engine;
use fray_core::workload::{HostCosts, WorkloadSpec};

fn prints_back<T: OptionFamily + PartialEq + std::fmt::Debug>(given: &str) -> String {
    let value: T = given.parse().unwrap_or_else(|e| panic!("{given}: {e}"));
    let printed = value.to_string();
    let again: T = printed.parse().unwrap_or_else(|e| panic!("{printed}: {e}"));
    assert_eq!(again.to_string(), printed, "{given}");
    let options = value.options();
    let pairs: Vec<(&str, &str)> = options.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let built = T::from_options(value.kind(), &pairs).unwrap();
    assert_eq!(built.to_string(), printed, "{given}");
    printed
}

#[test]
fn routings_print_back() {
    for given in [
        "ugal",
        "ugal:links=adaptive",
        "ugal:links=adaptive,threshold=800",
        "ugal:threshold=800,links=adaptive",
        "ugal:threshold=0,links=random",
        "ugal:credits=32768",
        "ugal:credits=8,factor=2,queues=vc",
        "doal",
        "doal:weights=merlin",
        "dor",
        "dor-retry",
        "updown",
        "updown-ft",
        "table",
        "minimal",
        "valiant",
    ] {
        let printed = prints_back::<RoutingSpec>(given);
        assert_eq!(
            printed.parse::<RoutingSpec>(),
            given.parse::<RoutingSpec>(),
            "{given}"
        );
    }
}

#[test]
fn engines_print_back() {
    for given in [
        "load",
        "flow",
        "packet",
        "packet:mtu=2048,buffer=16384",
        "packet:queue=output,queue_cap=5120",
        "packet:route=packet,mtu=2048,buffer=16384",
        "packet:router=merlin,mtu=2048",
        "packet:router=merlin,mtu=2KiB",
        "packet:nic_setup=0.545us,arbitration=round-robin,vcs=4",
    ] {
        let printed = prints_back::<Engine>(given);
        assert_eq!(
            printed.parse::<Engine>(),
            given.parse::<Engine>(),
            "{given}"
        );
    }
}

#[test]
fn host_costs_and_workloads_print_back() {
    for given in [
        "none",
        "ember",
        "ember*2",
        "ember+nic=150ns",
        "ember+send_copy=344ps/B",
        "ember*0.5+match=0ns+eager=100",
    ] {
        let printed = prints_back::<HostCosts>(given);
        assert_eq!(
            printed.parse::<HostCosts>(),
            given.parse::<HostCosts>(),
            "{given}"
        );
    }
    for given in [
        "halo3d26:jobs=4,nx=30",
        "halo3d26:nx=30,compute=no",
        "halo3d26:nx=8,host=ember+send_copy=344ps/B",
        "halo3d26:peflops=1e10",
        "sweep3d:jobs=2,kba=4",
        "lqcd:budget=512,iterations=2",
        "uniform:size=4096,chunks=4,compute_s=1e-6",
    ] {
        let printed = prints_back::<WorkloadSpec>(given);
        let (a, b) = (
            printed.parse::<WorkloadSpec>().unwrap(),
            given.parse::<WorkloadSpec>().unwrap(),
        );
        assert_eq!(
            WorkloadSpec {
                text: b.text.clone(),
                ..a
            },
            b,
            "{given}"
        );
    }
}
