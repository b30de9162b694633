// SPDX-License-Identifier: MIT
/*
 * The causal check of a live etcd run (capture etcd --live): every message
 * a node receives was sent to it, earlier in the stream, by the node it
 * says it is from.  A Send* event is traced at raft's send(), before the
 * message leaves the process, and a Receive* event at Step's entry, after
 * it arrived: one record is put in the ring buffer before the other can
 * happen, so in the stream the send always comes first.  A receive
 * consumes one earlier send of the same message (same fields, as both
 * events write them); sends never received are counted, not refused (a
 * stopped member's and those in flight at the end are lost, as a network
 * may lose them).
 */
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "../../../capture/die.h"
#include "../../../capture/json.h"
#include "../../../capture/ndjson.h"
#include "messages.h"

struct sent {
	char *key;      /* the message, compact JSON */
	long pending;   /* sent and not yet received */
};

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct sent *)a)->key,
		      ((const struct sent *)b)->key);
}

static void free_sent(void *p)
{
	struct sent *s = p;

	free(s->key);
	free(s);
}

/*
 * Where the check is: what is allocated stays reachable from here while
 * it may die (leak checkers look for it), the line and its message's key.
 */
struct messages {
	struct line_reader r;
	void *tree;     /* struct sent, by key */
	cJSON *ev;
	char *key;
	long sent, received;
};

static const char *field(struct messages *ms, const cJSON *obj,
			 const char *key)
{
	const char *v = json_get_str(obj, key);

	if (!v)
		die_at(EXIT_BAD_INPUT, ms->r.path, ms->r.line,
		       "event without a string \"%s\"", key);
	return v;
}

static void on_send(struct messages *ms)
{
	struct sent probe = { .key = ms->key }, *s;
	void *found = tfind(&probe, &ms->tree, by_key);

	if (found) {
		(*(struct sent **)found)->pending++;
	} else {
		s = xcalloc(1, sizeof(*s));
		s->key = ms->key;
		s->pending = 1;
		ms->key = NULL;
		if (!tsearch(s, &ms->tree, by_key))
			die(EXIT_CAPTURE_FAILED, "out of memory");
	}
	ms->sent++;
}

static void on_receive(struct messages *ms, const char *nid, const cJSON *msg)
{
	struct sent probe = { .key = ms->key };
	void *found = tfind(&probe, &ms->tree, by_key);

	if (!found || !(*(struct sent **)found)->pending)
		die_at(EXIT_CHECK_FAILED, ms->r.path, ms->r.line,
		       "node %s receives a %s from node %s that was not sent "
		       "to it before: %s", nid, field(ms, msg, "type"),
		       field(ms, msg, "from"), ms->key);
	(*(struct sent **)found)->pending--;
	ms->received++;
}

/* One event: a Send* from its node, a Receive* at its node. */
static void check_event(struct messages *ms, const cJSON *ev)
{
	const char *name = field(ms, ev, "name"), *nid = field(ms, ev, "nid");
	int send = !strncmp(name, "Send", 4);
	const cJSON *msg;

	if (!send && strncmp(name, "Receive", 7))
		return;
	msg = json_get(ev, "msg");
	if (!cJSON_IsObject(msg))
		die_at(EXIT_BAD_INPUT, ms->r.path, ms->r.line,
		       "%s event without a msg", name);
	if (strcmp(field(ms, msg, send ? "from" : "to"), nid))
		die_at(EXIT_CHECK_FAILED, ms->r.path, ms->r.line,
		       "node %s %s a message %s node %s", nid,
		       send ? "sends" : "receives", send ? "from" : "to",
		       field(ms, msg, send ? "from" : "to"));
	ms->key = cJSON_PrintUnformatted(msg);
	if (!ms->key)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	if (send)
		on_send(ms);
	else
		on_receive(ms, nid, msg);
	free(ms->key);
	ms->key = NULL;
}

void etcd_check_messages(const char *path, const char *name, cJSON *m)
{
	struct messages ms = { .tree = NULL };
	cJSON *o;

	line_reader_open_as(&ms.r, path, name);
	while ((ms.ev = ndjson_next(&ms.r))) {
		check_event(&ms, ms.ev);
		cJSON_Delete(ms.ev);
	}
	line_reader_close(&ms.r);
	tdestroy(ms.tree, free_sent);
	o = json_add(m, "messages", json_obj());
	json_add(o, "sent", json_int(ms.sent));
	json_add(o, "received", json_int(ms.received));
	json_add(o, "not_received", json_int(ms.sent - ms.received));
}
