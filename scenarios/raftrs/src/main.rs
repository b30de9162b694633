// SPDX-License-Identifier: MIT

//! raftrs-harness drives a 3-node cluster of TiKV's raft-rs (crate `raft`
//! 0.7.0, unmodified) through one of etcd's scenario files, as etcd's
//! harness (scenarios/etcd/main.go) drives etcd's raft: RawNode over
//! MemStorage, messages delivered by hand, explicit campaign, no threads,
//! no randomness that matters (ticks only where the scenario says), and
//! every node's Ready drained after each step, so that one step's raft
//! activity is contiguous.  The network is the harness's queues: it loses,
//! duplicates or reorders a message only where the scenario says, and drops
//! what is sent across a partition or to a crashed node.
//!
//! It prints no raft state on stdout: the state in a corpus comes from eBPF
//! probes on this process (scenarios/raftrs/raft.probes).  With `-log FILE`
//! it writes what raft-rs itself says after each step (every live node's
//! role, term, vote, commit and last index), which tests hold the probes'
//! events against.
//!
//! Usage: raftrs-harness [-log FILE] SCENARIO_FILE;
//! raftrs-harness -batch SCENARIO_FILE... replays each in turn, each on a
//! cluster of its own, in one process (probes attached once);
//! raftrs-harness -generate ... draws a scenario (generate.rs) and
//! raftrs-harness -serve runs an exploration's tries (serve.rs).

mod generate;
mod membership;
mod scenario;
mod serve;

use std::collections::VecDeque;
use std::io::Write;

use raft::prelude::*;
use raft::storage::MemStorage;
use raft::StateRole;
use scenario::{Config as ScenarioConfig, Step, MAX_NODES, NODES};

/// End the harness with code and a message on stderr; while serving, a
/// refusal (3) ends the try instead (serve.rs).
pub fn fatal(code: i32, msg: &str) -> ! {
    serve::refuse_try(code, msg);
    eprintln!("raftrs-harness: {}", msg);
    std::process::exit(code)
}

/// One raft node; rn is None while it is crashed.  Its storage is its
/// disk: it survives a crash (every Ready is persisted before the next
/// step).  A held node's Ready waits (hold, release).  compacted is the
/// index of its storage's last snapshot (a compaction's, or one applied):
/// etcd's MemoryStorage refuses a snapshot at or below it.  A node above
/// NODES is started by add-node; a removed one is stopped for good.
struct Node {
    rn: Option<RawNode<MemStorage>>,
    storage: MemStorage,
    held: bool,
    compacted: u64,
    started: bool,
    removed: bool,
    pending: Vec<(u64, ConfChange)>, // committed, not yet applied
    confs: Vec<(u64, ConfState)>,    // applied since the RawNode started
    last: String,                    // a removed node's state when stopped
}

/// The nodes (index 1..=MAX_NODES) and the messages in flight, queued per
/// recipient in the order they were sent, and the partition (nodes in
/// different groups cannot reach each other; all in group 0 when healed).
struct Cluster {
    cfg: ScenarioConfig,
    logger: slog::Logger,
    nodes: Vec<Node>,
    queue: Vec<VecDeque<Message>>,
    group: Vec<usize>,
}

type Refusal = Result<(), String>;

impl Cluster {
    fn new(cfg: ScenarioConfig) -> Cluster {
        let mut c = Cluster {
            cfg,
            logger: slog::Logger::root(slog::Discard, slog::o!()),
            nodes: Vec::new(),
            queue: vec![VecDeque::new(); MAX_NODES as usize + 1],
            group: vec![0; MAX_NODES as usize + 1],
        };
        for id in 0..=MAX_NODES {
            // Every node starts knowing voters 1, 2, 3 with an empty log
            // at term 0, as etcd's bootstrap snapshot at index 0 (a node
            // added later too: it becomes a voter when it applies its own
            // ConfChange from the log).
            let storage = MemStorage::new_with_conf_state((vec![1, 2, 3], vec![]));
            c.nodes.push(Node {
                rn: None,
                storage,
                held: false,
                compacted: 0,
                started: false,
                removed: false,
                pending: Vec::new(),
                confs: Vec::new(),
                last: String::new(),
            });
            if (1..=NODES).contains(&id) {
                c.start(id);
            }
        }
        c
    }

