//! ibnetdiscover files of any bytes: a fabric, or one line naming the file.
#![no_main]

use fray_core::fabric::{Fabric, FileFormat};
use fray_core_fuzz::{assert_one_line_naming_the_file, FILE};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if let Err(e) = Fabric::read_bytes(bytes, FILE, FileFormat::Ibnetdiscover) {
        assert_one_line_naming_the_file(e);
    }
});
