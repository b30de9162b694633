// SPDX-License-Identifier: MIT
/*
 * PGo's distributed queue (systems/dqueue): one AProducer and consumers
 * AConsumer 1..N over FIFO channels, recorded by PGo's trace recorder (see
 * pgo.h).  A consumer asks the producer for an item by sending its id; the
 * producer answers with the next value of its stream; the consumer hands the
 * value to its processor.
 *
 * Observable state, what a producer and a consumer can see:
 *   requests:  consumers that asked and were not served yet (sorted set);
 *   inflight:  [consumer, value] pairs sent by the producer and not yet
 *              processed (sorted by consumer);
 *   processor: the value last handed to the processor (0 at start).
 * Steps, labelled by the label they executed (old value of ".pc"):
 *   AConsumer.c1 -> ConsumerRequest {consumer}: joins requests
 *   AProducer.p2 -> ProducerSend {consumer, value}: leaves requests,
 *                   (consumer, value) in flight
 *   AConsumer.c2 -> ConsumerProcess {consumer, value}: leaves inflight,
 *                   processor := value
 * AConsumer.c, AProducer.p (loop heads) and AProducer.p1 (the producer
 * takes a request off its channel) change nothing visible: no window.
 *
 * Checks: p1 takes the request of a consumer that asked; p2 answers a
 * consumer that asked and has nothing in flight; c2 processes exactly the
 * value in flight to it; no consumer asks twice before being served.
 *
 * dqueue-task (SysMoBench's dqueue task: node states c, c1, c2, p, p1,
 * p2, messages request and produce over a FIFO network): state {pc,
 * network, processor}, every process by id from the start (the producer
 * 0, the run's AConsumer processes 1..N); pc the label each will execute
 * next, network[i] the values sent to node i and not yet received, in
 * order.  Every step is a window, named by its label: ConsumerLoop (c),
 * ConsumerRequest (c1), ConsumerProcess (c2), ProducerLoop (p),
 * ProducerReceive (p1), ProducerSend (p2).  Checks: a step executes the
 * label its pc names; a receive takes the head of its channel.
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/fold.h"
#include "../../capture/readers/pgo.h"
#include "../../capture/readers/pgo-record.h"
#include "../../capture/readers/tla-value.h"

extern const struct folder folder_dqueue, folder_dqueue_task;

/* A channel: the values sent to one node and not yet received. */
struct fifo {
	long *v;
	size_t head, len, cap;
};

struct dqueue {
	long n;              /* consumer ids below n have slots */
	char *asked;         /* asked[c]: c's request is not served yet */
	long *inflight;      /* inflight[c]: value sent to c, -1: none */
	long processor;
	/* dqueue-task: nodes 0 (the producer) .. nconsumers */
	int task;
	long nconsumers;
	char **pc;           /* pc[i]: node i's next label, archetype off */
	struct fifo *net;    /* net[i]: network[i] */
};

static void grow(struct dqueue *q, long c)
{
	if (c < q->n)
		return;
	q->asked = xrealloc(q->asked, c + 1);
	q->inflight = xrealloc(q->inflight, (c + 1) * sizeof(*q->inflight));
	for (long i = q->n; i <= c; i++) {
		q->asked[i] = 0;
		q->inflight[i] = -1;
	}
	q->n = c + 1;
}

/* dqueue-task's state: {pc, network, processor}, nodes by id. */
static cJSON *task_state(const struct dqueue *q)
{
	cJSON *st = json_obj();
	cJSON *pc = json_add(st, "pc", json_obj());
	cJSON *net = json_add(st, "network", json_obj());
	char id[24];

	for (long i = 0; i <= q->nconsumers; i++) {
		const struct fifo *f = &q->net[i];
		cJSON *ch;

		snprintf(id, sizeof(id), "%ld", i);
		json_add(pc, id, json_str(q->pc[i]));
		ch = json_add(net, id, json_arr());
		for (size_t k = 0; k < f->len; k++)
			json_add(ch, NULL, json_int(f->v[f->head + k]));
	}
	json_add(st, "processor", json_int(q->processor));
	return st;
}

