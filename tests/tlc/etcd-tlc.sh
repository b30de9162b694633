# Sourced by tests/tlc/test-grade-etcd.sh and test-disagreements.sh:
# etcd-task windows graded by TLC against etcd-io/raft's own
# tla/etcdraft.tla (the go.etcd.io/raft/v3 module scenarios/etcd/go.mod
# pins, from the module cache: needs go goproxy) through
# tla/etcd-task.etcdraft.json, with the CommunityModules it extends.

export CAPTURE_TLA2TOOLS=${CAPTURE_TLA2TOOLS:-$("$ROOT/scripts/tla2tools")}

# etcd_tlc NAME INPUT...: the JSON scorecard in $TMP/NAME.tlc.json, the
# reports in $TMP/NAME.tlc/; a TLC run that neither passes nor fails
# windows (exit 0 or 4) is a not_ok.
etcd_tlc() {
	local name=$1 raft rc=0
	shift
	raft=$(PATH=$PATH:/usr/local/go/bin GOFLAGS=-mod=readonly \
		go -C "$ROOT/scenarios/etcd" list -m -f '{{.Dir}}' go.etcd.io/raft/v3) ||
		{ not_ok "$name: go.etcd.io/raft/v3 in the module cache" "go list -m failed"; return; }
	"$CAPTURE" grade --json --tlc "$raft/tla/etcdraft.tla" --mapping "$ROOT/tla/etcd-task.etcdraft.json" \
		--library "$REF/tla/communitymodules" -o "$TMP/$name.tlc" "$@" \
		>"$TMP/$name.tlc.json" 2>"$TMP/$name.tlc.err" || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 4 ] ||
		not_ok "$name: graded by TLC" "exit $rc: $(tail -n 3 "$TMP/$name.tlc.err")"
}

# etcd_task_runs NAME: $TMP/NAME's raw traces folded as etcd-task run by
# run, into $TMP/NAME.task/RUN/; the runs etcd-task refuses (exit 3: a log
# grown by what the trace does not show, docs/task-projections.md) are left out.
etcd_task_runs() {
	local name=$1 f rc
	for f in "$TMP/$name"/raw/*.ndjson; do
		rc=0
		"$CAPTURE" fold etcd-task "$f" --form canonical \
			-o "$TMP/$name.task/$(basename "$f" .ndjson)" >/dev/null 2>"$TMP/err" || rc=$?
		[ "$rc" = 0 ] || [ "$rc" = 3 ] ||
			not_ok "$name: $(basename "$f") folds as etcd-task" "$(tail -n 2 "$TMP/err")"
	done
}
