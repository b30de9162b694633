# awk -v max=N -f quiet-cut.awk RAW: the last line number <= N of a live
# raw stream after which every node's last event is its Ready, 0 if none.
# The etcd folder closes a node's open action (a received message's
# handling, a new leader's empty entry, a proposal) at its next event, and
# the change shows only there: a cut before a node's Ready would end its
# window at the state traced before the change (a heartbeat's commit not
# yet taken, an append's entries not yet stored, which etcd-entries
# refuses).  After every node's Ready nothing traced is pending.
{
	match($0, /"name":"[^"]*"/)
	name = substr($0, RSTART + 8, RLENGTH - 9)
	match($0, /"nid":"[^"]*"/)
	nid = substr($0, RSTART + 7, RLENGTH - 8)
	if (!(nid in last))
		nodes++
	if (last[nid] != "Ready" && name == "Ready")
		ready++
	else if (last[nid] == "Ready" && name != "Ready")
		ready--
	last[nid] = name
	if (ready == nodes)
		cut = NR
}
NR == max { exit }
END { print cut + 0 }
