// SPDX-License-Identifier: MIT

//! Membership, as etcd's harness drives it (scenarios/etcd/membership.go):
//! add-node and remove-node propose a ConfChange (RawNode's
//! propose_conf_change), and each node applies the committed
//! EntryConfChange entries its Ready hands out (apply_conf_change) -- at
//! that Ready, or, under "config apply-conf step", only at an apply step.
//! A node is stopped for good once some node applies its removal, as etcd
//! stops a removed member.

use protobuf::Message as _;
use raft::prelude::*;

use crate::{fatal, Cluster, Refusal, MAX_NODES};

impl Cluster {
    /// Take the conf changes among the committed entries a Ready handed
    /// node id: applied now, or kept for an apply step.  Whether node id
    /// is stopped (it applied its own removal).
    pub(crate) fn committed(&mut self, id: u64, ents: &[Entry]) -> bool {
        for e in ents.iter().filter(|e| e.get_entry_type() == EntryType::EntryConfChange) {
            let cc = ConfChange::parse_from_bytes(e.get_data()).unwrap_or_else(|err| {
                fatal(1, &format!("node {}: conf change at {}: {}", id, e.index, err))
            });
            self.nodes[id as usize].pending.push((e.index, cc));
        }
        if !self.cfg.apply_by_step {
            self.apply_pending(id);
        }
        self.nodes[id as usize].rn.is_none()
    }

    /// Switch node id to each pending conf change in log order; a node
    /// removed is stopped (node id too, if it removed itself).
    fn apply_pending(&mut self, id: u64) {
        let pending = std::mem::take(&mut self.nodes[id as usize].pending);
        for (index, cc) in pending {
            if self.nodes[id as usize].rn.is_none() {
                break;
            }
            let cc = self.admitted(id, cc);
            let cs = self
                .rn(id)
                .apply_conf_change(&cc)
                .unwrap_or_else(|e| fatal(1, &format!("node {}: apply conf change: {}", id, e)));
            self.nodes[id as usize].confs.push((index, cs));
            let t = cc.node_id as usize;
            if cc.get_change_type() == ConfChangeType::RemoveNode
                && t > 0
                && self.nodes[t].started
                && !self.nodes[t].removed
            {
                // the log keeps a removed node's last state: its events
                // end there, within the step that stops it
                if let Some(rn) = &self.nodes[t].rn {
                    self.nodes[t].last = crate::status(t, rn);
                }
                self.crash(t as u64);
                self.nodes[t].removed = true;
                self.nodes[t].held = false;
            }
        }
    }

    /// cc as node id applies it: a removal of its last voter, which raft
    /// cannot apply ("removed all voters"), as etcd's server applies a
    /// change its membership refuses -- with node id 0, which changes
    /// nothing.
    fn admitted(&mut self, id: u64, mut cc: ConfChange) -> ConfChange {
        let voters = self.rn(id).raft.prs().conf().to_conf_state().voters;
        if cc.get_change_type() == ConfChangeType::RemoveNode && voters == [cc.node_id] {
            cc.node_id = raft::INVALID_ID;
        }
        cc
    }

    /// The step: node id applies the conf changes committed and handed
    /// out to it, then drains.
    pub(crate) fn apply(&mut self, id: u64) -> Refusal {
        if self.nodes[id as usize].pending.is_empty() {
            return Err(format!("apply {}: node {} has no committed conf change to apply", id, id));
        }
        self.apply_pending(id);
        if self.nodes[id as usize].rn.is_some() {
            self.drain(id);
        }
        Ok(())
    }

    /// Propose adding or removing node target at node id.  A proposal
    /// raft-rs drops is its decision, not a refusal.
    pub(crate) fn conf_change(&mut self, id: u64, t: ConfChangeType, target: u64) -> Refusal {
        let mut cc = ConfChange::default();
        cc.set_change_type(t);
        cc.node_id = target;
        match self.rn(id).propose_conf_change(vec![], cc) {
            Ok(()) | Err(raft::Error::ProposalDropped) => {}
            Err(e) => return Err(format!("{:?}: {}", t, e)),
        }
        self.drain(id);
        Ok(())
    }

    /// Refuse a compaction at index over a conf change node id has not
    /// applied; else give its storage the configuration it applied last,
    /// which MemStorage's snapshot carries.
    pub(crate) fn conf_for_compact(&mut self, id: u64, index: u64) -> Refusal {
        let n = &self.nodes[id as usize];
        if let Some((p, _)) = n.pending.iter().find(|(p, _)| *p <= index) {
            return Err(format!(
                "compact {} {}: node {} has not applied the conf change at {} (apply {} first)",
                id, index, id, p, id
            ));
        }
        if let Some((_, cs)) = n.confs.last() {
            n.storage.wl().set_conf_state(cs.clone());
        }
        Ok(())
    }

    /// Start node target, never started before (raft's ids are never
    /// reused), and propose it at node id.
    pub(crate) fn add_node(&mut self, id: u64, target: u64) -> Refusal {
        if self.nodes[target as usize].started {
            return Err(format!(
                "add-node {} {}: node {} was started already (an added node is a new one)",
                id, target, target
            ));
        }
        self.start(target);
        self.drain(target);
        self.conf_change(id, ConfChangeType::AddNode, target)
    }

    /// Refuse a partition that leaves out a node started or names one not
    /// started (the parse checked the initial nodes).
    pub(crate) fn sides(&self, groups: &[Vec<u64>]) -> Refusal {
        let mut named = [false; MAX_NODES as usize + 1];
        for &id in groups.iter().flatten() {
            if !self.nodes[id as usize].started {
                return Err(format!("partition names node {}, which is not in the cluster", id));
            }
            named[id as usize] = true;
        }
        match (1..=MAX_NODES).find(|&id| self.nodes[id as usize].started && !named[id as usize]) {
            Some(id) => Err(format!("partition leaves out node {}", id)),
            None => Ok(()),
        }
    }
}
