// SPDX-License-Identifier: MIT
/* The cells of spin's audit domains (spin-domain.h). */
#include <string.h>
#include "../../capture/audit.h"
#include "spin-domain.h"

static const char *const call_types[] = {
	[SPIN_CALL_LOCK] = "lock", [SPIN_CALL_TRY] = "try",
};

struct spin_pre spin_pre_at(int i)
{
	return (struct spin_pre){
		.holder = i / (1 << SPIN_THREADS) - 1,
		.spinning = (unsigned int)i % (1 << SPIN_THREADS),
	};
}

struct spin_col spin_col_at(int j)
{
	if (j >= 2 * SPIN_THREADS)
		return (struct spin_col){ j - 2 * SPIN_THREADS, SPIN_CALL_RELEASE };
	return (struct spin_col){ j / 2, j % 2 ? SPIN_CALL_TRY : SPIN_CALL_LOCK };
}

void spin_pre_label(struct strbuf *sb, struct spin_pre p, int extended)
{
	const char *sep = "";

	if (p.holder == SPIN_NO_HOLDER)
		strbuf_addstr(sb, "free");
	else
		strbuf_addf(sb, "held by %d", p.holder);
	if (!extended || !p.spinning)
		return;
	strbuf_addstr(sb, ", spinning {");
	for (int t = 0; t < SPIN_THREADS; t++) {
		if (p.spinning & (1u << t)) {
			strbuf_addf(sb, "%s%d", sep, t);
			sep = ", ";
		}
	}
	strbuf_addstr(sb, "}");
}

void spin_col_label(struct strbuf *sb, struct spin_col c)
{
	if (c.call == SPIN_CALL_RELEASE)
		strbuf_addf(sb, "ReleaseLock(%d)", c.thread);
	else
		strbuf_addf(sb, "AcquireLock(%d, %s)", c.thread, call_types[c.call]);
}

/* An actor id of the domain at @key of @o; -1 if not one. */
static int thread_at(const cJSON *o, const char *key)
{
	long long t;

	if (json_get_int(o, key, &t) || t < 0 || t >= SPIN_THREADS)
		return -1;
	return (int)t;
}

/* The spinning set of @pre as a mask; -1 if it is not a set of actors. */
static int spinning_of(const cJSON *pre)
{
	const cJSON *set = json_get(pre, "spinning"), *t;
	int mask = 0;

	if (!cJSON_IsArray(set))
		return -1;
	cJSON_ArrayForEach(t, set) {
		if (!cJSON_IsNumber(t) || t->valuedouble < 0 ||
		    t->valuedouble >= SPIN_THREADS ||
		    t->valuedouble != (int)t->valuedouble)
			return -1;
		mask |= 1 << (int)t->valuedouble;
	}
	return mask;
}

int spin_cell_of(const cJSON *pre, const char *action, const cJSON *data,
		 int extended, struct spin_pre *p, struct spin_col *c)
{
	const cJSON *held = json_get(pre, "lockHeld");
	const char *call = json_get_str(data, "callType");
	int spinning = extended ? spinning_of(pre) : 0;

	c->thread = thread_at(data, "thread");
	if (c->thread < 0 || spinning < 0)
		return 0;
	p->spinning = (unsigned int)spinning;
	if (cJSON_IsFalse(held))
		p->holder = SPIN_NO_HOLDER;
	else if (!cJSON_IsTrue(held) || (p->holder = thread_at(pre, "lockHolder")) < 0)
		return 0;
	if (!strcmp(action, "ReleaseLock"))
		c->call = SPIN_CALL_RELEASE;
	else if (!strcmp(action, "AcquireLock") && call && !strcmp(call, "lock"))
		c->call = SPIN_CALL_LOCK;
	else if (!strcmp(action, "AcquireLock") && call && !strcmp(call, "try"))
		c->call = SPIN_CALL_TRY;
	else
		return 0;
	return 1;
}

void spin_domain_axes(struct audit_axes *ax, int extended)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < SPIN_NPRE; i++) {
		struct spin_pre p = spin_pre_at(i);

		if (p.spinning && !extended)
			continue;
		spin_pre_label(&sb, p, extended);
		audit_add_row(ax, "%s", sb.buf);
		strbuf_reset(&sb);
	}
	for (int j = 0; j < SPIN_NCOL; j++) {
		spin_col_label(&sb, spin_col_at(j));
		audit_add_col(ax, "%s", sb.buf);
		strbuf_reset(&sb);
	}
	strbuf_release(&sb);
}

int spin_domain_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col, int extended)
{
	struct spin_pre p;
	struct spin_col c;

	if (!spin_cell_of(w->pre, w->action, w->data, extended, &p, &c))
		return 0;
	spin_pre_label(row, p, extended);
	spin_col_label(col, c);
	return 1;
}

/* Reasons a pre-state of the extended domain is never the state. */
static const char *impossible_pre(struct spin_pre p)
{
	if (p.spinning == (1u << SPIN_THREADS) - 1)
		return "two actors cannot both spin: a spinner waits for the "
		       "other one, the holder (a lock() by the holder never "
		       "returns and is a call never completing, not a spinner)";
	if (p.holder != SPIN_NO_HOLDER && (p.spinning & (1u << p.holder)))
		return "a lock() by the holder on its own lock is a self-deadlock: "
		       "a call never completing, not a spinner";
	return NULL;
}

/* What the lock itself forbids the spinner of a reachable pre-state. */
static const char *spinner_forbidden(struct spin_pre p, struct spin_col c)
{
	int spins = (p.spinning >> c.thread) & 1;

	if (spins && c.call != SPIN_CALL_LOCK)
		return "the actor is inside spin_lock(): it makes no other call "
		       "until that returns";
	if (spins && p.holder != SPIN_NO_HOLDER)
		return "the spinner's lock() returns only once the holder has "
		       "released the lock";
	return NULL;
}

const char *spin_cell_forbidden_by_lock(struct spin_pre p, struct spin_col c)
{
	return impossible_pre(p) ? NULL : spinner_forbidden(p, c);
}

const char *spin_cell_impossible(struct spin_pre p, struct spin_col c)
{
	const char *why = impossible_pre(p);
	int spins = (p.spinning >> c.thread) & 1;

	if (why || (why = spinner_forbidden(p, c)))
		return why;
	if (p.spinning && p.holder == SPIN_NO_HOLDER && !spins)
		return "after a release the spinner takes the lock at once; the "
		       "module lets nobody act before its AcquireSuccess (what "
		       "came first would be a race, and the corpus would vary)";
	if (p.spinning && c.thread == p.holder && c.call == SPIN_CALL_LOCK)
		return "the holder's lock() would deadlock while the other CPU "
		       "spins too: no CPU would be left to end the run, so the "
		       "module refuses it (it would take a third CPU)";
	return NULL;
}
