// SPDX-License-Identifier: MIT

//! The scenario generator of capture raftrs --explore: etcd's
//! (scenarios/raft/lang/generate.go and explore.go, which the Go harnesses
//! share) in Rust, as scenario.rs is scenario.go.  "-generate SEED STEPS
//! OUT STEP_MAP [PREFIX_FILE K]" runs the cluster while it writes a
//! scenario of etcd's language, each step drawn by a PRNG seeded with SEED
//! among the steps this cluster's state allows (so none is refused and
//! every tick is deterministic), and writes it to OUT.  With a prefix it
//! first replays PREFIX_FILE's header (as raft-rs takes it: take_header)
//! and first K steps (kept scenarios being mutated), but those the state
//! does not allow.  The scenario replays to the same events: the
//! randomness is all here.  STEP_MAP is not written: it maps the with_tla
//! harness's events, and the probes count none (serve.rs).
//!
//! The draw is generate.go's: the same steps, weights and rules, over
//! raft-rs's state (RawNode's raft: its role, leader, elapsed ticks,
//! applied index, voters); the PRNG is the explorer's splitmix64, not Go's
//! PCG, so a seed draws other scenarios than etcd's generator does.

use raft::StateRole;

use crate::scenario::{self, Config, MAX_NODES, MAX_SIZE_PER_MSG, NODES};
use crate::{fatal, Cluster};

/// splitmix64, as the explorer's (explore.c).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e3779b97f4a7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d049bb133111eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The steps a state allows, each with its weight in the draw.
type Options = Vec<(String, u64)>;

struct Generator {
    c: Cluster,
    rng: Rng,
    lines: Vec<String>,
    data: u64,
}

/// The raft configuration of a new scenario, its header into lines.
fn random_header(rng: &mut Rng, lines: &mut Vec<String>) -> Config {
    let ticks = [3, 4, 5, 10];
    let on_off = |b: bool| if b { "on" } else { "off" };
    let pre_vote = rng.below(2) == 1;
    let check_quorum = rng.below(2) == 1;
    let election_tick = ticks[rng.below(ticks.len() as u64) as usize];
    lines.push(format!("config prevote {}", on_off(pre_vote)));
    lines.push(format!("config checkquorum {}", on_off(check_quorum)));
    lines.push(format!("config election-tick {}", election_tick));
    lines.push("config heartbeat-tick 1".into());
    Config {
        pre_vote,
        check_quorum,
        election_tick,
        heartbeat_tick: 1,
        max_uncommitted: 0,
        apply_by_step: false,
    }
}

/// A mutated scenario's header line as raft-rs takes it (the explorer's
/// scripted moves write etcd's): no "forwarding off" (raft-rs always
/// forwards) and no uncommitted-size limit below max_size_per_msg
/// (scenario.rs refuses both); the rest as it was.
fn take_header(line: &str) -> Option<String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    match f.as_slice() {
        ["config", "forwarding", "off"] => None,
        ["config", "max-uncommitted-size", n]
            if n.parse::<u64>().map_or(false, |n| n < MAX_SIZE_PER_MSG) =>
        {
            None
        }
        _ => Some(line.to_string()),
    }
}

/// What a step must share with one the state allows to be allowed: its
/// line, but a proposal's data, a partition's sides and a compaction's
/// index (generate.go's optionKey).
fn option_key(line: &str) -> String {
    let f: Vec<&str> = line.split_whitespace().collect();
    match f[0] {
        "propose" | "compact" => format!("{} {}", f[0], f[1]),
        "partition" => f[0].to_string(),
        _ => line.to_string(),
    }
}

impl Generator {
    fn new(cfg: Config, rng: Rng, lines: Vec<String>) -> Generator {
        Generator { c: Cluster::new(cfg), rng, lines, data: 0 }
    }

    /// A leader takes a proposal, a follower that knows one forwards it.
    fn can_propose(&self, id: u64) -> bool {
        let r = &self.c.nodes[id as usize].rn.as_ref().expect("a live node").raft;
        r.state == StateRole::Leader
            || (r.state == StateRole::Follower && r.leader_id != raft::INVALID_ID)
    }

    /// The steps on the messages queued from f for t.
    fn link_options(&self, opts: &mut Options, t: u64, f: u64) {
        if self.c.find(t, f).is_none() {
            return;
        }
        // raft-rs's messages are values: any can be duplicated
        for (word, weight) in
            [("deliver-one", 8), ("deliver", 3), ("drop", 1), ("duplicate", 2), ("reverse", 2)]
        {
            opts.push((format!("{} {}<-{}", word, t, f), weight));
        }
    }

    /// The steps on the network as a whole.
    fn network_options(&mut self, opts: &mut Options) {
        if self.c.queue.iter().any(|q| !q.is_empty()) {
            opts.push(("pump".into(), 1));
        }
        for t in 1..=MAX_NODES {
            if !self.c.queue[t as usize].is_empty() {
                opts.push((format!("discard {}", t), 1));
            }
        }
        if self.c.group.iter().any(|&g| g != 0) {
            opts.push(("heal".into(), 3));
            return;
        }
        let x = self.rng.below(NODES) + 1;
        let joined: String = (NODES + 1..=MAX_NODES)
            .filter(|&id| self.c.nodes[id as usize].started)
            .map(|id| format!(" {}", id))
            .collect();
        opts.push((
            format!("partition {} | {} {}{}", x, x % NODES + 1, (x + 1) % NODES + 1, joined),
            1,
        ));
    }

    /// Compact node id's storage up to what it applied (below a conf
    /// change not applied), when that is above its last snapshot.
    fn compact_option(&self, opts: &mut Options, id: u64) {
        let n = &self.c.nodes[id as usize];
        let mut applied = n.rn.as_ref().expect("a live node").raft.raft_log.applied;
        if let Some((index, _)) = n.pending.first() {
            applied = applied.min(index - 1);
        }
        if applied > n.compacted {
            opts.push((format!("compact {} {}", id, applied), 2));
        }
    }

