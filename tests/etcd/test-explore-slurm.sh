#!/bin/bash
# scripts/explore-slurm on a Slurm cluster of this one machine: the test
# starts munged, slurmctld and slurmd with a scratch configuration (their
# own key, socket, ports, state and spool under $TMP; nothing installed,
# nothing of the system's touched), submits a 2-shard exploration as a job
# array and its merge as a dependent job, and stops the daemons at exit,
# whatever happened.  The Slurm corpus must equal, byte for byte, the same
# shards explored and merged here by hand at the same paths (a corpus's
# MANIFEST.json names its own directory: docs/etcd-explore.md); only the
# jobs' logs (OUT/logs) are left out of the comparison.  The script's jobs
# do not outlive it: SIGINT or SIGTERM of it, or an sbatch that fails,
# leave none of them queued, and a rerun on an OUT whose jobs are still
# queued is refused.
# needs: root go goproxy slurm
# locks: slurm
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
S=$TMP/slurm
export SLURM_CONF=$S/slurm.conf

# pid_stop FILE: stop the daemon whose pid FILE holds (started here), and
# wait until it is gone.
pid_stop() {
	local pid i
	pid=$(cat "$1" 2>/dev/null) || return 0
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
	kill -9 "$pid" 2>/dev/null || true
}
stop_daemons() {
	local jobs
	jobs=$(squeue -h -o %i 2>/dev/null) && [ -z "$jobs" ] || scancel $jobs 2>/dev/null || true
	pid_stop "$S/slurmd.pid"
	pid_stop "$S/slurmctld.pid"
	pid_stop "$S/munge/munged.pid"
}
trap 'stop_daemons; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM

# munged runs as munge and must reach its socket: the path to it is
# traversable by all, its key readable by munge alone.
chmod 711 "$TMP"
mkdir -p "$S/munge" "$S/key" "$S/state" "$S/spool"
chmod 711 "$S" "$S/munge"
chmod 700 "$S/key"
head -c 1024 /dev/urandom >"$S/key/munge.key"
chmod 400 "$S/key/munge.key"
chown -R munge: "$S/munge" "$S/key"
noted runuser -u munge -- munged --key-file="$S/key/munge.key" --socket="$S/munge/socket" \
	--pid-file="$S/munge/munged.pid" --log-file="$S/munge/munged.log" --seed-file="$S/munge/seed" ||
	{ not_ok "munged starts" "$(why)"; exit 0; }
ok "munged starts"

# This host as the one node, as slurmd measures it (CPUs, memory); ports of
# our own so that a cluster of the machine's keeps its own.
cat >"$SLURM_CONF" <<EOF
ClusterName=capture-test
SlurmctldHost=$(hostname -s)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
AuthInfo=socket=$S/munge/socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
MpiDefault=none
ReturnToService=2
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/slurmctld.log
SlurmdLogFile=$S/slurmd.log
$(slurmd -C | sed -n 1p) State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
noted slurmctld -i && noted slurmd || { not_ok "slurmctld and slurmd start" "$(why)"; exit 0; }
for ((i = 0; i < 100; i++)); do
	[ "$(sinfo -h -o %T 2>/dev/null)" = idle ] && break
	sleep 0.2
done
if [ "$(sinfo -h -o %T 2>/dev/null)" = idle ]; then ok "slurmctld and slurmd start, the node idle"; else
	not_ok "slurmctld and slurmd start, the node idle" "$(sinfo 2>&1; tail -n 3 "$S/slurmctld.log")"; exit 0; fi

X=(--seed 3 --budget 6 --shards 2 --via trace --capture "$CAPTURE")
if noted "$ROOT/scripts/explore-slurm" "${X[@]}" "$TMP/run"; then
	ok "a 2-shard exploration runs as a job array and its merge after it"
else
	not_ok "a 2-shard exploration runs as a job array and its merge after it" "$(why)"
fi
mv "$TMP/run" "$TMP/slurm-run"

# The same, by hand, at the same paths.
mkdir "$TMP/run"
for k in 1 2; do
	noted "$CAPTURE" etcd --explore --seed 3 --budget 6 --shard $k/2 --via trace -o "$TMP/run/shard-$k" ||
		not_ok "explore shard $k/2 here" "$(why)"
done
noted "$CAPTURE" etcd --merge "$TMP/run/shard-1" "$TMP/run/shard-2" --via trace -o "$TMP/run/merged" ||
	not_ok "merge the shards here" "$(why)"
if [ ! -f "$TMP/run/merged/MANIFEST.json" ]; then
	not_ok "the Slurm corpus equals the local merge" "no local merged corpus"
elif diff -r -x logs "$TMP/slurm-run" "$TMP/run" >"$TMP/diff" 2>&1; then
	ok "the Slurm corpus equals the local merge, byte for byte (shards and merged)"
