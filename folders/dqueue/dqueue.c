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
 */
#include <stdlib.h>
#include <string.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/fold.h"
#include "../../capture/readers/pgo.h"

extern const struct folder folder_dqueue;

struct dqueue {
	long n;              /* consumer ids below n have slots */
	char *asked;         /* asked[c]: c's request is not served yet */
	long *inflight;      /* inflight[c]: value sent to c, -1: none */
	long processor;
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

static cJSON *dqueue_state(const struct dqueue *q)
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

static void window(struct fold_run *run, const struct dqueue *q,
		   const char *action, long consumer, long value)
{
	cJSON *data = json_obj();
	cJSON *st = dqueue_state(q);

	json_add(data, "consumer", json_int(consumer));
	if (value >= 0)
		json_add(data, "value", json_int(value));
	windows_add(run->windows, action, data, st);
}

static void producer_step(void *ctx, struct fold_run *run,
			  const struct pgo_event *e)
{
	struct dqueue *q = ctx;
	long c, v;

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
}

static void consumer_step(void *ctx, struct fold_run *run,
			  const struct pgo_event *e)
{
	struct dqueue *q = ctx;
	long c = pgo_id(e, e->self, "consumer id"), v;

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
}

/* Clients and servers are known from the steps they take. */
static void *dqueue_begin(struct fold_run *run,
			   const struct pgo_process *procs, size_t n)
{
	struct dqueue *q = xcalloc(1, sizeof(*q));
	cJSON *st = dqueue_state(q);

	(void)procs;
	(void)n;
	fold_run_windows(run, &folder_dqueue, st);
	cJSON_Delete(st);
	return q;
}

static void dqueue_end(void *ctx)
{
	struct dqueue *q = ctx;

	free(q->asked);
	free(q->inflight);
	free(q);
}

static const struct pgo_system dqueue_system = {
	.name = "dqueue",
	.begin = dqueue_begin,
	.archetypes = {
		{ "AProducer", producer_step },
		{ "AConsumer", consumer_step },
	},
	.end = dqueue_end,
};

static void dqueue_fold(struct fold_run *run)
{
	struct cap_err err;

	if (pgo_fold(run, &dqueue_system, &err))
		die_err(&err);
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
