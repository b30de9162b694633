// SPDX-License-Identifier: MIT
//! A toy till for capture probe's Rust support (tests/probe/test-probe-rust.sh):
//! WORKERS threads take turns under one Mutex (worker 0, 1, ..., 0, ...: the
//! schedule, and so the events, are the same every run and in every build)
//! and each applies OPS operations, an enum with data, to 4 accounts with
//! String names, an Option<Box<Owner>> and a Vec history; it logs every
//! operation it applies.  Then the main thread looks accounts up by name
//! (an Option<&Account> result), audits two types through one generic
//! function, and reviews REVIEWS amounts under rules behind `&dyn Rule`
//! (a Cap or a Quiet, by turns) and the till's `Box<dyn Rule>`, counting
//! them in a VecDeque, a HashMap and a HashSet, and settles a Batch taken
//! by value after each.  The probed functions are #[inline(never)]: an inlined one has
//! no symbol and is refused by the probes.
//!
//! usage: till [WORKERS [OPS [VERBOSE]]]  (default 3 and 30; a third
//!                                         argument sets find's verbose)
//!        till bench N                    (N calls of Till::apply, ns per call)
use std::sync::{Condvar, Mutex};
use std::thread;

pub mod shop {
    use std::collections::{HashMap, HashSet, VecDeque};

    /// What a worker does to the accounts: an enum with data.
    #[derive(Debug, Clone)]
    pub enum Op {
        Deposit { account: usize, cents: i64 },
        Withdraw { account: usize, cents: i64 },
        Transfer { from: usize, to: usize, cents: i64 },
        Freeze(usize),
    }

    pub struct Owner {
        pub id: u32,
        pub name: String,
    }

    pub struct Account {
        pub name: String,
        pub balance: i64,
        pub owner: Option<Box<Owner>>,
        pub history: Vec<i64>,
        pub frozen: bool,
    }

    pub struct Till {
        pub accounts: Vec<Account>,
        pub applied: u64,
        pub last: Option<u64>,
        /// review's: the cents of the last 3 it allowed, how many it saw for
        /// each account, their rounds mod 3, the till's own rule; settle's.
        pub queue: VecDeque<i64>,
        pub tally: HashMap<usize, u32>,
        pub marks: HashSet<u32>,
        pub settled: Vec<i64>,
        pub policy: Box<dyn Rule>,
    }

    /// What settle is given: the amounts of the last 8 reviews (the
    /// latest first, 0 before the first) and a memo.
    pub struct Batch {
        pub amounts: [i64; 8],
        pub memo: String,
    }

    /// What review asks of an operation: a trait, two types behind `dyn`.
    pub trait Rule: Send + Sync {
        fn allows(&self, account: usize, cents: i64) -> bool;
        /// As the log writes it: cap(MAX), quiet(ACCOUNT).
        fn name(&self) -> String;
    }

    pub struct Cap {
        pub max: i64,
    }

    pub struct Quiet {
        pub account: usize,
    }

    impl Rule for Cap {
        fn allows(&self, _account: usize, cents: i64) -> bool {
            cents <= self.max
        }

        fn name(&self) -> String {
            format!("cap({})", self.max)
        }
    }

    impl Rule for Quiet {
        fn allows(&self, account: usize, _cents: i64) -> bool {
            account != self.account
        }

        fn name(&self) -> String {
            format!("quiet({})", self.account)
        }
    }

    impl Till {
        pub fn new() -> Till {
            let names = ["alice", "bob", "carol", "dave"];
            let accounts = names
                .iter()
                .enumerate()
                .map(|(i, n)| Account {
                    name: n.to_string(),
                    balance: 100 * (i as i64 + 1),
                    owner: if i % 2 == 0 {
                        Some(Box::new(Owner { id: 10 + i as u32, name: n.to_uppercase() }))
                    } else {
                        None
                    },
                    history: Vec::new(),
                    frozen: false,
                })
                .collect();
            Till {
                accounts,
                applied: 0,
                last: None,
                queue: VecDeque::with_capacity(3),
                tally: HashMap::new(),
                marks: HashSet::new(),
                settled: Vec::new(),
                policy: Box::new(Cap { max: 35 }),
            }
        }

