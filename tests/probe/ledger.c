// SPDX-License-Identifier: MIT
/*
 * A toy ledger for capture probe's System V engine (tests/probe/test-probe.sh):
 * WORKERS threads each apply OPS operations (deposits, withdrawals and
 * transfers, a sequence that follows from the worker's number alone) to 4
 * accounts under one mutex, taking turns (worker 0, 1, ..., 0, ...: the
 * schedule, and so the events, are the same every run and at every
 * optimization level), and log every one they apply; at the end the
 * main thread peeks at each account (a 16-byte struct returned in RAX:RDX)
 * and takes the totals (a 48-byte struct returned in memory).  The probed
 * functions are PROBED: neither inlined nor cloned (gcc's noipa; clang
 * knows only noinline), so their symbols are the calls' (an inlined
 * function is refused by the probes).
 *
 * usage: ledger [WORKERS [OPS]]    (default 3 and 30)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#define PROBED __attribute__((noinline))
#else
#define PROBED __attribute__((noipa))
#endif

enum kind { DEPOSIT, WITHDRAW, TRANSFER };

union amount {
	long cents;
	unsigned char bytes[8];
};

struct account {
	int id;
	long balance;
	struct {                /* bit-fields */
		unsigned frozen : 1;
		unsigned level : 3;
		int delta : 5;
	} flags;
};

struct op {
	int id;
	enum kind kind;
	int from, to;
	union amount amount;
	char memo[8];
	unsigned short tags[4];
	struct account *payer;  /* the account the amount leaves, or NULL */
};

struct ledger {
	pthread_mutex_t mu;
	struct account accounts[4];
	long applied, refused;
};

struct peek {
	long balance;
	long applied;
};

struct totals {
	long sum, applied, refused;
	long per[3];            /* operations applied of each kind */
};

static struct ledger the_ledger;
static long per_kind[3];
static pthread_cond_t next_turn = PTHREAD_COND_INITIALIZER;
static int turn, nworkers = 3, nops = 30;

/* Apply @op (the caller holds the mutex): 1 if applied, 0 if refused. */
PROBED int ledger_apply(struct ledger *l, const struct op *op,
					int worker)
{
	struct account *from = &l->accounts[op->from], *to = &l->accounts[op->to];
	long amt = op->amount.cents;
	int ok = 1;

	if (op->kind != DEPOSIT && from->balance < amt)
		ok = 0;
	else if (op->kind == DEPOSIT)
		to->balance += amt;
	else if (op->kind == WITHDRAW)
		from->balance -= amt;
	else {
		from->balance -= amt;
		to->balance += amt;
	}
	if (ok) {
		l->applied++;
		per_kind[op->kind]++;
	} else {
		l->refused++;
	}
	printf("apply worker=%d id=%d kind=%d from=%d to=%d amount=%ld memo=%d tag=%u "
	       "payer=%d ok=%d applied=%ld balances=%ld,%ld,%ld,%ld\n",
	       worker, op->id, op->kind, op->from, op->to, amt, op->memo[0],
	       op->tags[1], op->payer ? op->payer->id : 0, ok, l->applied,
	       l->accounts[0].balance, l->accounts[1].balance,
	       l->accounts[2].balance, l->accounts[3].balance);
	return ok;
}

/* What account @i holds, and how many operations the ledger applied. */
PROBED struct peek ledger_peek(struct ledger *l, int i)
{
	struct peek p = { l->accounts[i].balance, l->applied };

	printf("peek account=%d balance=%ld applied=%ld\n", i, p.balance, p.applied);
	return p;
}

/* The ledger's totals; @verbose is unused (clang -O2 gives it no location). */
PROBED struct totals ledger_totals(struct ledger *l, int verbose)
{
	struct totals t = { 0, l->applied, l->refused, { per_kind[0], per_kind[1],
							 per_kind[2] } };

	(void)verbose;
	for (int i = 0; i < 4; i++)
		t.sum += l->accounts[i].balance;
	printf("totals sum=%ld applied=%ld refused=%ld transfers=%ld "
	       "flags=%u,%u,%d flags3=%u,%u,%d\n",
	       t.sum, t.applied, t.refused, t.per[TRANSFER],
	       l->accounts[1].flags.frozen, l->accounts[1].flags.level,
	       l->accounts[1].flags.delta, l->accounts[3].flags.frozen,
	       l->accounts[3].flags.level, l->accounts[3].flags.delta);
	return t;
}

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	unsigned seed = 7u + 31u * (unsigned)w;

	for (int i = 0; i < nops; i++) {
		struct op op;

		memset(&op, 0, sizeof(op));
		seed = seed * 1103515245u + 12345u;
		op.id = w * 1000 + i;
		op.kind = (enum kind)((seed >> 8) % 3);
		op.from = (int)((seed >> 12) % 4);
		op.to = (int)((seed >> 16) % 4);
		op.amount.cents = (long)((seed >> 20) % 50) + 1;
		snprintf(op.memo, sizeof(op.memo), "%c%d", 'a' + w, i % 10);
		op.tags[1] = (unsigned short)(seed % 65536);
		op.payer = op.kind == DEPOSIT ? NULL : &the_ledger.accounts[op.from];
		pthread_mutex_lock(&the_ledger.mu);
		while (turn % nworkers != w)
			pthread_cond_wait(&next_turn, &the_ledger.mu);
		ledger_apply(&the_ledger, &op, w);
		fflush(stdout);
		turn++;
		pthread_cond_broadcast(&next_turn);
		pthread_mutex_unlock(&the_ledger.mu);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[16];

	nworkers = argc > 1 ? atoi(argv[1]) : 3;
	nops = argc > 2 ? atoi(argv[2]) : 30;
	if (nworkers < 1 || nworkers > 16 || nops < 0) {
		fprintf(stderr, "usage: ledger [WORKERS(1-16) [OPS]]\n");
		return 2;
	}
	pthread_mutex_init(&the_ledger.mu, NULL);
	for (int i = 0; i < 4; i++) {
		the_ledger.accounts[i].id = 10 + i;
		the_ledger.accounts[i].balance = 100;
		the_ledger.accounts[i].flags.frozen = i & 1;
		the_ledger.accounts[i].flags.level = (unsigned)(2 * i + 1);
		the_ledger.accounts[i].flags.delta = 5 - 4 * i;
	}
	for (int w = 0; w < nworkers; w++)
		pthread_create(&t[w], NULL, worker, (void *)(long)w);
	for (int w = 0; w < nworkers; w++)
		pthread_join(t[w], NULL);
	for (int i = 0; i < 4; i++)
		ledger_peek(&the_ledger, i);
	ledger_totals(&the_ledger, argc > 3);
	return 0;
}
