// SPDX-License-Identifier: MIT

//! etcd's scenario language (scenarios/raft/lang/scenario.go, docs/raft-scenarios.md), read
//! by the same rules in Rust: a header of "config KEY VALUE" lines, then one
//! step a line, "#" starting a comment; a bad line is refused with its
//! file:line and exit 3, with scenario.go's words.

use crate::fatal;

/// The nodes a scenario starts with; up to MAX_NODES, the others join by
/// add-node.
pub const NODES: u64 = 3;
pub const MAX_NODES: u64 = 5;

/// The raft configuration every node of a scenario runs with.
#[derive(Clone, Copy)]
pub struct Config {
    pub pre_vote: bool,
    pub check_quorum: bool,
    pub election_tick: usize,
    pub heartbeat_tick: usize,
    // membership: the uncommitted entries' bytes a leader takes (0: no
    // limit), and committed conf changes wait for an apply step
    pub max_uncommitted: u64,
    pub apply_by_step: bool,
}

/// The configuration of the reference scenarios (no header).
const DEFAULT_CONFIG: Config = Config {
    pre_vote: false,
    check_quorum: false,
    election_tick: 10,
    heartbeat_tick: 1,
    max_uncommitted: 0,
    apply_by_step: false,
};

/// One parsed scenario line.
#[derive(Default)]
pub struct Step {
    pub pos: String,  // file:line, for refusals while the step runs
    pub text: String, // the line's words, comment cut (a prefix's, generate.rs)
    pub word: String,
    pub ids: Vec<u64>,
    pub data: String,
    pub index: u64,
    pub groups: Vec<Vec<u64>>, // partition
}

/// Each step's argument kinds: n a node id, d data, l a link T<-F, i an
/// index >= 1; partition takes groups of its own.
fn kinds(word: &str) -> Option<&'static str> {
    Some(match word {
        "campaign" | "tick" | "discard" | "crash" | "restart" | "hold" | "release" => "n",
        "propose" => "nd",
        "deliver" | "deliver-one" | "drop" | "duplicate" | "reverse" => "l",
        "pump" | "heal" | "partition" => "",
        "elect" => "nnn",
        "compact" => "ni",
        "add-node" | "remove-node" => "nn",
        "apply" => "n",
        _ => return None,
    })
}

/// Go's strconv.Quote for the words of a message.
fn quote(s: &str) -> String {
    format!("{:?}", s)
}

