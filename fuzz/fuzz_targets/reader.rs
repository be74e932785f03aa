//! Fuzz target `reader`: see `warcdex::testing::reader` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    warcdex::testing::reader(data);
});
