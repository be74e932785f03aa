//! The unit tests' generator of inputs: xorshift64 from a fixed seed, so a generated
//! case that fails fails again on every run and every machine.

/// Marsaglia's xorshift64 (shifts 13, 7, 17).
pub(crate) struct XorShift(u64);

impl XorShift {
    /// A generator starting from `seed` (not 0, which it would never leave).
    pub(crate) fn new(seed: u64) -> Self {
        assert_ne!(seed, 0, "xorshift stays at 0");
        XorShift(seed)
    }

    /// The next number.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next number below `n` (not 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}