    /// Started, crashed and not removed: a restart brings it back.
    fn crashed(&self, id: u64) -> bool {
        let n = &self.nodes[id as usize];
        n.started && n.rn.is_none() && !n.removed
    }

    fn rn(&mut self, id: u64) -> &mut RawNode<MemStorage> {
        self.nodes[id as usize].rn.as_mut().expect("a live node")
    }

    /// Node id's RawNode over its storage: at the beginning, and on a
    /// restart, where raft-rs reads its hard state, configuration and log
    /// back from the storage.
    fn start(&mut self, id: u64) {
        let rc = raft::Config {
            id,
            election_tick: self.cfg.election_tick,
            heartbeat_tick: self.cfg.heartbeat_tick,
            pre_vote: self.cfg.pre_vote,
            check_quorum: self.cfg.check_quorum,
            max_size_per_msg: scenario::MAX_SIZE_PER_MSG,
            max_inflight_msgs: 256,
            max_uncommitted_size: match self.cfg.max_uncommitted {
                0 => raft::NO_LIMIT,
                n => n,
            },
            ..Default::default()
        };
        let n = &mut self.nodes[id as usize];
        match RawNode::new(&rc, n.storage.clone(), &self.logger) {
            Ok(rn) => n.rn = Some(rn),
            Err(e) => fatal(1, &format!("node {}: {}", id, e)),
        }
        n.started = true;
        // raft-rs hands the committed entries above the storage's
        // snapshot out again, and their conf changes are applied anew
        n.pending.clear();
        n.confs.clear();
    }

    /// Queue m for its recipient, unless the network drops it: the
    /// recipient is crashed or on the other side of a partition.
    fn route(&mut self, msgs: Vec<Message>) {
        for m in msgs {
            let (to, from) = (m.to as usize, m.from as usize);
            if self.nodes[to].rn.is_some() && self.group[to] == self.group[from] {
                self.queue[to].push_back(m);
            }
        }
    }

    /// Node id's Ready loop to quiescence: persist a snapshot, entries and
    /// hard state, route outgoing messages, advance (and the commit index
    /// and messages of the light Ready that follows).  A held node is left
    /// for its release.
    fn drain(&mut self, id: u64) {
        while !self.nodes[id as usize].held && self.rn(id).has_ready() {
            let mut rd = self.rn(id).ready();
            let n = &mut self.nodes[id as usize];
            let mut st = n.storage.wl();
            if !rd.snapshot().is_empty() {
                n.compacted = rd.snapshot().get_metadata().index;
                if let Err(e) = st.apply_snapshot(rd.snapshot().clone()) {
                    fatal(1, &format!("node {}: apply snapshot: {}", id, e));
                }
            }
            if let Err(e) = st.append(rd.entries()) {
                fatal(1, &format!("node {}: append: {}", id, e));
            }
            if let Some(hs) = rd.hs() {
                st.set_hardstate(hs.clone());
            }
            drop(st);
            let mut out = rd.take_messages();
            out.extend(rd.take_persisted_messages());
            self.route(out);
            let ents = rd.take_committed_entries();
            if self.committed(id, &ents) {
                return;
            }
            let mut light = self.rn(id).advance(rd);
            if let Some(commit) = light.commit_index() {
                self.nodes[id as usize].storage.wl().mut_hard_state().set_commit(commit);
            }
            self.route(light.take_messages());
            if self.committed(id, &light.take_committed_entries()) {
                return;
            }
            self.rn(id).advance_apply();
        }
    }

    /// The position in to's queue of the first message from, if any.
    fn find(&self, to: u64, from: u64) -> Option<usize> {
        self.queue[to as usize].iter().position(|m| m.from == from)
    }

