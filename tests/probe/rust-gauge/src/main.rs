// A gauge whose whole state is one packed word, a static atomic: bits 0-7
// its level, 8-9 its mode, 16-31 its epoch, 63 whether it closed (once
// the epoch reaches CONFIG.limit).  WORKERS threads take turns (worker 0,
// 1, ..., 0, ...) applying OPS operations each, a sequence that follows
// from the worker's number alone, so the events are the same every run;
// each is logged.  For capture probe's statics and atomics
// (tests/probe/test-probe-vars.sh): the word, a struct, a module's
// static, a static mut, and an atomic of every width in a static struct.
//
// usage: gauge [WORKERS [OPS]]    (default 3 and 20)
use std::sync::atomic::{
    AtomicBool, AtomicI16, AtomicI32, AtomicI64, AtomicI8, AtomicIsize, AtomicPtr, AtomicU16,
    AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering::SeqCst,
};
use std::sync::{Condvar, Mutex};

pub struct Config {
    pub limit: u64,
    pub step: i32,
}

/// Every width of atomic, each set from the last operation.
pub struct Flags {
    pub op: AtomicU8,
    pub raised: AtomicBool,
    pub arg: AtomicI32,
    pub level: AtomicU16,
    pub delta: AtomicI64,
    pub count: AtomicUsize,
    pub back: AtomicIsize,
    pub sign: AtomicI8,
    pub wide: AtomicI16,
    pub epoch: AtomicU32,
    pub last: AtomicPtr<Config>,
}

pub static STATE: AtomicU64 = AtomicU64::new(0);
pub static CONFIG: Config = Config { limit: 6, step: 3 };
pub static SPARE: Config = Config { limit: 9, step: 1 };
pub static FLAGS: Flags = Flags {
    op: AtomicU8::new(0),
    raised: AtomicBool::new(false),
    arg: AtomicI32::new(0),
    level: AtomicU16::new(0),
    delta: AtomicI64::new(0),
    count: AtomicUsize::new(0),
    back: AtomicIsize::new(0),
    sign: AtomicI8::new(0),
    wide: AtomicI16::new(0),
    epoch: AtomicU32::new(0),
    last: AtomicPtr::new(std::ptr::null_mut()),
};
static mut APPLIED: u32 = 0;

pub mod dial {
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

    /// How many times the dial was read.
    pub static TICKS: AtomicUsize = AtomicUsize::new(0);

    pub fn tick() -> usize {
        TICKS.fetch_add(1, SeqCst) + 1
    }
}

const RAISE: i32 = 0;
const LOWER: i32 = 1;

/// Apply operation `op` to the gauge (the caller holds the turn).
#[inline(never)]
pub fn apply(worker: i32, op: i32, arg: i32) -> u64 {
    let w = STATE.load(SeqCst);
    let (mut level, mut mode, mut epoch) = (w & 0xff, w >> 8 & 3, w >> 16 & 0xffff);
    let before = level as i64;
    match op {
        RAISE => level = (level + arg as u64) & 0xff,
        LOWER => level = level.max(arg as u64) - arg as u64,
        _ => {
            mode = (mode + 1) & 3;
            epoch += 1;
        }
    }
    let mut w = level | mode << 8 | epoch << 16;
    if epoch >= CONFIG.limit {
        w |= 1 << 63;
    }
    STATE.store(w, SeqCst);
    let applied = unsafe {
        APPLIED += 1;
        APPLIED
    };
    FLAGS.op.store(op as u8, SeqCst);
    FLAGS.raised.store(op == RAISE, SeqCst);
    FLAGS.arg.store(-arg, SeqCst);
    FLAGS.level.store(level as u16 * 200, SeqCst);
    FLAGS.delta.store(level as i64 - before, SeqCst);
    FLAGS.count.store(applied as usize * 3, SeqCst);
    FLAGS.back.store(-(applied as isize), SeqCst);
    FLAGS.sign.store(-(op as i8) - 1, SeqCst);
    FLAGS.wide.store(-(arg as i16) * 300, SeqCst);
    FLAGS.epoch.store(epoch as u32 + 70000, SeqCst);
    let last = if op == RAISE { &SPARE } else { &CONFIG };
    FLAGS.last.store(last as *const Config as *mut Config, SeqCst);
    let f = &FLAGS;
    println!(
        "apply worker={} op={} arg={} level={} mode={} epoch={} closed={} applied={} ticks={} \
         limit={} step={} flags.op={} flags.raised={} flags.arg={} flags.level={} \
         flags.delta={} flags.count={} flags.back={} flags.sign={} flags.wide={} \
         flags.epoch={} flags.limit={}",
        worker, op, arg, level, mode, epoch, w >> 63, applied, dial::tick(), CONFIG.limit,
        CONFIG.step, f.op.load(SeqCst), f.raised.load(SeqCst), f.arg.load(SeqCst),
        f.level.load(SeqCst), f.delta.load(SeqCst), f.count.load(SeqCst), f.back.load(SeqCst),
        f.sign.load(SeqCst), f.wide.load(SeqCst), f.epoch.load(SeqCst),
        unsafe { (*f.last.load(SeqCst)).limit }
    );
    w
}

/// A worker's turn ends: in a release build a tail call to std's
/// process::id, through the GOT, so that no RET of pause's own takes the
/// return (the id is the process's: not logged).
#[inline(never)]
pub fn pause(worker: i32) -> u32 {
    if worker < 0 {
        return 0;
    }
    std::process::id()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let workers: i32 = args.get(1).map_or(3, |a| a.parse().expect("WORKERS"));
    let ops: i32 = args.get(2).map_or(20, |a| a.parse().expect("OPS"));
    let turn = Mutex::new(0u64);
    let next = Condvar::new();
    let last = AtomicU64::new(0);
    std::thread::scope(|s| {
        for g in 0..workers {
            let (turn, next, last) = (&turn, &next, &last);
            s.spawn(move || {
                let mut seed = 11u32.wrapping_add(17u32.wrapping_mul(g as u32));
                for _ in 0..ops {
                    seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
                    let mut t = turn.lock().unwrap();
                    while *t % workers as u64 != g as u64 {
                        t = next.wait(t).unwrap();
                    }
                    // the word returned is used: else LLVM drops apply's result
                    last.store(apply(g, ((seed >> 8) % 3) as i32, ((seed >> 12) % 40) as i32 + 1), SeqCst);
                    if pause(g) > 0 {
                        println!("pause worker={}", g);
                    }
                    *t += 1;
                    next.notify_all();
                }
            });
        }
    });
    println!("last word={}", last.load(SeqCst));
}
