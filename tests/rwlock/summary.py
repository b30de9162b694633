# The windows of an rwlock window file, one a line, as
# "ACTION(thread) pre>post" (rN..: the readers, wN: writer N): what the
# rwlock tests compare a fold's windows with.
import json
import sys


def state(s):
    if s["writer"] is not None:
        return "w%s" % s["writer"]
    return "r%s" % "".join(map(str, s["readers"]))


for line in open(sys.argv[1]):
    w = json.loads(line)
    print("%s(%d) %s>%s" % (w["action"], w["data"]["thread"],
                            state(w["pre_state"]), state(w["post_state"])))
