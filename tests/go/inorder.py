"""The check scripts' comparison of events with what a log says, in order."""
import json
import sys


def same_events(got, want):
    """Exit 1 naming the first event that differs, or a count that does."""
    for i, (g, w) in enumerate(zip(got, want)):
        if g != w:
            sys.exit(f"event {i + 1}: {json.dumps(g)}, the log says {json.dumps(w)}")
    if len(got) != len(want):
        sys.exit(f"{len(got)} events, the log has {len(want)}")