        /// Do @rule and the till's policy allow @cents for @account in
        /// @round?  Counts reviews by account and round mod 3; keeps the
        /// cents of the last 3 allowed.
        #[inline(never)]
        pub fn review(&mut self, account: usize, cents: i64, round: u32, rule: &dyn Rule) -> bool {
            *self.tally.entry(account).or_insert(0) += 1;
            self.marks.insert(round % 3);
            let ok = rule.allows(account, cents) && self.policy.allows(account, cents);
            if ok {
                if self.queue.len() == 3 {
                    self.queue.pop_front();
                }
                self.queue.push_back(cents);
            }
            ok
        }

        /// @batch's amounts' sum plus its memo's length; keeps the latest.
        /// @batch is taken by value and taken apart: a debug build reaches it
        /// through the slot of the pointer it is passed by (its DWARF
        /// location is DW_OP_fbreg N, DW_OP_deref).
        #[inline(never)]
        pub fn settle(&mut self, batch: Batch) -> i64 {
            let Batch { amounts, memo } = batch;
            self.settled.push(amounts[0]);
            amounts.iter().sum::<i64>() + memo.len() as i64
        }

        /// Apply @op for @worker with @memo; the new balance of the account
        /// it touched first, or None when refused (frozen, or too little).
        #[inline(never)]
        pub fn apply(&mut self, worker: u32, op: &Op, memo: &str) -> Option<i64> {
            let r = match *op {
                Op::Deposit { account, cents } => self.add(account, cents),
                Op::Withdraw { account, cents } => self.add(account, -cents),
                Op::Transfer { from, to, cents } => {
                    let r = self.add(from, -cents);
                    if r.is_some() {
                        self.add(to, cents);
                    }
                    r
                }
                Op::Freeze(account) => {
                    self.accounts[account].frozen = true;
                    Some(self.accounts[account].balance)
                }
            };
            if r.is_some() {
                self.applied += 1;
                self.last = Some(worker as u64);
            }
            std::hint::black_box(memo);
            r
        }

        fn add(&mut self, account: usize, cents: i64) -> Option<i64> {
            let a = &mut self.accounts[account];
            if a.frozen || a.balance + cents < 0 {
                return None;
            }
            a.balance += cents;
            a.history.push(cents);
            Some(a.balance)
        }

        /// The account named @name, if any; @verbose is read by a debug
        /// build only (a release build's DWARF has no location for it).
        #[inline(never)]
        pub fn find(&self, name: &str, verbose: bool) -> Option<&Account> {
            debug_assert!(!verbose || !name.is_empty());
            self.accounts.iter().find(|a| a.name == name)
        }
    }

    /// Audit anything with a balance: a generic function, two instantiations.
    pub trait Balance {
        fn cents(&self) -> i64;
    }

    impl Balance for Account {
        fn cents(&self) -> i64 {
            self.balance
        }
    }

    impl Balance for Till {
        fn cents(&self) -> i64 {
            self.accounts.iter().map(|a| a.balance).sum()
        }
    }

    #[inline(never)]
    pub fn audit<T: Balance>(what: &T, round: u32) -> i64 {
        std::hint::black_box(what.cents() + round as i64)
    }
}

use shop::{Batch, Cap, Op, Quiet, Rule, Till};

/// Worker @w's operation @i: follows from the numbers alone.
fn op_of(w: usize, i: usize) -> Op {
    let a = (w + i) % 4;
    let cents = 5 + ((w * 7 + i * 13) % 40) as i64;
    match (w + i) % 9 {
        0 | 3 | 6 => Op::Deposit { account: a, cents },
        1 | 4 => Op::Withdraw { account: a, cents },
        8 if i > 20 => Op::Freeze(a),
        _ => Op::Transfer { from: a, to: (a + 1) % 4, cents },
    }
}

