#!/usr/bin/env python3
"""Read an ITF trace with itf-py and compare it with the same run's windows.

usage: itf-states.py TRACE.itf.json WINDOWS.ndjson

TRACE is what `capture ... --form itf` wrote; WINDOWS the same run in event
form.  Each ITF state must be, as itf-py decodes it, the window's post-state
(state 0: the first pre-state), its mbt::actionTaken the window's action and
its mbt::nondetPicks the window's data.  Prints what differs; exits 1 then.

itf-py 0.5.0 turns variants and records into namedtuples, which refuses
Quint's own Option variants ({"tag": "None", ...}: a keyword; a payload
{"#bigint": ...}: not an identifier) and record fields such as "from".  So
before itf-py reads the trace, Options become their payload (None: null,
which itf-py passes through) and the picks record a #map (a dict in
itf-py); the rest, and every value inside them, is itf-py's to decode.
"""
import json
import sys

import itf_py

QUINT = ("mbt::actionTaken", "mbt::nondetPicks")


def is_option(v):
    return isinstance(v, dict) and set(v) == {"tag", "value"} and \
        v["tag"] in ("Some", "None")


def unwrap(v):
    """Raw ITF JSON with every Option variant replaced by its payload."""
    if is_option(v):
        return unwrap(v["value"]) if v["tag"] == "Some" else None
    if isinstance(v, dict):
        return {k: unwrap(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unwrap(x) for x in v]
    return v


def for_itf_py(raw):
    """@raw with Options unwrapped and the picks (Options all) a #map."""
    bad = []
    for st in raw["states"]:
        picks = st["mbt::nondetPicks"]
        bad += [n for n, p in picks.items() if not is_option(p)]
        st["mbt::nondetPicks"] = {"#map": [
            [n, p["value"]] for n, p in picks.items()
            if is_option(p) and p["tag"] == "Some"]}
    return unwrap(raw), bad


def plain(v):
    """An itf-py value as the JSON the windows hold: a set as the sorted
    array the folders write, a map or record as an object."""
    if isinstance(v, frozenset):
        return [plain(x) for x in sorted(v)]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if hasattr(v, "_asdict"):
        return {k: plain(x) for k, x in v._asdict().items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    return v


def main():
    with open(sys.argv[1]) as f:
        trace, bad = for_itf_py(json.load(f))
    with open(sys.argv[2]) as f:
        windows = [json.loads(line) for line in f if line.strip()]
    trace = itf_py.trace_from_json(trace)
    bad = [f"picks {n} not an Option" for n in bad]
    if len(trace.states) != len(windows) + 1:
        bad.append(f"{len(trace.states)} states for {len(windows)} windows")
    if trace.vars[-2:] != list(QUINT):
        bad.append(f"vars {trace.vars} do not end with {QUINT}")
    for k, s in enumerate(trace.states):
        if s.meta != {"index": k}:
            bad.append(f"state {k}: #meta {s.meta}")
        state = {v: plain(s.values[v]) for v in trace.vars if v not in QUINT}
        want = windows[0]["pre_state"] if k == 0 else \
            windows[k - 1]["post_state"]
        action = "init" if k == 0 else windows[k - 1]["action"]
        data = {} if k == 0 else windows[k - 1]["data"]
        picks = plain(s.values["mbt::nondetPicks"])
        if state != want:
            bad.append(f"state {k}: {state} != {want}")
        if s.values["mbt::actionTaken"] != action:
            bad.append(f"state {k}: action {s.values['mbt::actionTaken']}")
        if picks != data:
            bad.append(f"state {k}: picks {picks} != data {data}")
    for b in bad[:5]:
        print(f"{sys.argv[1]}: {b}")
    sys.exit(1 if bad else 0)


main()
