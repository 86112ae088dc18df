//! A motif with a bad parameter says which motif and which field.

use fray_core::workload::{Halo3D26, Motif, Sweep3D};

#[test]
fn zero_or_negative_fields() {
    let mut h = Halo3D26::new(2, 0, 2);
    let err = h.dag().unwrap_err().to_string();
    assert!(err.contains("halo3d26 pey"), "{err}");
    h.pey = 2;
    h.compute_s = -1.0;
    let err = h.dag().unwrap_err().to_string();
    assert!(err.contains("halo3d26 compute_s"), "{err}");
    h.compute_s = 0.0;
    h.iterations = 0;
    let err = h.dag().unwrap_err().to_string();
    assert!(err.contains("halo3d26 iterations"), "{err}");

    let mut s = Sweep3D::new(4, 4);
    s.nx = 0;
    let err = s.dag().unwrap_err().to_string();
    assert!(err.contains("sweep3d nx"), "{err}");
}

#[test]
fn too_many_ranks() {
    let h = Halo3D26::new(4096, 4096, 4096);
    let err = h.num_ranks().unwrap_err().to_string();
    assert!(err.contains("more than 2^32 ranks"), "{err}");
}
