// SPDX-License-Identifier: MIT
/*
 * capture go: run any Go program, unmodified, under the uprobe engine
 * (bpf/) with the probes a spec names (bpf/gospec.c, docs/go.md), and write
 * every record (raw/NAME.ndjson) and the event it becomes
 * (events/NAME.ndjson), NAME the binary's file name.  The processes the
 * program starts are probed too, each record carrying its process's index.
 * With --fold SYSTEM the spec's events are the folder's input
 * (raw/NAME.events.ndjson), folded as every other capture's raw stream.
 * A run that fails keeps what it captured in DIR.failed/.  --describe
 * says what a binary offers a spec (bpf/describe.h).
 *
 * capture probe: the same engine on any ELF with DWARF, Go, C, C++ or Rust,
 * the ABI chosen from its DW_AT_language (docs/probes.md); its manifest
 * records the binary's GNU build id and that language.
 */
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/describe.h"
#include "../../bpf/engine.h"
#include "../../bpf/gocommand.h"
#include "../../bpf/gospec.h"
#include "../fold.h"
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../err.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "../projection.h"
#include "../system-corpus.h"
#include "goprobe.skel.h"

static const char go_usage[] =
	"usage: capture go --probes SPEC [-o DIR] [options] -- COMMAND [ARGS...]\n"
	"       capture go --describe BINARY [PATTERN|SYMBOL] [--addresses]\n\n"
	"Run COMMAND, a Go binary with DWARF, under eBPF uprobes placed as the probe\n"
	"spec SPEC says (docs/go.md), with every process it starts; write each record\n"
	"and the event it becomes.  Needs root (or CAP_BPF and CAP_PERFMON).  A run\n"
	"that fails keeps what it captured in DIR.failed/.\n";

static const char probe_usage[] =
	"usage: capture probe --probes SPEC [-o DIR] [options] -- COMMAND [ARGS...]\n"
	"       capture probe --probes SPEC -p PID [--seconds S] [-o DIR] [options]\n"
	"       capture probe --describe BINARY [PATTERN|SYMBOL] [--addresses]\n\n"
	"Run COMMAND, an ELF binary with DWARF (Go, C, C++ or Rust: the ABI is chosen\n"
	"from its DW_AT_language), under eBPF uprobes placed as the probe spec SPEC\n"
	"says (docs/probes.md), with every process it starts; or probe the running\n"
	"process PID until it exits, S seconds pass or SIGINT, leaving it running\n"
	"(docs/libraries.md); write each record and the event it becomes.  Needs\n"
	"root (or CAP_BPF and CAP_PERFMON).\n";

struct go_opts {
	const char *spec, *describe;
	int addresses, probe;   /* probe: capture probe, any ABI */
	const struct folder *fold;
	struct output_options out;
	double timeout;
	struct ring_options ring;
	pid_t pid;              /* capture probe -p: a running process */
	double seconds;         /* with pid: how long (0: until it exits) */
};

/* The program running process @pid: its executable's path (caller frees). */
static char *process_binary(pid_t pid)
{
	char *link = xasprintf("/proc/%d/exe", (int)pid), *path = realpath(link, NULL);

	if (!path)
		die(EXIT_BAD_INPUT, "process %d: %s (no such process, or not ours to read)",
		    (int)pid, strerror(errno));
	free(link);
	return path;
}

/* COMMAND as execv() takes it: a path, or the first match on PATH. */
static char *find_command(const char *cmd)
{
	const char *path = getenv("PATH");
	char *dirs, *save = NULL;

	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK))
			die(EXIT_USAGE, "%s: not an executable file", cmd);
		return xstrdup(cmd);
	}
	dirs = xstrdup(path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", d, cmd);

		if (!access(p, X_OK)) {
			free(dirs);
			return p;
		}
		free(p);
	}
	die(EXIT_USAGE, "%s: no such command on PATH", cmd);
}

