# Shared by the etcd live tests (source it after lib.sh): the two capture
# paths of one set of scenarios agree.

# Upstream's with_tla events without the fields the probes do not produce:
# conf, and prop but ApplyConfChange's (its newconf, omitted when empty).
project() {
	sed -E 's/,"conf":\[\[[^]]*\],\[[^]]*\]\]//
		/"name":"ApplyConfChange"/!s/,"prop":\{.*\}\}$/}/
		s/"prop":\{"cc":\{\}\}/"prop":{"cc":{"newconf":[]}}/' "$1"
}

# The probes' events without the two upstream has no trace point for, a
# rejected pre-vote's response: SendPreVoteResponse, and its receipt when
# its term is higher, ReceivePreVoteResponse (raft.probes); the folder
# takes the send as no step, and the with_tla path's fold splits the
# receipt's window from its BecomeFollower (folders/raft/raft.c,
# untraced_rise), so the windows are still compared whole.
probed() {
	grep -Ev '^\{"name":"(Send|Receive)PreVoteResponse",' "$1"
}

# same_paths EBPF TRACE: for every run of the eBPF corpus EBPF, the trace
# corpus TRACE has byte-identical windows, and the eBPF events are
# upstream's with_tla events projected.
same_paths() {
	local f n
	for f in "$1"/etcd/*.ndjson; do
		n=$(basename "$f")
		same_bytes "trace windows $n = ebpf windows" "$2/etcd/$n" "$f"
		if cmp -s <(project "$2/raw/$n") <(probed "$1/raw/$n"); then
			ok "ebpf events $n = upstream with_tla events"
		else
			not_ok "ebpf events $n = upstream with_tla events" \
			       "$(diff <(project "$2/raw/$n") <(probed "$1/raw/$n") | head -n 3)"
		fi
	done
}