    /// Remove and return the first message from queued for to.
    fn take(&mut self, to: u64, from: u64) -> Result<Message, String> {
        let i = self.find(to, from).ok_or(format!("no message from {} queued for {}", from, to))?;
        Ok(self.queue[to as usize].remove(i).expect("a queued message"))
    }

    /// Step the first message from queued for to, then drain to.
    fn deliver_one(&mut self, to: u64, from: u64) -> Refusal {
        let m = self.take(to, from)?;
        // A rejected step (a stale message) is raft's decision, not a
        // harness failure.
        let _ = self.rn(to).step(m);
        self.drain(to);
        Ok(())
    }

    /// Step every message queued for to that from sent, one at a time in
    /// queue order, draining to after each; other senders' messages stay.
    fn deliver(&mut self, to: u64, from: u64) {
        while self.deliver_one(to, from).is_ok() {}
    }

    /// Queue a copy of the first message from to to right after it.
    fn duplicate(&mut self, to: u64, from: u64) -> Refusal {
        let i = self.find(to, from).ok_or(format!("no message from {} queued for {}", from, to))?;
        let q = &mut self.queue[to as usize];
        let dup = q[i].clone();
        q.insert(i + 1, dup);
        Ok(())
    }

    /// Reverse the order of from's messages in to's queue; the other
    /// senders' messages keep their places.
    fn reverse(&mut self, to: u64, from: u64) {
        let q = &mut self.queue[to as usize];
        let at: Vec<usize> = (0..q.len()).filter(|&i| q[i].from == from).collect();
        for k in 0..at.len() / 2 {
            q.swap(at[k], at[at.len() - 1 - k]);
        }
    }

    fn pump(&mut self) {
        while self.queue.iter().any(|q| !q.is_empty()) {
            for to in 1..=MAX_NODES {
                for from in 1..=MAX_NODES {
                    self.deliver(to, from);
                }
            }
        }
    }

    fn elect(&mut self, n: u64, a: u64, b: u64) -> Refusal {
        self.campaign(n)?;
        self.deliver(a, n);
        self.deliver(b, n);
        self.deliver(n, a);
        self.deliver(n, b);
        self.pump();
        Ok(())
    }

    fn campaign(&mut self, id: u64) -> Refusal {
        self.rn(id).campaign().map_err(|e| format!("campaign {}: {}", id, e))?;
        self.drain(id);
        Ok(())
    }

    /// Hand data to node id; a follower forwards it to the leader it knows
    /// (MsgPropose), and raft-rs drops it if there is none.
    fn propose(&mut self, id: u64, data: &str) -> Refusal {
        self.rn(id)
            .propose(vec![], data.as_bytes().to_vec())
            .map_err(|e| format!("propose {}: {}", id, e))?;
        self.drain(id);
        Ok(())
    }

    /// Whether a tick of node id is deterministic: a leader's always is; a
    /// follower or candidate campaigns once its elapsed ticks reach a
    /// timeout raft-rs draws at random from [election_tick,
    /// 2*election_tick), so only a tick that stays below election_tick is.
    fn tick_safe(&self, id: u64) -> bool {
        let r = &self.nodes[id as usize].rn.as_ref().expect("a live node").raft;
        r.state == StateRole::Leader || r.election_elapsed + 1 < self.cfg.election_tick
    }

    fn tick(&mut self, id: u64) -> Refusal {
        if !self.tick_safe(id) {
            let r = &self.rn(id).raft;
            return Err(format!(
                "tick {}: node {} has ticked {} time(s) without hearing from a leader; \
                 one more may reach its randomized election timeout (a campaign at a random tick)",
                id, id, r.election_elapsed
            ));
        }
        self.rn(id).tick();
        self.drain(id);
        Ok(())
    }

    /// Stop node id: its volatile state and the messages queued for it are
    /// lost; its storage stays.
    fn crash(&mut self, id: u64) {
        self.nodes[id as usize].rn = None;
        self.queue[id as usize].clear();
    }