fn log_op(w: usize, i: usize, op: &Op, memo: &str, r: Option<i64>, t: &Till) {
    let b: Vec<String> = t.accounts.iter().map(|a| a.balance.to_string()).collect();
    println!(
        "worker={} op={} {:?} memo={} result={} balances={}",
        w,
        i,
        op,
        memo,
        r.map_or("refused".to_string(), |v| v.to_string()),
        b.join(",")
    );
}

/// `till bench N`: N calls of Till::apply on one thread, alternately a
/// deposit and a withdrawal; prints the ns per call (bench/ebpf-overhead-rust).
fn bench(n: usize) {
    let mut till = Till::new();
    let ops = [Op::Deposit { account: 0, cents: 5 }, Op::Withdraw { account: 0, cents: 5 }];
    let memo = String::from("bench");
    let t = std::time::Instant::now();
    for i in 0..n {
        std::hint::black_box(till.apply(0, &ops[i % 2], &memo));
    }
    println!("{:.1}", t.elapsed().as_nanos() as f64 / n.max(1) as f64);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("bench") {
        return bench(args.get(2).map_or(1000000, |s| s.parse().expect("N")));
    }
    let workers: usize = args.get(1).map_or(3, |s| s.parse().expect("WORKERS"));
    let ops: usize = args.get(2).map_or(30, |s| s.parse().expect("OPS"));
    let till = Till::new();
    for (i, a) in till.accounts.iter().enumerate() {
        if let Some(o) = &a.owner {
            println!("owner account={} id={} name={}", i, o.id, o.name);
        }
    }
    let state = Mutex::new((till, 0usize));
    let turn = Condvar::new();

    thread::scope(|sc| {
        for w in 0..workers {
            let (state, turn) = (&state, &turn);
            sc.spawn(move || {
                for i in 0..ops {
                    let mut g = turn
                        .wait_while(state.lock().unwrap(), |s| s.1 % workers != w)
                        .unwrap();
                    let op = op_of(w, i);
                    let memo = format!("w{}-{}", w, i);
                    let r = g.0.apply(w as u32, &op, &memo);
                    log_op(w, i, &op, &memo, r, &g.0);
                    g.1 += 1;
                    turn.notify_all();
                }
            });
        }
    });
    let (till, _) = state.into_inner().unwrap();
    for name in ["carol", "erin"] {
        let found = till.find(name, args.len() > 3);
        println!("find={} balance={}", name, found.map_or("none".to_string(), |a| a.balance.to_string()));
    }
    // Rounds from the command line: a constant would be folded into the callee.
    println!("audit till={} round={}", shop::audit(&till, workers as u32), workers);
    println!("audit account={} round={}", shop::audit(&till.accounts[0], ops as u32), ops);
    review(till);
}

/// REVIEWS amounts reviewed, the rule by turns a Cap and a Quiet (a trait
/// object of either type), each settled in a Batch of the last 8; logs
/// each with the till's counts.
fn review(mut till: Till) {
    let (cap, quiet) = (Cap { max: 25 }, Quiet { account: 0 });
    let mut last = [0i64; 8];
    for i in 0..REVIEWS {
        let rule: &dyn Rule = if i % 2 == 0 { &cap } else { &quiet };
        let (account, cents) = (i % 4, 5 + (i as i64 * 13) % 40);
        let ok = till.review(account, cents, 1 + i as u32, rule);
        last.rotate_right(1);
        last[0] = cents;
        let settled = till.settle(Batch { amounts: last, memo: format!("r{}", i) });
        println!(
            "review round={} account={} cents={} rule={} policy={} allowed={} queue={} tally={} marks={} settled={}",
            1 + i,
            account,
            cents,
            rule.name(),
            till.policy.name(),
            ok,
            till.queue.len(),
            till.tally.len(),
            till.marks.len(),
            settled
        );
    }
}

const REVIEWS: usize = 10;
