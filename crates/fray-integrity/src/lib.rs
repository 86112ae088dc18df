//! End-to-end checksums for message transports (placeholder, grows with the integrity work).