static void hash_into(cJSON *obj, const char *key, const char *path)
{
	char hex[65];

	if (sha256_file(path, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", path);
	json_add(obj, key, json_str(hex));
}

/* The separate debug file @b's DWARF came from, and its digest (none: nothing). */
static void debug_file(cJSON *obj, struct probe_binary *b)
{
	const char *debug = probe_debug_path(b);

	if (!debug)
		return;
	json_add(obj, "debug_file", json_str(debug));
	hash_into(obj, "debug_sha256", debug);
}

/* Each library probed: its file, digest, build id and debug file. */
static void libraries(cJSON *env, struct gp_engine *e)
{
	cJSON *libs;

	if (gp_nobjects(e) < 2)
		return;
	libs = json_add(env, "libraries", json_arr());
	for (unsigned i = 1; i < gp_nobjects(e); i++) {
		struct probe_binary *b = gp_object_at(e, i);
		cJSON *lib = json_obj();

		cJSON_AddItemToArray(libs, lib);
		json_add(lib, "path", json_str(probe_path(b)));
		hash_into(lib, "sha256", probe_path(b));
		json_add(lib, "build_id", json_str(probe_gnu_build_id(b)));
		json_add(lib, "language", json_str(probe_language(b)));
		debug_file(lib, b);
	}
}

static void describe(cJSON *m, const char *bin, struct gp_engine *e,
		     const char *spec, int probe)
{
	cJSON *env = json_add(m, "environment", json_obj());
	size_t sz;
	const void *obj = goprobe__elf_bytes(&sz);
	char hex[65];
	enum gp_attach how;
	struct cap_err err;

	if (gp_attach_path(&how, &err))
		die_err(&err);
	hash_into(env, "binary_sha256", bin);
	if (probe) {
		json_add(env, "build_id", json_str(probe_gnu_build_id(gp_binary(e))));
		json_add(env, "language", json_str(probe_language(gp_binary(e))));
		debug_file(env, gp_binary(e));
		libraries(env, e);
	} else {
		json_add(env, "go_build_id", json_str(go_build_id(gp_binary(e))));
	}
	hash_into(env, "spec_sha256", spec);
	sha256_hex(obj, sz, hex);
	json_add(env, "bpf_object_sha256", json_str(hex));
	json_add(env, "attach", json_str(gp_attach_name(how)));
}

/* The run's one summary line: records, events, losses (all 0 here). */
static void summary(const cJSON *m, const struct gp_stats *st)
{
	long long events = 0;

	for (const cJSON *e = json_get(m, "events") ? json_get(m, "events")->child : NULL;
	     e; e = e->next)
		events += (long long)e->valuedouble;
	progress("%llu records, %lld events, %llu lost (ring-buffer drops, exits "
		 "without entry, frames not saved, probes preempted)",
		 st->records, events, st->drops + st->unmatched_exits +
		 st->depth_overflow + st->busy);
}

/* The loss counters, all zero: gp_run() fails the capture on any. */
static void add_losses(cJSON *m, const struct gp_stats *st)
{
	cJSON *l = json_add(m, "losses", json_obj());

	json_add(l, "ring_buffer_drops", json_int((long long)st->drops));
	json_add(l, "exits_without_entry", json_int((long long)st->unmatched_exits));
	json_add(l, "frames_not_saved", json_int((long long)st->depth_overflow));
	json_add(l, "probes_preempted", json_int((long long)st->busy));
}

struct corpus *spec_corpus_begin(const struct output_options *out, const struct folder *fold,
				 int argc, char **argv)
{
	if (fold)
		return system_corpus_begin(out->dir, fold, argc, argv);
	return command_corpus_begin(out->dir, argc, argv);
}

void spec_corpus_finish(const struct output_options *out, const struct folder *fold,
			struct corpus *c, const char *name, const char *ev_rel)
{
	cJSON *runs;
	char *events;

	if (!fold) {
		corpus_commit(c);
		printf("%s\n", out->dir);
		return;
	}
	runs = json_arr();
	events = corpus_path(c, ev_rel);
	fold_input(fold, c, name, events, output_format_for(out, fold), runs);
	system_corpus_commit(c, runs, out->dir);
	free(events);
}

/*
 * A spec that declares a projection folds its events by it, unless --fold;
 * the projection's names are checked against the spec's events first.
 */
static void fold_by_projection(struct go_opts *o, const struct go_spec *spec)
{
	const struct system *sys;
	struct cap_err err;
	cJSON *events;
	int rc;

	if (o->fold)
		return;
	if (projection_load(o->spec, &sys, &err))
		die_err(&err);
	if (!sys)
		return;
	events = go_spec_schema(spec);
	rc = projection_check_events(sys, events, &err);
	cJSON_Delete(events);
	if (rc)
		die_err(&err);
	o->fold = sys->folder;
}

static void capture_go(struct go_opts *o, char **cmd, int argc, char **argv)
{
	struct cap_err err;
	struct go_spec *spec = go_spec_parse(o->spec, &err);
	char *bin, *name, *raw_rel, *ev_rel;
	struct gp_engine *e;
	struct corpus *c;
	FILE *raw, *events;
	cJSON *m;
	int rc;

	if (!spec)
		die_err(&err);
	fold_by_projection(o, spec);
	phase("setup");
	bin = o->pid ? process_binary(o->pid) : find_command(cmd[0]);
	if (!o->probe && go_command_check(bin, cmd, &err))
		die_err(&err);
	e = gp_open(bin, &err);
	if (!e)
		die_err(&err);
	name = xstrdup(basename(bin));
	raw_rel = xasprintf("raw/%s.ndjson", name);
	ev_rel = xasprintf(o->fold ? "raw/%s.events.ndjson" : "events/%s.ndjson", name);
	if (o->pid)
		gp_set_pid(e, o->pid);
	else
		gp_follow(e);
	gp_set_ring(e, o->ring.bytes, o->ring.hold);
	phase("ELF and DWARF");
	gp_preload(e);
	if (go_spec_probe(spec, e, &err) || gp_may_probe(&err))
		die_err(&err);
	phase("spec resolved");
	c = spec_corpus_begin(&o->out, o->fold, argc, argv);
	m = corpus_manifest(c);
	describe(m, bin, e, o->spec, o->probe);
	raw = corpus_create(c, raw_rel);
	events = corpus_create(c, ev_rel);
	corpus_keep_failed(c);
	go_spec_output(spec, raw, events);
	phase("corpus opened");
	if (!o->pid)
		progress("running %s under the probes of %s", bin, o->spec);
	rc = gp_run(e, cmd, NULL, o->pid ? o->seconds : o->timeout, go_spec_record, spec, &err);
	if (rc < 0)
		die_err(&err);
	if (rc)
		die(EXIT_CAPTURE_FAILED, "%s exited with status %d", bin, rc);
	add_losses(m, gp_stats(e));
	if (go_spec_end(spec, m, &err))
		die_err(&err);
	summary(m, gp_stats(e));
	corpus_close(c, raw, raw_rel);
	corpus_close(c, events, ev_rel);
	spec_corpus_finish(&o->out, o->fold, c, name, ev_rel);
	gp_close(e);
	go_spec_free(spec);
	free(raw_rel);
	free(ev_rel);
	free(name);
	free(bin);
}

/*
 * --describe BINARY [WHAT] [--addresses]: what the binary offers a spec,
 * on stdout ("+" ends getopt's options at WHAT: --addresses may follow it).
 */
static void describe_binary(const struct go_opts *o, const struct opt_command *cmd,
			    int argc, char **argv)
{
	const char *what = NULL;
	int addresses = o->addresses;
	struct cap_err err;
	struct probe_binary *b;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--addresses"))
			addresses = 1;
		else if (what)
			opt_usage(cmd, 0);
		else
			what = argv[i];
	}
	if (o->spec || o->pid)
		opt_usage(cmd, 0);
	b = probe_open(o->describe, &err);
	if (!b || probe_describe(b, what, addresses, stdout, &err))
		die_err(&err);
	probe_close(b);
}

int spec_fold_option(const struct opt *o, const char *arg, struct cap_err *err)
{
	(void)err;
	*(const struct folder **)o->value = system_lookup(arg)->folder;
	return 0;
}

/* The rows capture go and probe share after --describe. */
#define GO_RUN_ROWS(o) \
	OPT_FLAG(0, "addresses", &(o)->addresses, "with --describe: the file " \
		 "offsets of a SYMBOL's probes"), \
	OPT_CALLBACK(0, "fold", &(o)->fold, "SYSTEM", spec_fold_option, \
		     "fold the spec's events with SYSTEM's folder (a spec\nwith a " \
		     "projection folds them by it: docs/projection.md)"), \
	SPEC_TIMEOUT_ROW(&(o)->timeout), \
	OPT_RING(&(o)->ring, "COMMAND")

/* capture go and capture probe: @cmd's table fills @o. */
static int go_or_probe(struct go_opts *o, const struct opt_command *cmd,
		       int argc, char **argv)
{
	int first = parse_options(cmd, argc, argv);

	if (o->describe) {
		describe_binary(o, cmd, argc - first, argv + first);
		return 0;
	}
	if (!o->out.dir)
		o->out.dir = o->probe ? "corpus/probe" : "corpus/go";
	/* -p PID or a COMMAND, not both; --seconds is -p's */
	if (!o->spec || (first >= argc) == !o->pid || (o->seconds && !o->pid))
		opt_usage(cmd, 0);
	capture_go(o, argv + first, argc, argv);
	return 0;
}

int cmd_go(int argc, char **argv)
{
	struct go_opts o = { .out = OUTPUT_OPTIONS_INIT, .timeout = 600 };
	const struct opt options[] = {
		OPT_STRING('p', "probes", &o.spec, "SPEC", "the probe spec"),
		OPT_STRING(0, "describe", &o.describe, "BINARY", "list BINARY's "
			   "functions matching PATTERN (a glob,\nor a substring; "
			   "default main.*), or describe SYMBOL:\narguments, results, "
			   "their fields, RET sites, inlining"),
		GO_RUN_ROWS(&o),
		OPT_OUTPUT(&o.out, "corpus/go"),
		OPT_NOTE("(--form and --json: the windows of --fold)"),
		OPT_HELP(),
		OPT_END(),
	};
	/* options end at COMMAND, whose own options are its own */
	const struct opt_command cmd = { go_usage, options, NULL, OPT_STOP_AT_OPERAND };

	return go_or_probe(&o, &cmd, argc, argv);
}

int cmd_probe(int argc, char **argv)
{
	struct go_opts o = { .out = OUTPUT_OPTIONS_INIT, .timeout = 600, .probe = 1 };
	const struct opt options[] = {
		OPT_STRING(0, "probes", &o.spec, "SPEC", "the probe spec"),
		OPT_NUMBER('p', "pid", &o.pid, "PID", 1, 1 << 22, "probe this running "
			   "process (no ptrace, no signal)"),
		OPT_SECONDS(0, "seconds", &o.seconds, "S", 1e7, "with -p: end after S "
			    "seconds, the corpus written"),
		OPT_STRING(0, "describe", &o.describe, "BINARY", "list BINARY's "
			   "functions matching PATTERN (a glob,\nor a substring; "
			   "default: Go's main.*, a Rust crate's\nown, every C one), "
			   "or describe SYMBOL: arguments,\ntypes, fields, RET sites, "
			   "tail calls, inlining"),
		GO_RUN_ROWS(&o),
		OPT_OUTPUT(&o.out, "corpus/probe"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { probe_usage, options, NULL, OPT_STOP_AT_OPERAND };

	return go_or_probe(&o, &cmd, argc, argv);
}
