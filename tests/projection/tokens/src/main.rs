//! tokens: pools of tokens whose whole state is one packed word in a
//! static, for capture's projections (docs/projection.md,
//! tests/projection/tokens.probes).  Two pools, MAIN (3 tokens) and SPARE
//! (1 token); the word of each holds, from its low bits up:
//!
//!   bits 0-7    tokens free
//!   bits 8-15   who holds one: bit w for worker w (0..7), one token each
//!   bits 16-31  how many times a token was taken
//!
//! `take(w)` gives worker w a token if one is free and w holds none (true),
//! else changes nothing (false); `give_back(w)` returns w's token (false,
//! nothing changed, if it holds none).  Workers 0..N-1 take turns under a
//! mutex (0, 1, ..., 0, ...: the same schedule every run); worker w's i-th
//! turn gives back when (i + w) % 3 is 2, else takes, of MAIN for an even
//! w, of SPARE for an odd one.  Each call is logged.
//!
//! usage: tokens [WORKERS [TURNS]]   (default 4 and 6)

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;

pub struct Pool {
    state: AtomicU64,
}

const FREE: u64 = 0xff;
const HOLDERS_SHIFT: u64 = 8;
const TAKEN_UNIT: u64 = 1 << 16;

pub static MAIN: Pool = Pool { state: AtomicU64::new(3) };
pub static SPARE: Pool = Pool { state: AtomicU64::new(1) };

impl Pool {
    #[inline(never)]
    pub fn take(&self, who: u64) -> bool {
        let mut w = self.state.load(Ordering::SeqCst);
        loop {
            let held = (w >> HOLDERS_SHIFT) & (1 << who) != 0;
            if w & FREE == 0 || held {
                return false;
            }
            let next = (w - 1) | (1 << (who + HOLDERS_SHIFT));
            match self.state.compare_exchange(w, next + TAKEN_UNIT, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }

    #[inline(never)]
    pub fn give_back(&self, who: u64) -> bool {
        let mut w = self.state.load(Ordering::SeqCst);
        loop {
            if (w >> HOLDERS_SHIFT) & (1 << who) == 0 {
                return false;
            }
            let next = (w + 1) & !(1 << (who + HOLDERS_SHIFT));
            match self.state.compare_exchange(w, next, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => w = now,
            }
        }
    }
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().unwrap_or(0)).collect();
    let workers = *args.first().unwrap_or(&4);
    let turns = *args.get(1).unwrap_or(&6);
    if !(1..=8).contains(&workers) {
        eprintln!("usage: tokens [WORKERS(1-8) [TURNS]]");
        std::process::exit(2);
    }
    let turn = Arc::new((Mutex::new(0usize), Condvar::new()));
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let turn = Arc::clone(&turn);
            thread::spawn(move || {
                for i in 0..turns {
                    let (mu, cv) = &*turn;
                    let mut t = mu.lock().unwrap();
                    while *t % workers != w {
                        t = cv.wait(t).unwrap();
                    }
                    let (name, pool) = if w % 2 == 0 { ("main", &MAIN) } else { ("spare", &SPARE) };
                    let (op, ok) = if (i + w) % 3 == 2 {
                        ("give_back", pool.give_back(w as u64))
                    } else {
                        ("take", pool.take(w as u64))
                    };
                    println!("{} pool={} worker={} ok={} word={:#x}", op, name, w, ok,
                             pool.state.load(Ordering::SeqCst));
                    *t += 1;
                    cv.notify_all();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}