    /// The steps node id can take in its state.
    fn node_options(&mut self, opts: &mut Options, id: u64, crashed: usize) {
        let n = &self.c.nodes[id as usize];
        if n.removed {
            return;
        }
        let Some(rn) = &n.rn else {
            opts.push((format!("restart {}", id), 3));
            return;
        };
        let (a, b) = (id % NODES + 1, (id + 1) % NODES + 1);
        let (leader, held) = (rn.raft.state == StateRole::Leader, n.held);
        if self.c.tick_safe(id) {
            opts.push((format!("tick {}", id), 4));
        }
        if !leader && !held {
            opts.push((format!("campaign {}", id), 3));
            opts.push((format!("elect {} {} {}", id, a, b), 1));
        }
        if self.can_propose(id) {
            self.data += 1;
            opts.push((format!("propose {} v{}", id, self.data), 3));
        }
        if held {
            opts.push((format!("release {}", id), 3));
        } else {
            opts.push((format!("hold {}", id), 1));
        }
        if crashed == 0 && !held {
            opts.push((format!("crash {}", id), 1));
        }
        self.compact_option(opts, id);
    }

    /// The membership steps, under a membership header only (the random
    /// headers never ask for one, a scripted move's does): a node that can
    /// propose adds the first node never started or removes a voter it
    /// knows; a node with a committed conf change applies it.
    fn conf_options(&self, opts: &mut Options) {
        if !self.c.cfg.apply_by_step && self.c.cfg.max_uncommitted == 0 {
            return;
        }
        let next = (NODES + 1..=MAX_NODES).find(|&id| !self.c.nodes[id as usize].started);
        for id in 1..=MAX_NODES {
            let n = &self.c.nodes[id as usize];
            let Some(rn) = &n.rn else { continue };
            if !n.pending.is_empty() {
                opts.push((format!("apply {}", id), 3));
            }
            if !self.can_propose(id) {
                continue;
            }
            if let Some(t) = next {
                opts.push((format!("add-node {} {}", id, t), 1));
            }
            let voters = rn.raft.prs().conf().to_conf_state().voters;
            for v in (1..=MAX_NODES).filter(|v| voters.contains(v)) {
                opts.push((format!("remove-node {} {}", id, v), 1));
            }
        }
    }

    fn options(&mut self) -> Options {
        let mut opts = Vec::new();
        let crashed = (1..=MAX_NODES).filter(|&id| self.c.crashed(id)).count();
        for t in 1..=MAX_NODES {
            for f in (1..=MAX_NODES).filter(|&f| f != t) {
                self.link_options(&mut opts, t, f);
            }
        }
        for id in 1..=MAX_NODES {
            if self.c.nodes[id as usize].started {
                self.node_options(&mut opts, id, crashed);
            }
        }
        self.network_options(&mut opts);
        self.conf_options(&mut opts);
        opts
    }

    fn draw(&mut self) -> String {
        let opts = self.options();
        let mut pick = self.rng.below(opts.iter().map(|o| o.1).sum());
        for (line, weight) in opts {
            if pick < weight {
                return line;
            }
            pick -= weight;
        }
        unreachable!("a draw below the weights' sum")
    }

    /// Parse and run one step: the generator offers only steps the state
    /// allows, so a refusal is its own bug.
    fn run_line(&mut self, line: &str, pos: &str) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let ran = scenario::parse_step(&fields).and_then(|mut s| {
            s.pos = pos.to_string();
            self.c.run(&s)
        });
        if let Err(bad) = ran {
            fatal(1, &format!("generated step {:?} ({}): {}", line, pos, bad));
        }
        self.lines.push(line.to_string());
    }

    /// The line to run for step line of a prefix in the present state, or
    /// None when the state does not allow it (generate.go's allowed).
    fn allowed(&mut self, line: &str) -> Option<String> {
        let key = option_key(line);
        if key == "partition" {
            // a partition must name the nodes started, and only them
            let fields: Vec<&str> = line.split_whitespace().collect();
            let s = scenario::parse_step(&fields).ok()?;
            self.c.sides(&s.groups).ok()?;
        }
        let o = self.options().into_iter().find(|o| option_key(&o.0) == key)?;
        Some(if line.starts_with("compact ") { o.0 } else { line.to_string() })
    }
}

fn number(arg: &str, what: &str) -> u64 {
    arg.parse().unwrap_or_else(|_| fatal(2, &format!("-generate: bad {}", what)))
}

pub fn generate(args: &[&str]) {
    if args.len() != 4 && args.len() != 6 {
        fatal(2, "usage: -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]");
    }
    let mut rng = Rng(number(args[0], "SEED"));
    let n = number(args[1], "STEPS");
    let mut g = if args.len() == 6 {
        let (cfg, steps, header) = scenario::read_taking(args[4], take_header);
        let mut g = Generator::new(cfg, rng, header);
        for s in steps.iter().take(number(args[5], "K") as usize) {
            if let Some(line) = g.allowed(&s.text) {
                g.run_line(&line, &s.pos);
            }
        }
        g
    } else {
        let mut lines = Vec::new();
        let cfg = random_header(&mut rng, &mut lines);
        Generator::new(cfg, rng, lines)
    };
    for i in 0..n {
        let line = g.draw();
        g.run_line(&line, &format!("generated step {}", i + 1));
    }
    g.c.release_all();
    let mut out = g.lines.join("\n");
    out.push('\n');
    if let Err(e) = std::fs::write(args[2], out) {
        fatal(1, &format!("{}: {}", args[2], e));
    }
}
