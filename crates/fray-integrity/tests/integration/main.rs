//! fray-integrity's integration tests: one test binary, one module per behaviour, each named
//! for what it proves.

mod detection_quality;
mod fletcher64_matches_reference;
mod models_reproduce_paper;
mod net_chunk_plan_follows_model;
mod published_test_vectors;
mod ring_channel;
mod smhasher_verification;
mod streaming_equals_one_shot;
mod transport_frames;