/* dqueue's state: {requests, inflight, processor}. */
static cJSON *seen_state(const struct dqueue *q)
{
	cJSON *st = json_obj();
	cJSON *req = json_add(st, "requests", json_arr());
	cJSON *fl = json_add(st, "inflight", json_arr());

	for (long c = 0; c < q->n; c++) {
		if (q->asked[c])
			json_add(req, NULL, json_int(c));
		if (q->inflight[c] >= 0) {
			cJSON *pair = json_add(fl, NULL, json_arr());

			json_add(pair, NULL, json_int(c));
			json_add(pair, NULL, json_int(q->inflight[c]));
		}
	}
	json_add(st, "processor", json_int(q->processor));
	return st;
}

static cJSON *dqueue_state(const struct dqueue *q)
{
	return q->task ? task_state(q) : seen_state(q);
}

/* {consumer} and {value} if @value >= 0, after @first if not NULL. */
static cJSON *step_data(cJSON *first, long consumer, long value)
{
	cJSON *data = first ? first : json_obj();

	if (consumer >= 0)
		json_add(data, "consumer", json_int(consumer));
	if (value >= 0)
		json_add(data, "value", json_int(value));
	return data;
}

/* dqueue's window; dqueue-task makes one per step (task_window()). */
static void window(struct fold_run *run, const struct dqueue *q,
		   const char *action, long consumer, long value)
{
	if (!q->task)
		windows_add(run->windows, action, step_data(NULL, consumer, value),
			    dqueue_state(q));
}

/* dqueue-task's actions, by label (the archetype's prefix off). */
static const struct { const char *label, *action; } task_labels[] = {
	{ "c", "ConsumerLoop" }, { "c1", "ConsumerRequest" },
	{ "c2", "ConsumerProcess" }, { "p", "ProducerLoop" },
	{ "p1", "ProducerReceive" }, { "p2", "ProducerSend" },
};

static const char *const task_actions[] = {
	"ConsumerLoop", "ConsumerRequest", "ConsumerProcess",
	"ProducerLoop", "ProducerReceive", "ProducerSend", NULL,
};

static void fifo_push(struct fifo *f, long v)
{
	if (f->head + f->len == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 4;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->head + f->len++] = v;
}

/* Node @i's channel, which the step names by index @index. */
static struct fifo *channel(struct dqueue *q, const struct pgo_event *e,
			    const char *index)
{
	long i = pgo_id(e, index, "channel");

	if (i > q->nconsumers)
		die_at(EXIT_BAD_INPUT, e->file, e->line, "net[%ld]: the run's "
		       "nodes are 0..%ld", i, q->nconsumers);
	return &q->net[i];
}

/* The step's sends and receives, in its order: a receive takes the head. */
static void task_network(struct dqueue *q, const struct pgo_event *e)
{
	struct pgo_access a;

	for (size_t i = 0; i < e->nelements; i++) {
		struct fifo *f;
		long v;

		pgo_access(e, i, &a);
		if (!a.tag || !a.name || strcmp(a.name, "net") || !a.index)
			continue;
		f = channel(q, e, a.index);
		v = pgo_int(e, a.value, "message");
		if (!strcmp(a.tag, "write")) {
			fifo_push(f, v);
			continue;
		}
		if (!f->len || f->v[f->head] != v)
			die_at(EXIT_CHECK_FAILED, e->file, e->line, "%s %s "
			       "receives %ld from net[%s], whose head is %s",
			       e->archetype, e->self, v, a.index,
			       f->len ? "another value" : "nothing (empty)");
		f->head++, f->len--;
	}
}

/*
 * dqueue-task: node @i executes the label its pc names, moves to the one
 * its step writes, sends and receives; the step's action.
 */
static const char *task_step(struct dqueue *q, const struct pgo_event *e,
			     long i)
{
	size_t k = strlen(e->archetype) + 1;
	struct tla_span next = tla_unwrap(tla_span(pgo_value(e, "write", ".pc", NULL)));

	if (i > q->nconsumers || strncmp(e->label, e->archetype, k - 1) ||
	    e->label[k - 1] != '.' || strcmp(e->label + k, q->pc[i]))
		die_at(EXIT_CHECK_FAILED, e->file, e->line, "%s %ld executes "
		       "%s, but its pc is %s", e->archetype, i, e->label,
		       i > q->nconsumers ? "unknown" : q->pc[i]);
	if (next.len < k + 2 || next.p[0] != '"' || memcmp(next.p + 1, e->label, k))
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "%s %ld's step writes no %s pc", e->archetype, i,
		       e->archetype);
	task_network(q, e);
	for (size_t l = 0; l < sizeof(task_labels) / sizeof(task_labels[0]); l++) {
		if (strcmp(task_labels[l].label, q->pc[i]))
			continue;
		free(q->pc[i]);
		q->pc[i] = xasprintf("%.*s", (int)(next.len - 2 - k), next.p + 1 + k);
		return task_labels[l].action;
	}
	die_at(EXIT_BAD_INPUT, e->file, e->line, "unknown %s label \"%s\"",
	       e->archetype, e->label);
}

