/* SPDX-License-Identifier: MIT */
/*
 * The cells of spin's audit domains, as values: what the two audits
 * (spin-audit.c, spin-spinning.c) label and classify, and what the
 * scenario generator (scenarios/spin/domain.c) writes a scenario for.
 *
 * A pre-state is who holds the lock and who spins in lock() waiting for
 * it; a column is a call by one of the two actors.  The reference domain
 * is the pre-states with nobody spinning (3 x 6 = 18 cells, all
 * reachable); the extended one has every pre-state (12 x 6 = 72 cells),
 * with the impossible ones and their reasons.
 */
#ifndef FOLDERS_SPIN_DOMAIN_H
#define FOLDERS_SPIN_DOMAIN_H

#include "../../capture/json.h"

#define SPIN_THREADS 2
#define SPIN_NO_HOLDER (-1)

enum spin_call { SPIN_CALL_LOCK, SPIN_CALL_TRY, SPIN_CALL_RELEASE };

struct spin_pre {
	int holder;		/* SPIN_NO_HOLDER: free */
	unsigned int spinning;	/* bit mask of the actors spinning */
};

struct spin_col {
	int thread;
	enum spin_call call;
};

/* Pre-states, in display order: (free, held by 0, held by 1) x spinning. */
#define SPIN_NPRE (3 * (1 << SPIN_THREADS))
#define SPIN_NCOL (3 * SPIN_THREADS)
struct spin_pre spin_pre_at(int i);
struct spin_col spin_col_at(int j);

/* "held by 0", then ", spinning {1}" if @extended and someone spins. */
void spin_pre_label(struct strbuf *sb, struct spin_pre p, int extended);
/* "AcquireLock(0, lock)", "AcquireLock(1, try)", "ReleaseLock(0)". */
void spin_col_label(struct strbuf *sb, struct spin_col c);

/*
 * The cell of a window (@pre, @action, @data) into @p and @c; 0 if it is
 * outside the domain.  @extended: read pre's "spinning" too.
 */
int spin_cell_of(const cJSON *pre, const char *action, const cJSON *data,
		 int extended, struct spin_pre *p, struct spin_col *c);

struct audit_axes;
struct window;
/*
 * The audits' axes() and classify() (capture/audit.h): the reference
 * domain's (nobody spinning) or, @extended, every pre-state.
 */
void spin_domain_axes(struct audit_axes *ax, int extended);
int spin_domain_classify(const struct window *w, struct strbuf *row,
			 struct strbuf *col, int extended);

/* Why the extended domain's cell (@p, @c) can hold no call, or NULL. */
const char *spin_cell_impossible(struct spin_pre p, struct spin_col c);
/*
 * spin_cell_impossible()'s reason if the lock itself forbids the cell
 * from a pre-state it can be in (a spinner's call), else NULL: not the
 * module's choices, not a pre-state that is never the state.
 */
const char *spin_cell_forbidden_by_lock(struct spin_pre p, struct spin_col c);

#endif
