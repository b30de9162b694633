// SPDX-License-Identifier: MIT
#include <pthread.h>
#include <stdlib.h>
#include "die.h"
#include "err.h"
#include "ndjson-ahead.h"

/* Records read ahead per file: enough to ride out the merge's bursts. */
#define AHEAD 64
/*
 * The reader runs prepare() only for a record with this many records of its
 * file ahead of the consumer: then the consumer is busy and the reader has
 * time to spare.  When the reader is the bottleneck (parsing costs more
 * than merging) the rings run low and the consumer, which would otherwise
 * wait, does that work itself.  The output is the same either way.
 */
#define PREPARE_FROM 16
/* Bytes of buffers a slot keeps for the next record (see shrink()). */
#define SLOT_KEEP (1 << 20)

struct ahead_slot {
	int got;                /* 1: a record, 0: the end, -1: a bad line */
	long line;
	struct ndjson_error e;
	struct strbuf text;     /* the line, which the tokens point into */
	struct json_tokens t;
	int prepared;           /* state holds what prepare() made of it */
	void *state;
};

/*
 * Counters only grow: slots [taken, produced) are ready, [released, taken)
 * are the consumer's; the reader may fill slot produced % AHEAD while
 * produced - released < AHEAD.  produced and released are the only state
 * both threads touch (besides the sleep flags): lock-free, since taking
 * the lock for every record made the two threads queue on it.  Moving
 * produced publishes the slot's contents, moving released hands the slot
 * back: each is the last thing its thread does with the slot, and the
 * other thread reads the counter before it touches the slot.  The end of
 * a file is a slot too (no record, or a bad line), so the consumer learns
 * of it in file order, after every record before it; each side keeps its
 * own flag for "that slot went by".
 *
 * Every access to these atomics is sequentially consistent (the plain
 * operators): besides publishing, each is half of a store-then-load pair
 * with a sleep flag (see struct ndjson_ahead), which release/acquire alone
 * would let both threads get wrong at once, each then sleeping forever.
 */
struct ahead_file {
	struct line_reader *r;
	struct ahead_slot slot[AHEAD];
	_Atomic unsigned produced, released;
	unsigned taken;
	int read_all;       /* reader: the end (or a bad line) is produced */
	int took_end;       /* consumer: it took that slot */
};

struct ndjson_ahead {
	struct ahead_file *files;
	size_t n;
	struct ndjson_preparer p;   /* p.prepare NULL: none */
	/*
	 * Sleeping: a wake-up costs more than parsing a record, so the reader
	 * is woken only once a ring is half empty and the consumer only once
	 * the file it waits on has half a ring ready (or ended).  Each sets
	 * its flag, then looks again before it sleeps; the other moves its
	 * counter, then looks at the flag.
	 */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	_Atomic int reader_waits;
	_Atomic long consumer_waits;   /* file index, or -1 */
	_Atomic int stop;
	pthread_t thread;
	int on_fail;       /* stops the thread before exit() tears stdio down */
};

static unsigned room(struct ahead_file *f)
{
	return AHEAD - (f->produced - f->released);
}

/* A file with a free slot, starting after @from; NULL if none. */
static struct ahead_file *with_room(struct ndjson_ahead *a, size_t from,
				    int *pending)
{
	*pending = 0;
	for (size_t k = 0; k < a->n; k++) {
		struct ahead_file *f = &a->files[(from + k) % a->n];

		if (f->read_all)
			continue;
		*pending = 1;
		if (room(f))
			return f;
	}
	return NULL;
}

static void wake(struct ndjson_ahead *a, pthread_cond_t *c)
{
	pthread_mutex_lock(&a->lock);
	pthread_cond_signal(c);
	pthread_mutex_unlock(&a->lock);
}

/* All rings are full: sleep until one is half empty. */
static void wait_for_room(struct ndjson_ahead *a, size_t from)
{
	int pending;

	pthread_mutex_lock(&a->lock);
	a->reader_waits = 1;
	if (!a->stop && !with_room(a, from, &pending) && pending)
		pthread_cond_wait(&a->room, &a->lock);
	a->reader_waits = 0;
	pthread_mutex_unlock(&a->lock);
}

/*
 * A slot keeps its buffers from record to record, but not those a rare
 * long line made: 64 slots per file each holding one would add up.
 */
