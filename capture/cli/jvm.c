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

static const char jvm_usage[] =
	"usage: capture jvm --probes SPEC [-o DIR] [options] -- COMMAND [ARGS...]\n"
	"       capture jvm --describe CLASS[.METHOD] -- COMMAND [ARGS...]\n\n"
	"Run COMMAND, a java command (or a script that runs one), with capture's\n"
	"JVMTI agent in every JVM it starts (JAVA_TOOL_OPTIONS), at the sites the\n"
	"probe spec SPEC names: Java methods and source lines, their arguments,\n"
	"locals and fields by path (docs/zookeeper.md, \"The agent\").  The spec is\n"
	"resolved first in a JVM of its own, ended before its program runs.  A run\n"
	"that fails keeps what it captured in DIR.failed/.\n\n"
	"options:\n"
	"  -p, --probes SPEC    the probe spec\n"
	"      --describe WHAT  list a class's fields and methods, or a method's\n"
	"                       sites, arguments, locals and lines, in COMMAND's JVM\n"
	"                       (java -cp CLASSPATH -version will do)\n"
	"      --fold SYSTEM    fold the spec's events with SYSTEM's folder\n"
	"      --timeout S      kill COMMAND after S seconds (default 600)\n"
	OUTPUT_OPTIONS_HELP("corpus/jvm")
	"                       (--form and --json: the windows of --fold)\n"
	"  -h, --help           this text\n";

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
	enum { O_TIMEOUT = 256, O_FOLD, O_DESCRIBE };
	static const struct option longopts[] = {
		{ "probes", required_argument, NULL, 'p' },
		{ "describe", required_argument, NULL, O_DESCRIBE },
		{ "fold", required_argument, NULL, O_FOLD },
		OUTPUT_LONG_OPTIONS,
		{ "timeout", required_argument, NULL, O_TIMEOUT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct jvm_opts o = { .out = OUTPUT_OPTIONS_INIT, .timeout = 600 };
	struct cap_err err;
	int opt;

	/* "+": options end at COMMAND, whose own options are its own. */
	while ((opt = getopt_long(argc, argv, "+p:o:h", longopts, NULL)) != -1) {
		if (opt == 'h')
			usage(jvm_usage, 1);
		else if (opt == 'p')
			o.spec = optarg;
		else if (opt == O_DESCRIBE)
			o.describe = optarg;
		else if (opt == O_FOLD)
			o.fold = system_lookup(optarg)->folder;
		else if (opt == O_TIMEOUT)
			o.timeout = option_seconds(optarg, "--timeout", 1e7);
		else if (!output_option(opt, optarg, &o.out))
			usage(jvm_usage, 0);
	}
	if (optind >= argc || !o.spec == !o.describe)
		usage(jvm_usage, 0);
	if (o.describe) {
		if (jvm_describe(o.describe, argv + optind, stdout, &err))
			die_err(&err);
		return 0;
	}
	if (!o.out.dir)
		o.out.dir = "corpus/jvm";
	capture_jvm(&o, argv + optind, argc, argv);
	return 0;
}