    /// Make node id's application slow: its Ready is not taken until
    /// release, so the steps in between reach raft one after another with
    /// nothing persisted or sent.
    fn hold(&mut self, id: u64) -> Refusal {
        let n = &mut self.nodes[id as usize];
        if n.held {
            return Err(format!("node {} is held already", id));
        }
        n.held = true;
        Ok(())
    }

    fn release(&mut self, id: u64) -> Refusal {
        let n = &mut self.nodes[id as usize];
        if !n.held {
            return Err(format!("node {} is not held", id));
        }
        n.held = false;
        self.drain(id);
        Ok(())
    }

    /// Drop node id's log before index: MemStorage's compact keeps the
    /// entry at index (where etcd's keeps only its term), and the snapshot
    /// raft-rs then sends a follower that needs a dropped entry is
    /// MemStorage's own, at its commit (docs/raftrs.md).
    fn compact(&mut self, id: u64, index: u64) -> Refusal {
        let applied = self.rn(id).raft.raft_log.applied;
        if index > applied {
            return Err(format!(
                "compact {} {}: node {} has applied only up to {}",
                id, index, id, applied
            ));
        }
        self.conf_for_compact(id, index)?;
        let n = &mut self.nodes[id as usize];
        if index <= n.compacted {
            return Err(format!(
                "compact {} {}: requested index is older than the existing snapshot",
                id, index
            ));
        }
        n.compacted = index;
        n.storage.wl().compact(index).map_err(|e| format!("compact {} {}: {}", id, index, e))
    }

    /// Put each group on its own side; messages in flight between sides
    /// are lost.
    fn partition(&mut self, groups: &[Vec<u64>]) {
        for (g, ids) in groups.iter().enumerate() {
            for &id in ids {
                self.group[id as usize] = g;
            }
        }
        for to in 1..=MAX_NODES as usize {
            let side = self.group[to];
            let group = &self.group;
            self.queue[to].retain(|m| group[m.from as usize] == side);
        }
    }

    /// Refuse a step whose acting node (the first id) is crashed or not
    /// started, and a restart of a live one; steps on the network alone
    /// run whatever state the nodes are in.
    fn liveness(&self, s: &Step) -> Refusal {
        let id = match s.word.as_str() {
            "pump" | "heal" | "discard" | "drop" | "duplicate" | "reverse" | "deliver" => {
                return Ok(())
            }
            "partition" => return self.sides(&s.groups),
            _ => s.ids[0],
        };
        let n = &self.nodes[id as usize];
        if !n.started {
            return Err(format!("node {} is not in the cluster (add-node starts it)", id));
        }
        if n.removed {
            return Err(format!("node {} was removed (a node applied its removal)", id));
        }
        match s.word.as_str() {
            "restart" if n.rn.is_some() => return Err(format!("node {} is not crashed", id)),
            "restart" => return Ok(()),
            // as etcd's harness: a crash would lose what a held node did
            // not persist; a campaign's first event would hide what the
            // node's last handler set after its last event
            "crash" | "campaign" | "elect" if n.held => {
                return Err(format!("node {} is held: release it first", id))
            }
            _ => {}
        }
        if n.rn.is_none() {
            return Err(format!("node {} is crashed", id));
        }
        Ok(())
    }

    fn run(&mut self, s: &Step) -> Refusal {
        self.liveness(s)?;
        let ids = &s.ids;
        match s.word.as_str() {
            "campaign" => return self.campaign(ids[0]),
            "propose" => return self.propose(ids[0], &s.data),
            "elect" => return self.elect(ids[0], ids[1], ids[2]),
            "deliver-one" => return self.deliver_one(ids[0], ids[1]),
            "drop" => return self.take(ids[0], ids[1]).map(|_| ()),
            "duplicate" => return self.duplicate(ids[0], ids[1]),
            "compact" => return self.compact(ids[0], s.index),
            "tick" => return self.tick(ids[0]),
            "hold" => return self.hold(ids[0]),
            "release" => return self.release(ids[0]),
            "add-node" => return self.add_node(ids[0], ids[1]),
            "remove-node" => {
                return self.conf_change(ids[0], ConfChangeType::RemoveNode, ids[1])
            }
            "apply" => return self.apply(ids[0]),
            _ => self.run_total(s),
        }
        Ok(())
    }

