//! Fuzz target `cdx_line`: see `warcdex::testing::cdx_line` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::testing::cdx_line(data);
});