static void task_window(struct fold_run *run, const struct dqueue *q,
			const char *action, cJSON *data)
{
	if (q->task)
		windows_add(run->windows, action, data, dqueue_state(q));
	else
		cJSON_Delete(data);
}

static void producer_step(void *ctx, struct fold_run *run,
			  const struct pgo_event *e)
{
	struct dqueue *q = ctx;
	const char *action = q->task ? task_step(q, e, e->self_num) : NULL;
	long c = -1, v = -1;

	if (!strcmp(e->label, "AProducer.p1")) {
		c = pgo_id(e, pgo_value(e, "read", "net", e->self),
			   "request read");
		grow(q, c);
		if (!q->asked[c])
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "producer takes a request of consumer %ld, "
			       "which did not ask", c);
	} else if (!strcmp(e->label, "AProducer.p2")) {
		c = pgo_id(e, pgo_index(e, "write", "net"), "recipient");
		v = pgo_int(e, pgo_value(e, "write", "net", NULL), "value");
		grow(q, c);
		if (!q->asked[c] || q->inflight[c] >= 0)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "producer sends %ld to consumer %ld, which %s", v,
			       c, q->asked[c] ? "has a value in flight" :
			       "did not ask");
		q->asked[c] = 0;
		q->inflight[c] = v;
		window(run, q, "ProducerSend", c, v);
	} else if (strcmp(e->label, "AProducer.p")) {
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "unknown AProducer label \"%s\"", e->label);
	}
	if (action) {
		cJSON *d = json_obj();

		json_add(d, "producer", json_int(e->self_num));
		task_window(run, q, action, step_data(d, c, v));
	}
}

static void consumer_step(void *ctx, struct fold_run *run,
			  const struct pgo_event *e)
{
	struct dqueue *q = ctx;
	long c = pgo_id(e, e->self, "consumer id"), v = -1;
	const char *action = q->task ? task_step(q, e, c) : NULL;

	grow(q, c);
	if (!strcmp(e->label, "AConsumer.c1")) {
		if (q->asked[c] || q->inflight[c] >= 0)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "consumer %ld asks again before processing", c);
		q->asked[c] = 1;
		window(run, q, "ConsumerRequest", c, -1);
	} else if (!strcmp(e->label, "AConsumer.c2")) {
		v = pgo_int(e, pgo_value(e, "read", "net", e->self), "value");
		if (q->inflight[c] != v)
			die_at(EXIT_CHECK_FAILED, e->file, e->line,
			       "consumer %ld processes %ld, but the value in "
			       "flight to it is %ld", c, v, q->inflight[c]);
		q->inflight[c] = -1;
		q->processor = v;
		window(run, q, "ConsumerProcess", c, v);
	} else if (strcmp(e->label, "AConsumer.c")) {
		die_at(EXIT_BAD_INPUT, e->file, e->line,
		       "unknown AConsumer label \"%s\"", e->label);
	}
	if (action)
		task_window(run, q, action, step_data(NULL, c, v));
}

/*
 * dqueue-task names every node from the start: the producer 0 at p, the
 * run's AConsumer processes, which must be 1..N, at c (the labels their
 * first steps execute, checked); every channel empty.
 */
