#!/bin/bash
# hashicorp's Shutdown state has no role in etcd's projection, so
# raft.probes makes no event of a site read in it (docs/raft-mapping.md,
# "What has no role"): a race of Shutdown() with a handler once
# failed a loaded capture with "role: 3 has no name in table roles".
# Here a site that is always read in Shutdown (Shutdown()'s return),
# written as the spec writes its Commit site, is added to raft.probes:
# the run makes the same events and windows as raft.probes alone; the
# same site with its event named plainly fails the run at the role.
# needs: root btf go goproxy
source "$(dirname "$0")/../lib.sh"
export PATH=$PATH:/usr/local/go/bin
SPEC=$ROOT/scenarios/hashicorp/raft.probes
BIN=$ROOT/build/hashicorp/harness
SCEN=$ROOT/scenarios/etcd/01-election

check "capture hashicorp --scenario 01-election (builds the harness)" \
	"$CAPTURE" hashicorp --scenario 01-election -o "$TMP/ref"
# the spec's processLogs block (its Commit site), moved to Shutdown
{
	cat "$SPEC"
	echo
	awk '/^func github.com\/hashicorp\/raft.\(\*Raft\).processLogs$/ { p = 1 }
		p && /^$/ { exit } p' "$SPEC" | sed 's/processLogs$/Shutdown/'
} >"$TMP/shut.probes"
grep -q '^func github.com/hashicorp/raft.(\*Raft).Shutdown$' "$TMP/shut.probes" &&
	ok "a Shutdown site written as the spec's Commit site" ||
	not_ok "a Shutdown site written as the spec's Commit site" "no processLogs block in $SPEC"

check "capture go of raft.probes with the Shutdown site" \
	"$CAPTURE" go --probes "$TMP/shut.probes" -o "$TMP/shut" -- "$BIN" "$SCEN"
check "capture go of raft.probes alone" \
	"$CAPTURE" go --probes "$SPEC" -o "$TMP/alone" -- "$BIN" "$SCEN"
same_bytes "the Shutdown site makes no event" \
	"$TMP/alone/events/harness.ndjson" "$TMP/shut/events/harness.ndjson"
check "capture fold hashicorp of its events" \
	"$CAPTURE" fold hashicorp "$TMP/shut/events/harness.ndjson" -o "$TMP/f"
same_bytes "its windows are capture hashicorp's" \
	"$TMP/ref/hashicorp/01-election.ndjson" "$TMP/f/hashicorp/harness.ndjson"

# The site is read in Shutdown: named plainly, its event fails the run.
sed '/^func github.com\/hashicorp\/raft.(\*Raft).Shutdown$/,$ s/ by gone$//' \
	"$TMP/shut.probes" >"$TMP/plain.probes"
line=$(grep -n "^$(printf '\t')role$(printf '\t')roles" "$TMP/plain.probes" | cut -d: -f1)
expect_exit 6 "the same site named plainly fails at the role" \
	"plain.probes:$line: role: 3 has no name in table roles" \
	"$CAPTURE" go --probes "$TMP/plain.probes" -o "$TMP/plain" -- "$BIN" "$SCEN"