/// Go's strconv.ParseUint(s, 10, 64): digits only, no sign.
fn parse_uint(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// A node id 1..MAX_NODES (nodes above NODES join by add-node).
fn parse_id(s: &str) -> Option<u64> {
    parse_uint(s).filter(|id| (1..=MAX_NODES).contains(id))
}

/// "T<-F" with distinct nodes.
fn parse_link(s: &str) -> Option<(u64, u64)> {
    let (t, f) = s.split_once("<-")?;
    let (to, from) = (parse_id(t)?, parse_id(f)?);
    (to != from).then_some((to, from))
}

fn parse_arg(s: &mut Step, kind: u8, arg: &str) -> Result<(), String> {
    match kind {
        b'l' => {
            let (to, from) =
                parse_link(arg).ok_or(format!("expected T<-F with distinct nodes 1..{}", MAX_NODES))?;
            s.ids.extend([to, from]);
        }
        b'd' => s.data = arg.to_string(),
        b'i' => {
            s.index = parse_uint(arg)
                .filter(|&i| i != 0)
                .ok_or(format!("bad index {} (an integer >= 1)", quote(arg)))?;
        }
        _ => s.ids.push(parse_id(arg).ok_or(format!("bad node id {}", quote(arg)))?),
    }
    Ok(())
}

/// "A B | C": every node in exactly one of two or more groups (the
/// initial nodes here; a joined one when it runs).
fn parse_groups(s: &mut Step, args: &[&str]) -> Result<(), String> {
    let mut seen = [false; MAX_NODES as usize + 1];
    let mut group = Vec::new();
    for (i, a) in args.iter().copied().chain(["|"]).enumerate() {
        if a != "|" {
            match parse_id(a) {
                Some(id) if !seen[id as usize] => {
                    seen[id as usize] = true;
                    group.push(id);
                }
                _ => return Err(format!("bad or repeated node id {}", quote(a))),
            }
            continue;
        }
        if group.is_empty() {
            return Err(format!("empty group before argument {}", i + 1));
        }
        s.groups.push(std::mem::take(&mut group));
    }
    if s.groups.len() < 2 {
        return Err("partition takes two or more groups separated by |".into());
    }
    match (1..=NODES).find(|&id| !seen[id as usize]) {
        Some(id) => Err(format!("partition leaves out node {}", id)),
        None => Ok(()),
    }
}

pub fn parse_step(fields: &[&str]) -> Result<Step, String> {
    let mut s = Step {
        text: fields.join(" "),
        word: fields[0].to_string(),
        ..Default::default()
    };
    let kinds = kinds(&s.word).ok_or(format!("unknown step {}", quote(&s.word)))?;
    if s.word == "partition" {
        return parse_groups(&mut s, &fields[1..]).map(|_| s);
    }
    if fields.len() - 1 != kinds.len() {
        return Err(format!("{} takes {} argument(s)", s.word, kinds.len()));
    }
    for (k, arg) in kinds.bytes().zip(&fields[1..]) {
        parse_arg(&mut s, k, arg)?;
    }
    Ok(s)
}

/// Go's strconv.Atoi: an optional sign, then digits.
fn parse_tick(v: &str) -> Option<usize> {
    let digits = v.strip_prefix(['+', '-']).unwrap_or(v);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let t: i64 = v.parse().ok()?;
    (1..=1000).contains(&t).then_some(t as usize)
}

/// A byte count 1..2^30.
fn parse_size(v: &str) -> Option<u64> {
    parse_uint(v).filter(|n| (1..=1 << 30).contains(n))
}

/// The harness's max_size_per_msg, below which raft-rs's Config refuses a
/// max_uncommitted_size ("max uncommitted size should greater than
/// max_size_per_msg").
pub const MAX_SIZE_PER_MSG: u64 = 1 << 20;

fn max_uncommitted(cfg: &mut Config, v: &str) -> Result<(), String> {
    let n = parse_size(v).ok_or(bad("max-uncommitted-size", v))?;
    if n < MAX_SIZE_PER_MSG {
        return Err(format!(
            "config max-uncommitted-size {}: raft-rs takes no limit below its \
             max_size_per_msg, {} here",
            n, MAX_SIZE_PER_MSG
        ));
    }
    cfg.max_uncommitted = n;
    Ok(())
}

/// "config forwarding on" is raft-rs's only way: it has no counterpart of
/// etcd's DisableProposalForwarding (raft-rs's Config, docs/raftrs.md).
fn forwarding(v: &str) -> Option<Result<(), String>> {
    match parse_switch(v)? {
        true => Some(Ok(())),
        false => Some(Err("config forwarding off: raft-rs has no counterpart \
                           of etcd's DisableProposalForwarding (a follower always forwards)"
            .into())),
    }
}

fn parse_switch(v: &str) -> Option<bool> {
    match v {
        "on" => Some(true),
        "off" => Some(false),
        _ => None,
    }
}

/// One header line "config KEY VALUE" applied to cfg.
fn set_config(cfg: &mut Config, fields: &[&str]) -> Result<(), String> {
    if fields.len() != 3 {
        return Err("config takes a key and a value".into());
    }
    let (key, v) = (fields[1], fields[2]);
    let ok = match key {
        "prevote" => parse_switch(v).map(|b| cfg.pre_vote = b),
        "checkquorum" => parse_switch(v).map(|b| cfg.check_quorum = b),
        "election-tick" => parse_tick(v).map(|t| cfg.election_tick = t),
        "heartbeat-tick" => parse_tick(v).map(|t| cfg.heartbeat_tick = t),
        "forwarding" => return forwarding(v).unwrap_or(Err(bad(key, v))),
        "max-uncommitted-size" => return max_uncommitted(cfg, v),
        "apply-conf" => match v {
            "step" | "ready" => Some(cfg.apply_by_step = v == "step"),
            _ => None,
        },
        _ => {
            return Err(format!(
                "unknown config key {} (prevote, checkquorum, election-tick, heartbeat-tick, \
                 forwarding, max-uncommitted-size, apply-conf)",
                quote(key)
            ))
        }
    };
    ok.ok_or(bad(key, v))
}

fn bad(key: &str, v: &str) -> String {
    format!("config {}: bad value {}", key, quote(v))
}

/// A scenario being read: its configuration, the config keys given, its steps.
struct Reader {
    cfg: Config,
    seen: Vec<String>,
    steps: Vec<Step>,
}

impl Reader {
    /// One non-empty line into the header or the steps.
    fn line(&mut self, fields: &[&str], pos: String) -> Result<(), String> {
        if fields[0] != "config" {
            let mut s = parse_step(fields)?;
            s.pos = pos;
            self.steps.push(s);
            return Ok(());
        }
        if !self.steps.is_empty() {
            return Err("config belongs in the header, before the first step".into());
        }
        if let Some(key) = fields.get(1) {
            if self.seen.iter().any(|k| k == key) {
                return Err(format!("config {} given twice", key));
            }
            self.seen.push(key.to_string());
        }
        set_config(&mut self.cfg, fields)
    }
}

/// Parse a scenario file; a bad line exits 3 naming file:line.
pub fn read(path: &str) -> (Config, Vec<Step>) {
    let (cfg, steps, _) = read_taking(path, |line| Some(line.to_string()));
    (cfg, steps)
}

/// read(), each header line first as take gives it (None: left out), and
/// the header lines taken: a mutated scenario's header as a harness takes
/// it (generate.rs).
pub fn read_taking(
    path: &str,
    take: fn(&str) -> Option<String>,
) -> (Config, Vec<Step>, Vec<String>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| fatal(3, &format!("open {}: {}", path, e)));
    let text = String::from_utf8_lossy(&bytes);
    let mut r = Reader { cfg: DEFAULT_CONFIG, seen: Vec::new(), steps: Vec::new() };
    let mut header = String::new(); // the last config line's file:line
    let mut taken = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let mut line = raw.split('#').next().unwrap_or("").to_string();
        if line.split_whitespace().next() == Some("config") {
            match take(&line.split_whitespace().collect::<Vec<_>>().join(" ")) {
                Some(l) => line = l,
                None => continue,
            }
            taken.push(line.clone());
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let pos = format!("{}:{}", path, n + 1);
        if fields[0] == "config" {
            header = pos.clone();
        }
        if let Err(bad) = r.line(&fields, pos.clone()) {
            fatal(3, &format!("{}: {}", pos, bad));
        }
    }
    if r.cfg.heartbeat_tick >= r.cfg.election_tick {
        fatal(
            3,
            &format!(
                "{}: heartbeat-tick {} must be below election-tick {}",
                header, r.cfg.heartbeat_tick, r.cfg.election_tick
            ),
        );
    }
    (r.cfg, r.steps, taken)
}
