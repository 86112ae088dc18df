//! One module per checksum algorithm; each gives a streaming state with a fused copy.

pub(crate) mod adler32;
pub(crate) mod bytewise;
pub(crate) mod crc32;
pub(crate) mod crc32c;
pub(crate) mod fletcher64;
pub(crate) mod fnv1a;
pub(crate) mod jenkins;
pub(crate) mod knuth;
pub(crate) mod murmur2a;
pub(crate) mod superfasthash;
pub(crate) mod word_reduce;
pub(crate) mod xxh3;