static void shrink(struct ahead_slot *s)
{
	if (s->text.alloc > SLOT_KEEP)
		strbuf_release(&s->text);
	if (s->t.alloc * sizeof(*s->t.tok) > SLOT_KEEP)
		json_tokens_release(&s->t);
}

static void *read_ahead(void *arg)
{
	struct ndjson_ahead *a = arg;
	struct ahead_file *f;
	struct ahead_slot *s;
	size_t next = 0;
	int pending;

	while (!a->stop) {
		f = with_room(a, next, &pending);
		if (!f) {
			if (!pending)
				break;
			wait_for_room(a, next);
			continue;
		}
		next = (size_t)(f - a->files) + 1;
		s = &f->slot[f->produced % AHEAD];
		shrink(s);
		s->got = ndjson_try_next_tokens(f->r, &s->text, &s->t, &s->e);
		s->line = f->r->line;
		s->prepared = s->got > 0 && a->p.prepare &&
			      AHEAD - room(f) >= PREPARE_FROM;
		if (s->prepared)
			a->p.prepare(a->p.ctx, (size_t)(f - a->files), &s->t,
				     s->state);
		f->read_all = s->got <= 0;
		f->produced++;
		if (a->consumer_waits == f - a->files &&
		    (f->read_all || AHEAD - room(f) >= AHEAD / 2))
			wake(a, &a->more);
	}
	return NULL;
}

static void stop_thread(void *arg)
{
	struct ndjson_ahead *a = arg;

	a->stop = 1;
	wake(a, &a->room);
	pthread_join(a->thread, NULL);
}

struct ndjson_ahead *ndjson_ahead_start(struct line_reader *const *readers,
					size_t n, const struct ndjson_preparer *p)
{
	struct ndjson_ahead *a = xcalloc(1, sizeof(*a));

	a->n = n;
	if (p)
		a->p = *p;
	a->consumer_waits = -1;
	a->files = xcalloc(n + 1, sizeof(*a->files));
	for (size_t i = 0; i < n; i++) {
		a->files[i].r = readers[i];
		for (int k = 0; k < AHEAD && a->p.prepare; k++)
			a->files[i].slot[k].state = xcalloc(1, a->p.size);
	}
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->more, NULL);
	pthread_cond_init(&a->room, NULL);
	a->on_fail = start_worker(&a->thread, "capture-read",
				    read_ahead, stop_thread, a);
	return a;
}

int ndjson_ahead_next(struct ndjson_ahead *a, size_t i, struct json_tokens **t,
		      long *line, void **prepared, struct cap_err *err)
{
	struct ahead_file *f = &a->files[i];
	struct ahead_slot *s;

	*t = NULL;
	if (f->took_end)
		return 0;
	while (f->taken == f->produced) {
		pthread_mutex_lock(&a->lock);
		a->consumer_waits = (long)i;
		if (f->taken == f->produced)
			pthread_cond_wait(&a->more, &a->lock);
		a->consumer_waits = -1;
		pthread_mutex_unlock(&a->lock);
	}
	s = &f->slot[f->taken++ % AHEAD];
	f->took_end = s->got <= 0;
	if (s->got < 0)
		return cap_fail_at(err, EXIT_BAD_INPUT, f->r->path, s->e.line, "%s",
				   s->e.msg);
	*line = s->line;
	*prepared = s->prepared ? s->state : NULL;
	*t = s->got ? &s->t : NULL;
	return 0;
}

void ndjson_ahead_release(struct ndjson_ahead *a, size_t i)
{
	struct ahead_file *f = &a->files[i];

	f->released++;
	if (a->reader_waits && room(f) >= AHEAD / 2)
		wake(a, &a->room);
}

void ndjson_ahead_stop(struct ndjson_ahead *a)
{
	cancel_on_failure(a->on_fail);
	stop_thread(a);
	for (size_t i = 0; i < a->n; i++) {
		struct ahead_file *f = &a->files[i];

		for (int k = 0; k < AHEAD; k++) {
			strbuf_release(&f->slot[k].text);
			json_tokens_release(&f->slot[k].t);
			if (f->slot[k].state && a->p.release)
				a->p.release(f->slot[k].state);
			free(f->slot[k].state);
		}
	}
	pthread_mutex_destroy(&a->lock);
	pthread_cond_destroy(&a->more);
	pthread_cond_destroy(&a->room);
	free(a->files);
	free(a);
}
