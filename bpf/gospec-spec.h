/* SPDX-License-Identifier: MIT */
/*
 * What the files of the probe-spec reader share: a parsed spec
 * (gospec-parse.c), its reads resolved in a binary (gospec-resolve.c),
 * records made events (gospec-record.c), owned and freed (gospec.c).
 * Not an interface: bpf/gospec.h is.
 */
#ifndef BPF_GOSPEC_SPEC_H
#define BPF_GOSPEC_SPEC_H

#include <stdio.h>
#include "../capture/err.h"
#include "../capture/json.h"
#include "engine.h"
#include "expr.h"
#include "goeval.h"

#define MAX_FUNCS 64
#define MAX_FIELDS 48		/* of a site (computed ones read nothing) */
#define MAX_EVENTS 8            /* events of one site */
#define MAX_ONCE 64             /* "once" events of a spec (a mask's bits) */
#define MAX_PROCS 4096
#define MAX_TABLES 32
#define MAX_GROUPS 16
#define MAX_WORDS 66            /* names TABLE and 64 names */
#define MAX_KEYS 4              /* values of a kept value's key */
#define MAX_STATES 16           /* "keep" names of a spec */
#define MAX_KEEPS 8             /* "keep" lines of a site */
#define KEY_PROC (-2)           /* a key's "proc": the process's index */
#define MAX_GUARDS 64            /* of a site */
#define STR_BYTES 32            /* a str field's bytes, unless [:N] */
#define STR_MAX_BYTES 128       /* a str field's [:N] */

/* The key of a kept value: fields of the site (or KEY_PROC), in order. */
struct key {
	int n;
	int field[MAX_KEYS];
};

/* A table of names: value i is name[i] ("-": no name, shown[i] NULL). */
struct table {
	char *name;
	char **names;
	const char **shown;
	size_t *len;            /* of each name */
	int n;
};

/*
 * A Rust enum's field: its discriminant read, written as its variant's
 * name in the field's table (index[i] for a discriminant of value[i]; a
 * variant without one, !has_value, takes every value no other has).
 */
struct variant_map {
	int n;
	unsigned long long value[RUST_MAX_VARIANTS];
	int has_value[RUST_MAX_VARIANTS];
	int index[RUST_MAX_VARIANTS];
};

struct field {
	char *name;             /* dotted: nested objects */
	long line;
	enum probe_kind kind;
	int size;
	int slot;               /* first read */
	int count;              /* 0: one value; N: at most N elements */
	int bytes;              /* a str field: at most this many bytes, in
				 * words from slot (its length at len_slot) */
	int len_slot;           /* the slice's length, when count */
	int star;               /* *EXPR: the value EXPR points to */
	int nil_test;           /* EXPR == nil (1) or != nil (2): a bool */
	int addr;               /* TYPE addr: a pointer, written as its object's
				 * number in its process (gospec-record.c) */
	char *expr;             /* before [:N] when count */
	char *rest;             /* after [:N] */
	const struct table *table;  /* values written as its names */
	struct variant_map *variants;   /* a Rust enum's, by table */
	int has_default;        /* or N: a nil read is N */
	unsigned long long def;
	char *def_str;          /* or WORD of a kept str: WORD when none is kept */
	int quoted;             /* as string: the number as a JSON string */
	int thread;             /* as thread: a thread id, written as its index */
	int hidden;             /* read (or computed), not written */
	struct go_calc *calc;   /* computed from other fields: no read */
	char *kept_name;        /* kept NAME KEY...: a kept value, no read */
	int state;              /* its index in the spec's states */
	struct key kept_key;
	char *pre;              /* written before the value: key, nesting */
	size_t pre_len;
};

struct func;

struct event {
	char *name;             /* or the table naming it by a field's value */
	long line;
	const struct table *by_table;
	char *by_name;
	int by_field;
	long *by_count;         /* events per table entry */
	char *open_name;        /* while SYMBOL */
	struct func *open;
	int once;               /* bit in the open call's mask, +1; 0: none */
	char *per_name, *per_text;  /* per FIELD == VALUE */
	int per_field;
	unsigned long long per_value;
	long count;
};