else
	not_ok "the Slurm corpus equals the local merge" "$(head -n 5 "$TMP/diff")"
fi

# A shard that fails cancels the merge (afterok never met) and the script
# says so, leaving no merged corpus.
printf '#!/bin/sh\necho "shard refuses" >&2\nexit 3\n' >"$TMP/failing"
chmod +x "$TMP/failing"
expect_exit 1 "a failed shard: the merge is cancelled, the script fails" 'the merge did not complete' \
	"$ROOT/scripts/explore-slurm" --shards 2 --capture "$TMP/failing" "$TMP/fail"
[ ! -e "$TMP/fail/merged" ] && ok "a failed shard leaves no merged corpus" ||
	not_ok "a failed shard leaves no merged corpus" "$(ls "$TMP/fail/merged")"
expect_exit 2 "an existing OUT/merged is refused" 'exists' \
	"$ROOT/scripts/explore-slurm" "${X[@]}" "$TMP/slurm-run"

# run_jobs DIR: ids of the script's jobs (capture-explore, capture-merge)
# in the queue that run in DIR.
run_jobs() {
	squeue -h -n capture-explore,capture-merge -o '%F|%Z' |
		awk -v dir="$1" -F'|' '$2 == dir { print $1 }' | sort -un | paste -sd ' '
}
# A shard that never ends on its own: the script is stopped while its
# jobs are queued or running.  A rerun on the same OUT meanwhile is
# refused; the signal cancels every job it submitted, and none is left
# to write OUT/merged.
printf '#!/bin/sh\nexec sleep 600\n' >"$TMP/endless"
chmod +x "$TMP/endless"
for sig in INT TERM; do
	o=$TMP/stop-$sig
	code=$((128 + $(kill -l $sig)))
	# A script's background job starts with SIGINT ignored: undo that.
	env --default-signal=INT,TERM "$ROOT/scripts/explore-slurm" --shards 2 \
		--capture "$TMP/endless" "$o" 2>"$TMP/stop.err" &
	pid=$!
	# The merge is submitted last: then every job of the run is queued.
	for ((i = 0; i < 300; i++)); do
		squeue -h -n capture-merge -o %Z | grep -qxF "$o" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	jobs=$(run_jobs "$o")
	if ! squeue -h -n capture-merge -o %Z | grep -qxF "$o"; then
		not_ok "SIG$sig of the script" "its merge job never was queued: $(tail -n 3 "$TMP/stop.err")"
		kill "$pid" 2>/dev/null; wait "$pid"
		continue
	fi
	# (timeout: a rerun that submits would wait for the endless shards)
	expect_exit 2 "SIG$sig: a rerun on an OUT whose jobs are queued is refused" \
		"$o: jobs $jobs of an earlier run are still queued or running" \
		timeout 120 "$ROOT/scripts/explore-slurm" --shards 2 --capture "$TMP/endless" "$o"
	[ "$(run_jobs "$o")" = "$jobs" ] && ok "SIG$sig: the refused rerun submitted nothing" ||
		not_ok "SIG$sig: the refused rerun submitted nothing" "jobs $jobs before, $(run_jobs "$o") after"
	kill -$sig "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" = "$code" ] && ok "SIG$sig of the script: exit $code" ||
		not_ok "SIG$sig of the script: exit $code" "exit $rc: $(tail -n 3 "$TMP/stop.err")"
	left=$(run_jobs "$o")
	[ -z "$left" ] && ok "SIG$sig of the script: none of its jobs ($jobs) is left in the queue" ||
		not_ok "SIG$sig of the script: none of its jobs is left in the queue" "$(squeue)"
	[ ! -e "$o/merged" ] && ok "SIG$sig of the script: no OUT/merged" ||
		not_ok "SIG$sig of the script: no OUT/merged" "$(ls "$o/merged")"
done

# An sbatch that fails after the array was submitted (here the merge's,
# refused by an sbatch in front of Slurm's): the array is cancelled.
mkdir "$TMP/bin"
printf '#!/bin/sh\ncase " $* " in *" --job-name=capture-merge "*) echo "sbatch: error: refused here" >&2; exit 1 ;; esac\nexec %s "$@"\n' \
	"$(command -v sbatch)" >"$TMP/bin/sbatch"
chmod +x "$TMP/bin/sbatch"
expect_exit 1 "the merge's sbatch fails: the script fails" 'refused here' \
	env PATH="$TMP/bin:$PATH" "$ROOT/scripts/explore-slurm" --shards 2 --capture "$TMP/endless" "$TMP/nomerge"
left=$(run_jobs "$TMP/nomerge")
[ -z "$left" ] && ok "the merge's sbatch fails: the shards' array is cancelled" ||
	not_ok "the merge's sbatch fails: the shards' array is cancelled" "$(squeue)"
