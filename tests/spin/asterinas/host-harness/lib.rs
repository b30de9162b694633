// SPDX-License-Identifier: MIT
//
// Host harness for the Asterinas instrumentation: the patched
// ostd/src/sync/spin.rs and spin/capture.rs of a v0.16.0 tree, compiled with
// the host's rustc over the few ostd items they use, and the generated
// scenario test run as a plain #[test].  The serial port is stdout.  This
// checks the patch's code and the generator's output (they compile together,
// the events are what the spin folder expects); it is no kernel run: the
// guards below do not disable preemption or IRQs.
#![feature(negative_impls)]
extern crate alloc;

pub mod arch {
    pub mod serial {
        pub(crate) fn send(byte: u8) {
            use std::io::Write;
            std::io::stdout().write_all(&[byte]).unwrap();
        }
    }
}

pub mod trap {
    pub mod irq {
        pub struct DisabledLocalIrqGuard;
        pub fn disable_local() -> DisabledLocalIrqGuard {
            DisabledLocalIrqGuard
        }
    }
}

pub mod task {
    pub mod atomic_mode {
        pub unsafe trait InAtomicMode: core::fmt::Debug {}
        pub trait AsAtomicModeGuard {
            fn as_atomic_mode_guard(&self) -> &dyn InAtomicMode;
        }
        impl<G: InAtomicMode> AsAtomicModeGuard for G {
            fn as_atomic_mode_guard(&self) -> &dyn InAtomicMode {
                self
            }
        }
    }
}

pub mod prelude {
    pub use std::prelude::v1::test as ktest;
}

pub mod sync {
    mod guard {
        use crate::task::atomic_mode::{AsAtomicModeGuard, InAtomicMode};

        #[derive(Debug)]
        pub struct NoGuard;
        unsafe impl InAtomicMode for NoGuard {}

        pub trait SpinGuardian {
            type Guard: AsAtomicModeGuard;
            fn guard() -> Self::Guard;
        }
        pub enum PreemptDisabled {}
        pub enum LocalIrqDisabled {}
        impl SpinGuardian for PreemptDisabled {
            type Guard = NoGuard;
            fn guard() -> NoGuard {
                NoGuard
            }
        }
        impl SpinGuardian for LocalIrqDisabled {
            type Guard = NoGuard;
            fn guard() -> NoGuard {
                NoGuard
            }
        }
    }
    mod spin;
    pub use self::guard::{LocalIrqDisabled, PreemptDisabled};
    pub use self::spin::{SpinLock, SpinLockGuard};
}
