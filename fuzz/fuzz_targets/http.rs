//! Fuzz target `http`: see `warcdex::testing::http` (src/testing.rs) for what it runs and
//! how the input is read.
#![no_main]

libfuzzer_sys::fuzz_target!(init: { warcdex::testing::http_init(); }, |data: &[u8]| {
    warcdex::testing::http(data);
});
