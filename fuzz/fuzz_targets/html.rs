//! Fuzz target `html`: see `warcdex::testing::html` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::testing::html(data);
});
