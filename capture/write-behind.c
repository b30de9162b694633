// SPDX-License-Identifier: MIT
/* A thread writing and hashing files' bytes in order: see write-behind.h. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "die.h"
#include "proc.h"
#include "write-behind.h"

struct write_behind_file {
	struct write_behind *w;
	int fd;
	EVP_MD_CTX *md;
	char *data;        /* the buffer being filled: WRITE_BEHIND_BLOCK bytes */
	size_t len;
	int err;           /* errno of its first failed write (the thread's) */
};

struct pending {
	struct write_behind_file *f;
	char *data;
	size_t len;
};

/*
 * A ring of WRITE_BEHIND_QUEUE buffers: [done, queued) wait for the
 * thread, which takes them in order; both counters only grow, under the
 * lock.  A file hands its full buffer over by trading it for the free one
 * of the slot at queued: no bytes are copied twice.
 */
struct write_behind {
	struct pending q[WRITE_BEHIND_QUEUE];
	unsigned queued, done;
	int stop;
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	pthread_t thread;
	int on_fail;
};

/* Hash and write one buffer, unless its file failed already. */
static void write_pending(struct pending *p)
{
	struct write_behind_file *f = p->f;

	if (f->err)
		return;
	if (!EVP_DigestUpdate(f->md, p->data, p->len))
		f->err = EIO;
	else
		f->err = write_all(f->fd, p->data, p->len);
}

static void *write_queued(void *arg)
{
	struct write_behind *w = arg;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (w->done == w->queued && !w->stop)
			pthread_cond_wait(&w->more, &w->lock);
		if (w->stop)
			break;
		pthread_mutex_unlock(&w->lock);
		write_pending(&w->q[w->done % WRITE_BEHIND_QUEUE]);
		pthread_mutex_lock(&w->lock);
		w->done++;
		pthread_cond_signal(&w->room);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/*
 * Also a failure's cleanup: what is queued then is dropped, and so is what
 * comes after (exit() flushes every stdio stream still open).
 */
static void stop_thread(void *arg)
{
	struct write_behind *w = arg;

	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->more);
	pthread_cond_broadcast(&w->room);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
}

struct write_behind *write_behind_start(void)
{
	struct write_behind *w = xcalloc(1, sizeof(*w));

	for (int i = 0; i < WRITE_BEHIND_QUEUE; i++)
		w->q[i].data = xmalloc(WRITE_BEHIND_BLOCK);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->more, NULL);
	pthread_cond_init(&w->room, NULL);
	w->on_fail = start_worker(&w->thread, "capture-write",
				    write_queued, stop_thread, w);
	return w;
}

struct write_behind_file *write_behind_open(struct write_behind *w, int fd,
					    EVP_MD_CTX *md)
{
	struct write_behind_file *f = xcalloc(1, sizeof(*f));

	f->w = w;
	f->fd = fd;
	f->md = md;
	f->data = xmalloc(WRITE_BEHIND_BLOCK);
	return f;
}

/* Queue @f's buffer, once the thread has left a slot free. */
static void hand_off(struct write_behind_file *f)
{
	struct write_behind *w = f->w;
	struct pending *p;
	char *free_buffer;

	if (!f->len)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->queued - w->done == WRITE_BEHIND_QUEUE && !w->stop)
		pthread_cond_wait(&w->room, &w->lock);
	if (w->stop) {
		/* a failure stopped the thread: exit() flushes stdio into here */
		pthread_mutex_unlock(&w->lock);
		f->len = 0;
		return;
	}
	p = &w->q[w->queued % WRITE_BEHIND_QUEUE];
	free_buffer = p->data;
	*p = (struct pending){ .f = f, .data = f->data, .len = f->len };
	w->queued++;
	pthread_cond_signal(&w->more);
	pthread_mutex_unlock(&w->lock);
	f->data = free_buffer;
	f->len = 0;
}

void write_behind_queue(struct write_behind_file *f, const void *data,
			size_t len)
{
	const char *from = data;

	while (len) {
		size_t n = WRITE_BEHIND_BLOCK - f->len;

		if (n > len)
			n = len;
		memcpy(f->data + f->len, from, n);
		f->len += n;
		from += n;
		len -= n;
		if (f->len == WRITE_BEHIND_BLOCK)
			hand_off(f);
	}
}

int write_behind_close(struct write_behind_file *f)
{
	struct write_behind *w = f->w;
	int err;

	hand_off(f);
	pthread_mutex_lock(&w->lock);
	while (w->done != w->queued && !w->stop)
		pthread_cond_wait(&w->room, &w->lock);
	err = w->stop ? ECANCELED : f->err;
	pthread_mutex_unlock(&w->lock);
	free(f->data);
	free(f);
	return err;
}

void write_behind_stop(struct write_behind *w)
{
	cancel_on_failure(w->on_fail);
	stop_thread(w);
	for (int i = 0; i < WRITE_BEHIND_QUEUE; i++)
		free(w->q[i].data);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->more);
	pthread_cond_destroy(&w->room);
	free(w);
}
