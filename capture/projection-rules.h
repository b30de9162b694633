/* SPDX-License-Identifier: MIT */
/*
 * A parsed projection (projection.h, docs/projection.md): what its parser
 * (projection.c), its fold (projection-fold.c) and its audit domain
 * (projection-audit.c) share.
 */
#ifndef CAPTURE_PROJECTION_RULES_H
#define CAPTURE_PROJECTION_RULES_H

#include <cJSON.h>
#include "audit-domain.h"
#include "itf.h"
#include "system.h"

/* At most so many state fields and key fields. */
#define PROJ_MAX_STATE 64
#define PROJ_MAX_KEY 8

/* The actions a projection's fold writes besides its own. */
#define PROJ_UNTRACED "UntracedChange"
#define PROJ_OVERLAPPED "Overlapped"

/* NAME[=PATH]: the value at an event's member PATH, written as NAME. */
struct proj_path {
	char *name;
	char **part;     /* PATH's dotted members; "proc": the process */
	int n;
};

/* actions TABLE VALUE=ACTION ...: a value's text to an action. */
struct proj_table {
	char *name;
	long line;
	char **from, **to;   /* to[i] NULL: no window ("-") */
	int n;
	int other;           /* "*": any other value ... */
	char *other_to;      /* ... to this (NULL: "-") */
};

enum proj_kind { PROJ_CALL, PROJ_EVENT, PROJ_OBSERVE };

/* data ... for ACTION...: the actions a data field is of (n 0: all). */
struct proj_only {
	char **action;
	int n;
};

/* A call, event or observe statement. */
struct proj_rule {
	enum proj_kind kind;
	long line;
	char *event;            /* the event (a call's entry) */
	char *ret;              /* a call's return event */
	char *action;           /* fixed, or NULL for by/table; "-": none */
	struct proj_path by;
	int table;              /* by's table (index), -1: none */
	int serialized;         /* declared: no other thread acts on the key
				 * inside one (checked) */
	struct proj_path *data;
	struct proj_only *only;  /* each data's actions */
	int ndata;
};

/* An audit axis: a state field (row) or a data key (column). */
struct proj_axis {
	char *name;
	long line;
	cJSON *values;          /* array of the values declared; NULL: learned */
};

/* NAME=VALUE, on an axis. */
struct proj_cond {
	int axis;
	char *value;            /* the value's label text */
};

/* impossible ROW-CONDS ACTION COL-CONDS because WHY [reaches ...]. */
struct proj_impossible {
	long line;
	struct proj_cond *row, *col;
	int nrow, ncol;
	char *action;
	char *why;
	struct proj_cond *reach;  /* on state fields (axis: the field) */
	cJSON **reach_value;
	int nreach;
};

struct projection {
	struct folder folder;      /* first: what the core is handed */
	struct system system;
	char *name, *path, *source;
	char sha256[65];
	char *header;              /* the events' name key ("event") */
	struct proj_path *state;
	int nstate;
	char *map;                 /* keyed: {MAP: {KEY: state}}; NULL: global */
	struct proj_path *key;
	int nkey;
	struct proj_path thread;   /* name NULL: one thread a process */
	char *actor;
	char *start;               /* windows start at this event; NULL: first */
	long actor_line, start_line, state_line, key_line, thread_line;
	struct proj_rule *rule;
	int nrules;
	struct proj_table *table;
	int ntables;
	struct proj_axis *row, *col;
	int nrows, ncols;
	struct proj_impossible *imp;
	int nimp;
	const char **actions;      /* NULL-terminated, in declared order */
	int nactions;
	const char *actor_keys[2];
	struct itf_var itf[2];
	struct audit_domain audit;
	char *describes;
};

/*
 * The projection loaded (one at a time), or NULL; projection_set_current()
 * loads @pj (NULL: none).  These and the values below: projection-values.c.
 */
struct projection *projection_current(void);
void projection_set_current(struct projection *pj);

/* The value at @p in @ev (its "proc": the process), or NULL. */
const cJSON *proj_value(const cJSON *ev, const struct proj_path *p);
/* Is @r's data field @i one of @action's windows'? */
int proj_data_for(const struct proj_rule *r, int i, const char *action);
/* A scalar's text in keys and audit labels; 0 if @v is no scalar. */
int proj_value_text(const cJSON *v, struct strbuf *sb);

/* The fold and the audit domain (projection-fold.c, projection-audit.c). */
void projection_fold(struct fold_run *run);
void projection_audit_init(struct projection *pj);

#endif
