// SPDX-License-Identifier: MIT

//! "-serve": the tries of capture raftrs --explore in this one process
//! under the probes (attached once), by the protocol of etcd's harness
//! (scenarios/raft/lang/serve.go, which the explorer's served.c speaks).  Each
//! stdin line is a try: tab-separated, the GOCOVERDIR of its counters
//! (always "": this harness has no coverage signal, docs/raftrs.md),
//! "quiet" or "" (a refusal is expected: say nothing), then a command line
//! of this harness (-generate ..., or SCENARIO_FILE [STEP_MAP]: the step
//! map is the with_tla harness's and a probed harness counts no events,
//! so it is not written).  The driver's probes at try_start and try_end
//! send the events between them to the try's file and tell it the try's
//! status (0, or 3: a step refused).  While serving, fatal(3) unwinds with
//! a Refused and the try ends, not the process.

use std::io::BufRead;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{fatal, generate, replay};

static SERVING: AtomicBool = AtomicBool::new(false);

/// A refusal while serving: the payload try_status() catches.
struct Refused(String);

/// Unwind with a refusal (code 3) while serving; otherwise return, for
/// fatal() to exit.
pub fn refuse_try(code: i32, msg: &str) {
    if code == 3 && SERVING.load(Ordering::Relaxed) {
        panic::panic_any(Refused(msg.to_string()));
    }
}

/// Where try i begins: a probe site, never inlined.
#[inline(never)]
fn try_start(i: u64) {
    std::hint::black_box(i);
}

/// Where try i ends with status: a probe site, never inlined.
#[inline(never)]
fn try_end(i: u64, status: u64) {
    std::hint::black_box((i, status));
}

pub fn serve() {
    SERVING.store(true, Ordering::Relaxed);
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<Refused>().is_none() {
            default(info)
        }
    }));
    for (i, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.unwrap_or_else(|e| fatal(1, &format!("-serve: stdin: {}", e)));
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 3 {
            fatal(2, &format!("-serve: try {}: want COVERDIR, QUIET and a command line", i));
        }
        if !f[0].is_empty() {
            fatal(2, &format!("-serve: try {}: this harness writes no coverage", i));
        }
        try_start(i as u64);
        let status = run_try(&f[2..], f[1] == "quiet");
        try_end(i as u64, status);
    }
}

/// One command line of the harness; a refusal is status 3.
fn run_try(args: &[&str], quiet: bool) -> u64 {
    let run = AssertUnwindSafe(|| match args {
        ["-generate", rest @ ..] => generate::generate(rest),
        [path] | [path, _] => replay(path, None),
        _ => fatal(2, &format!("-serve: bad try {:?}", args.join(" "))),
    });
    match panic::catch_unwind(run) {
        Ok(()) => 0,
        Err(p) => match p.downcast::<Refused>() {
            Ok(r) => {
                if !quiet {
                    eprintln!("raftrs-harness: {}", r.0);
                }
                3
            }
            Err(p) => panic::resume_unwind(p),
        },
    }
}
