# SPDX-License-Identifier: MIT
"""What a capture of the domain set (capture spin --scenario domain --cpus
2) must show, for the recorded (tests/spin/test-fold-domain.sh) and the
live tests (tests/spin/test-capture-domain.sh).  Exits 1 with what differs.

  domain-checks.py coverage spin|spin-spinning AUDIT.json
  domain-checks.py evidence MANIFEST.json
"""
import json
import sys

# (total, reachable, observed, covered) and the cells never completing
COVERAGE = {
    "spin": ((18, 18, 18, 16), 0),
    "spin-spinning": ((72, 24, 24, 22), 48),
}
NEVER = [("held by 0", "AcquireLock(0, lock)"), ("held by 1", "AcquireLock(1, lock)")]
# per run: slow-path entries, exits, StopSpinning, lock()s spinning at the end
EVIDENCE = {
    "01-free": [0, 0, 0, 0], "02-held-by-0": [2, 1, 1, 1],
    "03-held-by-0-spinning-1": [2, 2, 2, 0], "04-held-by-1": [2, 1, 1, 1],
    "05-held-by-1-spinning-0": [2, 2, 2, 0],
}
KEYS = ["slowpath_entries", "slowpath_exits", "stop_spinning", "spinning_at_end"]


def coverage(system, path):
    cov = json.load(open(path))["coverage"]
    counts, impossible = COVERAGE[system]
    got = (cov["total"], cov["reachable"], cov["observed"], cov["covered"])
    assert got == counts, f"total/reachable/observed/covered {got}, not {counts}"
    assert not cov["uncovered"], cov["uncovered"]
    assert len(cov["impossible"]) == impossible and all(c["why"] for c in cov["impossible"])
    never = sorted((c["pre"], c["action"]) for c in cov["never_completing"])
    assert never == NEVER, never


def evidence(path):
    runs = json.load(open(path))["runs"]
    got = {r["name"]: [r["info"]["trace"][k] for k in KEYS] for r in runs}
    assert got == EVIDENCE, f"{KEYS}: {got}"


if __name__ == "__main__":
    try:
        if sys.argv[1] == "coverage":
            coverage(sys.argv[2], sys.argv[3])
        else:
            evidence(sys.argv[2])
    except AssertionError as e:
        sys.exit(str(e))