static void task_begin(struct dqueue *q, const struct fold_run *run,
		       const struct pgo_process *procs, size_t n)
{
	long max = 0;

	for (size_t i = 0; i < n; i++) {
		int consumer = !strcmp(procs[i].archetype, "AConsumer");
		long id = strtol(procs[i].self, NULL, 10);

		q->nconsumers += consumer;
		if (!consumer && (strcmp(procs[i].archetype, "AProducer") ||
				  strcmp(procs[i].self, "0")))
			die_at(EXIT_BAD_INPUT, run->input, 0, "%s %s: dqueue-task "
			       "knows the producer 0 and consumers 1..N",
			       procs[i].archetype, procs[i].self);
		if (consumer && (id < 1 || id > PGO_MAX_ID))
			die_at(EXIT_BAD_INPUT, run->input, 0, "AConsumer self "
			       "\"%s\" is not a consumer id", procs[i].self);
		if (consumer && id > max)
			max = id;
	}
	if (max != q->nconsumers)
		die_at(EXIT_BAD_INPUT, run->input, 0, "the run's AConsumer selfs "
		       "are not 1..N (%ld consumers, highest id %ld)",
		       q->nconsumers, max);
	q->pc = xcalloc(q->nconsumers + 1, sizeof(*q->pc));
	q->net = xcalloc(q->nconsumers + 1, sizeof(*q->net));
	for (long i = 0; i <= q->nconsumers; i++)
		q->pc[i] = xstrdup(i ? "c" : "p");
}

/* dqueue's consumers are known from the steps they take. */
static void *begin(struct fold_run *run, const struct pgo_process *procs,
		   size_t n, const struct folder *f, int task)
{
	struct dqueue *q = xcalloc(1, sizeof(*q));
	cJSON *st;

	q->task = task;
	if (task)
		task_begin(q, run, procs, n);
	st = dqueue_state(q);
	fold_run_windows(run, f, st);
	cJSON_Delete(st);
	return q;
}

static void *dqueue_begin(struct fold_run *run,
			  const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_dqueue, 0);
}

static void *task_begin_run(struct fold_run *run,
			    const struct pgo_process *procs, size_t n)
{
	return begin(run, procs, n, &folder_dqueue_task, 1);
}

static void dqueue_end(void *ctx)
{
	struct dqueue *q = ctx;

	for (long i = 0; q->pc && i <= q->nconsumers; i++) {
		free(q->pc[i]);
		free(q->net[i].v);
	}
	free(q->pc);
	free(q->net);
	free(q->asked);
	free(q->inflight);
	free(q);
}

#define DQUEUE_SYSTEM(NAME, BEGIN) {				\
	.name = NAME,						\
	.begin = BEGIN,						\
	.archetypes = {						\
		{ "AProducer", producer_step },			\
		{ "AConsumer", consumer_step },			\
	},							\
	.end = dqueue_end,					\
}

static const struct pgo_system dqueue_system =
	DQUEUE_SYSTEM("dqueue", dqueue_begin);
static const struct pgo_system task_system =
	DQUEUE_SYSTEM("dqueue-task", task_begin_run);


static void fold_as(struct fold_run *run, const struct pgo_system *sys)
{
	struct cap_err err;

	if (pgo_fold(run, sys, &err))
		die_err(&err);
}

static void dqueue_fold(struct fold_run *run)
{
	fold_as(run, &dqueue_system);
}

static void task_fold(struct fold_run *run)
{
	fold_as(run, &task_system);
}

static const char *const dqueue_actions[] = {
	"ConsumerRequest", "ProducerSend", "ConsumerProcess", NULL,
};

/* requests a sorted set of consumers, inflight of (consumer, value) */
static const struct itf_var dqueue_itf[] = {
	{ "requests", "set" },
	{ "inflight", "set(tuple)" },
	{ 0 }
};

static const char *const dqueue_actor[] = { "consumer", NULL };

const struct folder folder_dqueue = {
	.name = "dqueue",
	.summary = "PGo distributed queue from its recorder logs (a run = a "
		   "directory of trace-*.log)",
	.actions = dqueue_actions,
	.form = FORM_STREAM,
	.fold = dqueue_fold,
	.itf = dqueue_itf,
	.actor = dqueue_actor,
};

static const char *const task_actor[] = { "producer", "consumer", NULL };

const struct folder folder_dqueue_task = {
	.name = "dqueue-task",
	.summary = "dqueue at SysMoBench's task granularity: every label a "
		   "step, over {pc, network, processor} (docs/task-projections.md)",
	.actions = task_actions,
	.form = FORM_CANONICAL,
	.fold = task_fold,
	.actor = task_actor,
	.refines = &folder_dqueue,
};
