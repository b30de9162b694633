// SPDX-License-Identifier: MIT
/*
 * The causal check of capture etcd --live (scenarios/etcd/driver/messages.c):
 * a receive matched to an earlier send passes and is counted, a send never
 * received is counted, and each violation (a receive with no send, before
 * its send, twice for one send, at a node the message is not for, a send
 * from another node) exits 4 at the line of the event that shows it, in
 * the file named as where a failure keeps it; an event without its
 * message exits 3.  Each case runs in a child, since the
 * check dies on what it refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "scenarios/etcd/driver/messages.h"
#include "capture/die.h"
#include "capture/json.h"
#include "capture/proc.h"
#include "unit.h"

static char dir[] = "/tmp/test-etcd-messages-XXXXXX";
/* The name the messages give the file (where a failure keeps it); NULL: its path. */
static const char *kept_as;
/* The events' file: reachable from here when the child exits (LeakSanitizer). */
static char *path;

#define MSG(type, from, to, idx) \
	"\"msg\":{\"type\":\"" type "\",\"term\":2,\"from\":\"" from \
	"\",\"to\":\"" to "\",\"entries\":0,\"logTerm\":2,\"index\":" idx \
	",\"commit\":1,\"vote\":\"0\",\"reject\":false,\"rejectHint\":0}"
#define EV(name, nid, msg) "{\"name\":\"" name "\",\"nid\":\"" nid \
	"\",\"state\":{\"term\":2,\"vote\":\"1\",\"commit\":1}," \
	"\"role\":\"StateFollower\",\"log\":1," msg "}\n"
#define SEND(from, to, idx) \
	EV("SendAppendEntriesRequest", from, MSG("MsgApp", from, to, idx))
#define RECV(at, from, to, idx) \
	EV("ReceiveAppendEntriesRequest", at, MSG("MsgApp", from, to, idx))

/*
 * Check @events in a child: its exit status, what it printed on stderr
 * (into @err), and the "messages" it added to the manifest (into @counts).
 */
static int run(const char *events, char *err, size_t errlen, char *counts,
	       size_t countslen)
{
	char *errpath = xasprintf("%s/stderr", dir);
	char *outpath = xasprintf("%s/counts", dir);
	char *text;
	int status;
	pid_t pid;

	path = xasprintf("%s/live.ndjson", dir);
	write_file(path, events, strlen(events));
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		cJSON *m = json_obj();
		char *s;

		if (!freopen(errpath, "w", stderr))
			_exit(99);
		etcd_check_messages(path, kept_as ? kept_as : path, m);
		s = cJSON_PrintUnformatted(json_get(m, "messages"));
		write_file(outpath, s, strlen(s));
		free(s);
		cJSON_Delete(m);
		exit(0);
	}
	waitpid(pid, &status, 0);
	text = read_file(errpath, NULL);
	snprintf(err, errlen, "%s", text ? text : "");
	free(text);
	text = read_file(outpath, NULL);
	snprintf(counts, countslen, "%s", text ? text : "");
	free(text);
	unlink(outpath);
	free(path);
	free(errpath);
	free(outpath);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* @events must exit @code with @want in stderr (or, for 0, in the counts). */
static void expect(const char *name, const char *events, int code,
		   const char *want)
{
	char err[1024], counts[256];
	int rc = run(events, err, sizeof(err), counts, sizeof(counts));

	if (rc != code)
		fail(name, "exit %d, expected %d: %s", rc, code, err);
	else if (!strstr(code ? err : counts, want))
		fail(name, "'%s' not in '%s'", want, code ? err : counts);
	else
		pass(name);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	expect("a receive after its send passes",
	       SEND("1", "2", "5") RECV("2", "1", "2", "5"), 0,
	       "{\"sent\":1,\"received\":1,\"not_received\":0}");
	expect("sends never received are counted, not refused",
	       SEND("1", "2", "5") SEND("1", "3", "5") SEND("1", "2", "5")
	       RECV("2", "1", "2", "5"), 0,
	       "{\"sent\":3,\"received\":1,\"not_received\":2}");
	expect("other events are not messages",
	       EV("BecomeFollower", "1", "\"x\":0"), 0,
	       "{\"sent\":0,\"received\":0,\"not_received\":0}");
	expect("a receive never sent exits 4 at its line",
	       SEND("1", "2", "5") RECV("2", "1", "2", "6"), 4,
	       "live.ndjson:2: node 2 receives a MsgApp from node 1 that was not sent to it before");
	kept_as = "corpus/etcd-live.failed/raw/live.ndjson";
	expect("the refusal names the file where a failure keeps it",
	       SEND("1", "2", "5") RECV("2", "1", "2", "6"), 4,
	       "capture: corpus/etcd-live.failed/raw/live.ndjson:2: node 2 receives");
	kept_as = NULL;
	expect("a receive before its send exits 4 at the receive",
	       RECV("2", "1", "2", "5") SEND("1", "2", "5"), 4,
	       "live.ndjson:1: node 2 receives a MsgApp");
	expect("two receives of one send: the second exits 4",
	       SEND("1", "2", "5") RECV("2", "1", "2", "5")
	       RECV("2", "1", "2", "5"), 4, "live.ndjson:3: ");
	expect("a receive at a node the message is not for exits 4",
	       SEND("1", "2", "5") RECV("3", "1", "2", "5"), 4,
	       "live.ndjson:2: node 3 receives a message to node 2");
	expect("a send from another node exits 4",
	       EV("SendAppendEntriesRequest", "3", MSG("MsgApp", "1", "2", "5")),
	       4, "live.ndjson:1: node 3 sends a message from node 1");
	expect("a send without its message exits 3",
	       EV("SendAppendEntriesRequest", "1", "\"x\":0"), 3,
	       "live.ndjson:1: SendAppendEntriesRequest event without a msg");
	remove_tree(dir);
	return unit_status();
}