    /// The steps that cannot be refused once parsed.
    fn run_total(&mut self, s: &Step) {
        let ids = &s.ids;
        match s.word.as_str() {
            "deliver" => self.deliver(ids[0], ids[1]),
            "reverse" => self.reverse(ids[0], ids[1]),
            "discard" => self.queue[ids[0] as usize].clear(),
            "pump" => self.pump(),
            "crash" => self.crash(ids[0]),
            "restart" => {
                self.start(ids[0]);
                self.drain(ids[0]);
            }
            "partition" => self.partition(&s.groups),
            "heal" => self.group.iter_mut().for_each(|g| *g = 0),
            w => unreachable!("step {} has no action", w),
        }
    }

    /// Drain every held node at the end of a scenario: raft sets some state
    /// after the last event it traces, which only the Ready shows.
    fn release_all(&mut self) {
        for id in 1..=MAX_NODES {
            if self.nodes[id as usize].held {
                let _ = self.release(id);
            }
        }
    }

    /// raft-rs's own account of every live node, one line.
    fn log(&self, pos: &str, out: &mut dyn Write) {
        let mut line = pos.to_string();
        for (id, n) in self.nodes.iter().enumerate().skip(1) {
            match &n.rn {
                Some(rn) => line += &status(id, rn),
                None if n.removed => line += &n.last,
                None => {}
            }
        }
        if writeln!(out, "{}", line).is_err() {
            fatal(1, "the log: write error");
        }
    }
}

/// A node's role, term, vote, commit and last index, as the log gives them.
fn status(id: usize, rn: &RawNode<MemStorage>) -> String {
    let r = &rn.raft;
    format!(
        " {}:{:?}/{}/{}/{}/{}",
        id,
        r.state,
        r.term,
        r.vote,
        r.raft_log.committed,
        r.raft_log.last_index()
    )
}

/// Run a scenario file; with a log, raft-rs's state after each step.
pub(crate) fn replay(path: &str, mut log: Option<&mut dyn Write>) {
    let (cfg, steps) = scenario::read(path);
    let mut c = Cluster::new(cfg);
    for s in &steps {
        if let Err(e) = c.run(s) {
            fatal(3, &format!("{}: {}", s.pos, e));
        }
        if let Some(out) = log.as_deref_mut() {
            c.log(&s.pos, out);
        }
    }
    c.release_all();
}

/// Where scenario i of a -batch run begins: the eBPF driver probes it and
/// sends the events that follow to that scenario's file.  Never inlined,
/// so that it stays a function to probe.
#[inline(never)]
fn scenario_start(i: usize) {
    std::hint::black_box(i);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    match a.as_slice() {
        ["-generate", rest @ ..] => generate::generate(rest),
        ["-serve"] => serve::serve(),
        ["-batch", paths @ ..] if !paths.is_empty() => {
            for (i, p) in paths.iter().enumerate() {
                scenario_start(i);
                replay(p, None);
            }
        }
        ["-log", file, path] => {
            let mut f = std::fs::File::create(file)
                .unwrap_or_else(|e| fatal(1, &format!("{}: {}", file, e)));
            replay(path, Some(&mut f));
        }
        [path] if !path.starts_with('-') => replay(path, None),
        _ => fatal(
            2,
            "usage: raftrs-harness [-log FILE] SCENARIO_FILE\n       raftrs-harness -batch SCENARIO_FILE...\n       \
             raftrs-harness -serve (tries on stdin: serve.rs)\n       \
             raftrs-harness -generate SEED STEPS OUT STEP_MAP [PREFIX_FILE K]",
        ),
    }
}
