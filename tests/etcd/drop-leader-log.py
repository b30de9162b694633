#!/usr/bin/env python3
# A with_tla trace followed by a fourth node that joins with an empty log
# and becomes leader of a fresh term: a leader without the entries the
# trace showed committed (leader completeness broken), for the fold to
# refuse.  Usage: drop-leader-log.py TRACE > OUT
import json
import sys

lines = open(sys.argv[1]).read().splitlines()
if not any(json.loads(l)["state"]["commit"] > 0 for l in lines):
    sys.exit(f"{sys.argv[1]}: no event shows a commit")
term = max(json.loads(l)["state"]["term"] for l in lines) + 5


def event(name, term, vote, role):
    return json.dumps({"name": name, "nid": "4",
                       "state": {"term": term, "vote": vote, "commit": 0},
                       "role": role, "log": 0, "conf": [[], []]},
                      separators=(",", ":"))


print("\n".join(lines))
print(event("InitState", term, "0", "StateFollower"))
print(event("BecomeFollower", term, "0", "StateFollower"))
print(event("BecomeCandidate", term + 1, "4", "StateCandidate"))
print(event("BecomeLeader", term + 1, "4", "StateLeader"))
