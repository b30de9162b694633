/* SPDX-License-Identifier: MIT */
/*
 * A probe spec (docs/probe-spec.md): which functions of a Go binary `capture go`
 * (and `capture etcd`, scenarios/etcd/raft.probes) probes, what each entry
 * or return reads (Go expressions over arguments, receivers and results,
 * resolved through DWARF), and the event each record becomes.  Every
 * refusal is returned (capture/err.h) naming the spec's FILE:LINE.
 */
#ifndef BPF_GOSPEC_H
#define BPF_GOSPEC_H

#include <stdio.h>
#include <cJSON.h>
#include "../capture/err.h"
#include "engine.h"
#include "expr.h"

struct go_spec;

/*
 * Parse @path (copied); NULL on a malformed line or an unreadable file,
 * @err saying "FILE:LINE: why" (EXIT_BAD_INPUT).
 */
struct go_spec *go_spec_parse(const char *path, struct cap_err *err);
/*
 * Resolve every function and expression in @e's binary and register the
 * probes; -1 on the first that does not resolve ("FILE:LINE: why", the
 * resolver's kind) or that the engine refuses (its message).
 */
int go_spec_probe(struct go_spec *s, struct gp_engine *e, struct cap_err *err);
/*
 * A runtime whose values are not found through DWARF (the JVM's, jvm/)
 * lays a spec's sites out as go_spec_probe() does: each site's reads,
 * slot by slot, handed to @v as the layout spells them, and the records
 * the runtime makes of them translated by go_spec_record() as the
 * engine's.  A site's id is its func's index times 2, plus 1 at the
 * return; sites come in the spec's order, each before its reads.
 */
struct go_spec_read {
	int site, slot;
	long line;              /* the field's, in the spec */
	const char *expr;       /* X, len(X), X[2].f, *X: as the layout spells it */
	int is_len;             /* a length (any integer) */
	int word;               /* word W of a str's bytes, or -1 */
	int nil_test;           /* 1: EXPR == nil, 2: EXPR != nil (a bool) */
	enum probe_kind kind;      /* the field's type */
	int size;
	const char *const *names;   /* its names table (NULL: "-"), or NULL */
	int nnames;
};

struct go_spec_visit {
	void (*site)(void *arg, int id, const char *func, long func_line,
		     long site_line, int at_exit);
	void (*read)(void *arg, const struct go_spec_read *rd);
};

/* -1 and @err ("FILE:LINE: why") if a site reads more than a record holds. */
int go_spec_layout(struct go_spec *s, const struct go_spec_visit *v, void *arg,
		   struct cap_err *err);
/* Where records (raw, NULL: not written) and events go. */
void go_spec_output(struct go_spec *s, FILE *raw, FILE *events);
/* gp_run() callback: a raw line per record, an event line per event record. */
void go_spec_record(const struct gp_record *r, void *spec);
/*
 * -1 if a record could not be translated (EXIT_CAPTURE_FAILED, the first
 * such); else adds counts to @manifest (unless NULL).
 */
int go_spec_end(struct go_spec *s, cJSON *manifest, struct cap_err *err);
/*
 * Forget every value a keep kept: the process's next run (a scenario of
 * a -batch harness, a served try) starts with nothing kept, as a fresh
 * process would.
 */
void go_spec_forget(struct go_spec *s);
/*
 * What the spec's events hold: {EVENT: [FIELD...]}, each event name (a
 * table's names for an event named "by") with the fields it writes (dotted
 * names as the spec writes them, "proc" if the header has it), for a
 * projection to check its names against before anything runs (caller
 * frees).
 */
cJSON *go_spec_schema(const struct go_spec *s);
/* Events written so far. */
long go_spec_events(const struct go_spec *s);
void go_spec_free(struct go_spec *s);

#endif
