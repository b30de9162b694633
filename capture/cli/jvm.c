// SPDX-License-Identifier: MIT
/*
 * capture jvm: run a Java program, its jar unmodified, with the probe
 * spec's sites in every JVM it starts (jvm/engine.h: a JVMTI agent,
 * breakpoints at the probed methods only), and write every record
 * (raw/NAME.ndjson) and the event it becomes (events/NAME.ndjson), as
 * capture go does; --fold folds the events with a system's folder.  The
 * spec is resolved first in a JVM of its own (the same command, ended
 * when it starts): a refusal names SPEC:LINE and writes nothing.
 * --describe says what a class or method offers a spec.
 */
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../bpf/gospec.h"
#include "../../jvm/engine.h"
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../err.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "../projection.h"

static const char jvm_usage[] =
	"usage: capture jvm --probes SPEC [-o DIR] [options] -- COMMAND [ARGS...]\n"
	"       capture jvm --describe CLASS[.METHOD] -- COMMAND [ARGS...]\n\n"
	"Run COMMAND, a java command (or a script that runs one), with capture's\n"
	"JVMTI agent in every JVM it starts (JAVA_TOOL_OPTIONS), at the sites the\n"
	"probe spec SPEC names: Java methods and source lines, their arguments,\n"
	"locals and fields by path (docs/zookeeper.md, \"The agent\").  The spec is\n"
	"resolved first in a JVM of its own, ended before its program runs.  A run\n"
	"that fails keeps what it captured in DIR.failed/.\n";

struct jvm_opts {
	const char *spec, *describe;
	const struct folder *fold;
	struct output_options out;
	double timeout;
};

static void hash_into(cJSON *obj, const char *key, const char *path)
{
	char hex[65];

	if (sha256_file(path, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", path);
	json_add(obj, key, json_str(hex));
}

static void summary(const cJSON *m, const struct jvm_stats *st)
{
	long long events = 0;

	for (const cJSON *e = json_get(m, "events") ? json_get(m, "events")->child : NULL;
	     e; e = e->next)
		events += (long long)e->valuedouble;
	progress("%llu records from %d JVM%s, %lld events, 0 lost", st->records, st->jvms,
		 st->jvms == 1 ? "" : "s", events);
}

static void capture_jvm(const struct jvm_opts *o, char **cmd, int argc, char **argv)
{
	struct cap_err err;
	struct go_spec *spec = go_spec_parse(o->spec, &err);
	struct jvm_engine *e;
	char *name, *raw_rel, *ev_rel;
	struct corpus *c;
	FILE *raw, *events;
	cJSON *m, *env;
	int rc;

	if (!spec || !(e = jvm_open(spec, o->spec, &err)))
		die_err(&err);
	progress("resolving %s in a JVM of %s", o->spec, cmd[0]);
	if (jvm_check(e, cmd, &err))
		die_err(&err);
	name = xstrdup(basename(cmd[0]));
	raw_rel = xasprintf("raw/%s.ndjson", name);
	ev_rel = xasprintf(o->fold ? "raw/%s.events.ndjson" : "events/%s.ndjson", name);
	c = spec_corpus_begin(&o->out, o->fold, argc, argv);
	m = corpus_manifest(c);
	env = json_add(m, "environment", json_obj());
	hash_into(env, "spec_sha256", o->spec);
	hash_into(env, "agent_sha256", jvm_agent_path(&err));
	raw = corpus_create(c, raw_rel);
	events = corpus_create(c, ev_rel);
	corpus_keep_failed(c);
	go_spec_output(spec, raw, events);
	progress("running %s under the probes of %s", cmd[0], o->spec);
	rc = jvm_run(e, cmd, o->timeout, go_spec_record, spec, &err);
	if (rc < 0)
		die_err(&err);
	if (rc)
		die(EXIT_CAPTURE_FAILED, "%s exited with status %d", cmd[0], rc);
	json_add(json_add(m, "losses", json_obj()), "messages_lost", json_int(0));
	if (go_spec_end(spec, m, &err))
		die_err(&err);
	json_add(m, "jvms", json_int(jvm_stats(e)->jvms));
	summary(m, jvm_stats(e));
	corpus_close(c, raw, raw_rel);
	corpus_close(c, events, ev_rel);
	spec_corpus_finish(&o->out, o->fold, c, name, ev_rel);
	jvm_close(e);
	go_spec_free(spec);
	free(raw_rel);
	free(ev_rel);
	free(name);
}

int cmd_jvm(int argc, char **argv)
{
	struct jvm_opts o = { .out = OUTPUT_OPTIONS_INIT, .timeout = 600 };
	const struct opt options[] = {
		OPT_STRING('p', "probes", &o.spec, "SPEC", "the probe spec"),
		OPT_STRING(0, "describe", &o.describe, "WHAT", "list a class's "
			   "fields and methods, or a method's\nsites, arguments, "
			   "locals and lines, in COMMAND's JVM\n(java -cp CLASSPATH "
			   "-version will do)"),
		OPT_CALLBACK(0, "fold", &o.fold, "SYSTEM", spec_fold_option,
			     "fold the spec's events with SYSTEM's folder"),
		SPEC_TIMEOUT_ROW(&o.timeout),
		OPT_OUTPUT(&o.out, "corpus/jvm"),
		OPT_NOTE("(--form and --json: the windows of --fold)"),
		OPT_HELP(),
		OPT_END(),
	};
	/* options end at COMMAND, whose own options are its own */
	const struct opt_command cmd = { jvm_usage, options, NULL, OPT_STOP_AT_OPERAND };
	int first = parse_options(&cmd, argc, argv);
	struct cap_err err;

	if (first >= argc || !o.spec == !o.describe)
		opt_usage(&cmd, 0);
	if (o.describe) {
		if (jvm_describe(o.describe, argv + first, stdout, &err))
			die_err(&err);
		return 0;
	}
	if (!o.out.dir)
		o.out.dir = "corpus/jvm";
	capture_jvm(&o, argv + first, argc, argv);
	return 0;
}