/* keep NAME KEY... = FIELD: after the fields above it are known. */
struct keep {
	long line;
	int state;
	struct key key;
	int value;              /* the field kept */
	int after;              /* how many fields are above it */
};

/* A state: the values one "keep" name keeps, its first "keep" line's. */
struct state {
	char *name;
	long line;
	int nkeys;
	const struct field *value;   /* the first keep's: its type */
};

/*
 * A read of @target holds only if the read of @slot passes @op against @k
 * (expr.h: a slice index below its length, an interface's dynamic
 * type); else @target is nil.  @rd is @slot's read until it has one.
 * PROBE_GUARD_ONE_OF's addresses are moved by the bias the probe's address,
 * @ip_rd read into @ip_slot, tells.
 */
struct guard {
	struct gp_read rd, ip_rd;
	int slot, target, ip_slot;
	enum probe_guard_op op;
	unsigned long long k;
	struct probe_addrs one_of;
};

struct site {
	struct event ev[MAX_EVENTS];
	int nevents;
	long line;
	int at_exit;
	struct field field[MAX_FIELDS];
	int nfields;
	struct keep keep[MAX_KEEPS];
	int nkeeps;
	char *post;             /* closes what the last written field opened */
	size_t post_len;
	int goid_slot;          /* the goroutine's id read for "while", or -1 */
	int nwritten;           /* the fields' reads, raw/'s values: guards follow */
	struct guard guard[MAX_GUARDS];
	int nguards;
	struct gp_site gp;
	struct func *fn;
};

struct func {
	char *name;
	long line;
	int index;
	int tracked;            /* a "while" names it: its calls are followed */
	struct site *entry, *exit;
};

/* A group of fields, written once, used by several sites. */
struct group {
	char *name, *param;     /* PARAM in an EXPR is the use's ARG */
	long line;
	char *text[MAX_FIELDS];
	long at[MAX_FIELDS];    /* each field's line */
	int n;
};

/* An addr field's object: its address's number in its process. */
struct addr_num {
	int proc;               /* -1: an empty slot */
	unsigned long long addr, num;
};

struct go_spec {
	char *path;
	struct group group[MAX_GROUPS];
	int ngroups;
	struct group *open_group;   /* the group the lines below go to */
	char *key;              /* the key of the event's name */
	int with_proc;
	long header_line;
	int number_goroutines;  /* "number goroutines" */
	struct func func[MAX_FUNCS];
	int nfuncs;
	struct table table[MAX_TABLES];
	int ntables;
	int nonce;
	struct state state[MAX_STATES];
	int nstates;
	struct go_state *kept;  /* the values kept so far in this run */
	struct strbuf keybuf;
	struct site *by_id[GP_MAX_SITES];
	FILE *raw, *events;
	struct go_calls *calls;
	unsigned pid[MAX_PROCS];
	int nprocs;
	struct addr_num *addrs;     /* addr fields' objects, a hash table */
	size_t naddrs, addr_cap;
	unsigned long long addr_next[MAX_PROCS];   /* each process's last number */
	long records, events_written;
	char *error;
	struct cap_err *err;    /* where parse and probe put their refusal */
	struct strbuf line;
	struct go_val vals[MAX_FIELDS];
	char strs[MAX_FIELDS][STR_MAX_BYTES];   /* kept strings' bytes, per field */
};

/* The spec refused at @line (0: as a whole): EXIT_BAD_INPUT; returns -1. */
__attribute__((format(printf, 3, 4)))
int gospec_refuse(struct go_spec *s, long line, const char *fmt, ...);
/* What a field owns: freed with its site, or when the spec refuses it. */
void gospec_field_free(struct field *f);
/*
 * Does @v fit a field of @kind in @size bytes (a spec's numbers are never
 * negative: a signed field's reach its largest)?  Else refused at @line,
 * @what the number as the spec wrote it: -1.
 */
int gospec_fits(struct go_spec *s, long line, const char *what,
		unsigned long long v, enum probe_kind kind, int size);
/* The name of a field type of @kind and @size, as a spec writes it. */
const char *gospec_type_label(enum probe_kind kind, int size);

#endif
