// SPDX-License-Identifier: MIT
/*
 * capture spin: run spin scenarios on a real kernel's spinlock, fold what
 * the kernel reported into windows, write one corpus.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../folders/folder.h"
#include "../../scenarios/spin/asterinas.h"
#include "../../scenarios/spin/domain.h"
#include "../../scenarios/spin/driver.h"
#include "../../scenarios/spin/steps.h"
#include "../command.h"
#include "../corpus.h"
#include "../die.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"
#include "fold-inputs.h"

static const char spin_usage[] =
	"usage: capture spin --scenario NAME|all|domain [options]\n\n"
	"Boot a kernel, run the scenario on one real spinlock, fold the events\n"
	"the kernel reports into (pre, action, post) windows.  Scenarios are the\n"
	"files NN-NAME of scenarios/spin/; \"all\" runs them in NN order into\n"
	"one corpus (window files spin/NN-NAME.ndjson); \"domain\" runs the\n"
	"scenarios generated from spin's audit domain (--cpus 2).\n\n"
	"options:\n"
	"  -s, --scenario NAME  a scenario name, or all\n"
	"  -k, --kernel KERNEL  linux (default: Debian's kernel under QEMU) or\n"
	"                       asterinas\n"
	"      --cpus N         guest CPUs, 1 (default) or 2\n"
	"  -j, --jobs N         scenarios booted at once (default: the number of\n"
	"                       CPUs); the corpus is the same for any N\n"
	"      --asterinas-src DIR  Asterinas source tree (--kernel asterinas)\n"
	"      --emit-ktest     print the Rust kernel test that runs the scenario\n"
	"                       (--kernel asterinas), run nothing\n"
	"      --boot-only      boot the same guest, stop before the scenario,\n"
	"                       write nothing (the floor bench/spin-capture uses)\n"
	"      --fold SYSTEM    spin (default: {lockHeld, lockHolder}) or\n"
	"                       spin-spinning (the state also shows who spins)\n"
	OUTPUT_OPTIONS_HELP("corpus/spin-NAME")
	"  -h, --help           this text\n\n"
	"environment: CAPTURE_CACHE (download and build cache), CAPTURE_ACCEL\n"
	"(tcg or kvm: skip the probe), CAPTURE_GUEST_TIMEOUT (seconds a boot may\n"
	"take, default 60), CAPTURE_GUEST_STALL (seconds a guest may write\n"
	"nothing, default 10), CAPTURE_QEMU (the QEMU binary), CAPTURE_GUEST_BOOT\n"
	"(lean, the default, or classic: the slower boot bench/spin-capture\n"
	"compares it with).\n";

struct spin_args {
	const char *scenario;
	const char *kernel;
	const char *fold;
	int emit_ktest;
	struct spin_run_options run;
	struct output_options out;
};

#define MAX_JOBS 16

/* One boot per CPU: a TCG guest keeps one busy. */
static int default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (int)n;
}

static int parse_jobs(const char *arg)
{
	char *end;
	long j = strtol(arg, &end, 10);

	if (*end || end == arg || j < 1 || j > MAX_JOBS)
		die(EXIT_USAGE, "--jobs: expected a number from 1 to %d, not '%s'",
		    MAX_JOBS, arg);
	return (int)j;
}

static void parse_args(int argc, char **argv, struct spin_args *a)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "cpus", required_argument, NULL, 'c' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "asterinas-src", required_argument, NULL, 'A' },
		{ "boot-only", no_argument, NULL, 'B' },
		{ "emit-ktest", no_argument, NULL, 'E' },
		{ "fold", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		OUTPUT_LONG_OPTIONS,
		{ 0 }
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "s:k:o:j:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's': a->scenario = optarg; break;
		case 'k': a->kernel = optarg; break;
		case 'A': a->run.asterinas_src = optarg; break;
		case 'B': a->run.boot_only = 1; break;
		case 'E': a->emit_ktest = 1; break;
		case 'F': a->fold = optarg; break;
		case 'h': usage(spin_usage, 1);
		case 'j':
			a->run.jobs = parse_jobs(optarg);
			option_unrecorded(optarg);
			break;
		case 'c':
			if (strcmp(optarg, "1") && strcmp(optarg, "2"))
				die(EXIT_USAGE, "--cpus: expected 1 or 2, not '%s'", optarg);
			a->run.cpus = atoi(optarg);
			break;
		default:
			if (!output_option(opt, optarg, &a->out))
				usage(spin_usage, 0);
		}
	}
	if (optind != argc || !a->scenario)
		usage(spin_usage, 0);
}

/* --fold: spin or a projection of it (spin-spinning). */
static const struct folder *fold_lookup(const char *name)
{
	const struct folder *spin = folder_find("spin");
	const struct folder *f = folder_find(name);

	if (!f || (f != spin && f->refines != spin))
		die(EXIT_USAGE, "--fold: '%s' does not fold spin streams "
		    "(spin or spin-spinning)", name);
	return f;
}

static const struct spin_driver *driver_lookup(const char *name)
{
	const struct spin_driver *d = spin_driver_find(name);
	char *known;

	if (d)
		return d;
	known = xstrdup("");
	for (size_t i = 0; spin_drivers[i]; i++) {
		char *more = xasprintf("%s%s%s", known, i ? ", " : "",
				       spin_drivers[i]->name);

		free(known);
		known = more;
	}
	die(EXIT_USAGE, "--kernel: no driver '%s' (known: %s)", name, known);
}

/* What the manifest says about a scenario: its file, digest and steps. */
static cJSON *scenario_entry(const struct spin_scenario *sc, const char *run)
{
	cJSON *e = json_obj();
	char hex[65];

	struct strbuf text = STRBUF_INIT;

	if (sc->generated) {
		spin_scenario_text(sc, &text);
		sha256_hex(text.buf, text.len, hex);
		strbuf_release(&text);
	} else if (sha256_file(sc->path, hex)) {
		die_at(EXIT_BAD_INPUT, sc->path, 0, "cannot read");
	}
	json_add(e, "name", json_str(sc->name));
	json_add(e, "file", json_str(run));
	if (sc->generated)
		json_add(e, "generated", json_str(SPIN_DOMAIN_SET));
	json_add(e, "sha256", json_str(hex));
	json_add(e, "steps", json_int((long long)sc->nsteps));
	return e;
}

/* --boot-only: one boot of the guest, nothing kept. */
static int boot_only(const struct spin_driver *d, const struct spin_scenario *sc,
		     const struct spin_run_options *opt)
{
	char path[] = "/tmp/capture-boot-only-XXXXXX";
	cJSON *env = json_obj();
	int fd = mkstemp(path), cleanup;

	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create a temporary file");
	close(fd);
	cleanup = remove_on_failure(path);
	d->run(sc, 1, opt, (char *const[]){ path }, env);
	remove(path);
	cancel_on_failure(cleanup);
	cJSON_Delete(env);
	return EXIT_OK;
}

/* --emit-ktest: the Asterinas driver's generated kernel test, on stdout. */
static int emit_ktest(const struct spin_driver *d, struct spin_scenario *sc,
		      size_t n)
{
	if (d != &spin_asterinas_driver)
		die(EXIT_USAGE, "--emit-ktest needs --kernel asterinas");
	if (n != 1)
		die(EXIT_USAGE, "--emit-ktest prints one scenario's test, not %zu", n);
	asterinas_write_ktest(&sc[0], stdout);
	spin_scenarios_free(sc, n);
	return EXIT_OK;
}

/* A driver's raw ring-buffer pages carry time stamps: they vary. */
static void vary_ftrace(struct corpus *c, const char *run)
{
	char *rel = xasprintf("raw/%s.ftrace", run);
	char *path = corpus_path(c, rel);

	if (file_exists(path))
		corpus_vary(c, rel, "ftrace ring-buffer pages: their time stamps "
			    "differ from run to run; raw/RUN.log is their decoding");
	free(path);
	free(rel);
}

int cmd_spin(int argc, char **argv)
{
	struct spin_args a = {
		.kernel = "linux", .fold = "spin", .out = OUTPUT_OPTIONS_INIT,
		.run = { .cpus = 1, .jobs = default_jobs() },
	};
	const struct folder *f;
	const struct spin_driver *d;
	struct spin_scenario *sc;
	struct corpus *c;
	struct output_format fmt;
	cJSON *m, *scenarios, *env, *runs;
	char *dir, *raw_dir, **raw;
	size_t n;

	parse_args(argc, argv, &a);
	f = fold_lookup(a.fold);
	d = driver_lookup(a.kernel);
	if (!strcmp(a.scenario, SPIN_DOMAIN_SET) && a.run.cpus != 2)
		die(EXIT_USAGE, "--scenario " SPIN_DOMAIN_SET " needs --cpus 2: "
		    "its lock()s on a held lock spin on the other CPU");
	if (!strcmp(a.scenario, SPIN_DOMAIN_SET) && d != &spin_linux_driver)
		die(EXIT_USAGE, "--scenario " SPIN_DOMAIN_SET " runs on --kernel "
		    "linux: its releases of a lock another actor holds have no "
		    "safe Asterinas SpinLock call");
	n = spin_scenarios_select(a.scenario, &sc);
	if (a.run.boot_only) {
		int rc = boot_only(d, &sc[0], &a.run);

		spin_scenarios_free(sc, n);
		return rc;
	}
	if (a.emit_ktest)
		return emit_ktest(d, sc, n);
	fmt = output_format_for(&a.out, f);
	dir = a.out.dir ? xstrdup(a.out.dir) : xasprintf("corpus/spin-%s", a.scenario);
	c = system_corpus_begin(dir, f, argc, argv);
	scenarios = json_arr();
	env = json_obj();
	runs = json_arr();
	raw = xcalloc(n, sizeof(*raw));
	raw_dir = corpus_path(c, "raw");
	mkdir_p(raw_dir);
	for (size_t i = 0; i < n; i++) {
		char *run = spin_scenario_run_name(&sc[i]);

		raw[i] = xasprintf("%s/%s.log", raw_dir, run);
		json_add(scenarios, NULL, scenario_entry(&sc[i], run));
		free(run);
	}
	d->run(sc, n, &a.run, raw, env);
	for (size_t i = 0; i < n; i++) {
		char *run = spin_scenario_run_name(&sc[i]);

		vary_ftrace(c, run);
		progress("folding raw/%s.log", run);
		fold_input(f, c, run, raw[i], fmt, runs);
		free(raw[i]);
		free(run);
	}
	free(raw);
	free(raw_dir);
	m = corpus_manifest(c);
	json_add(m, "kernel", json_str(d->name));
	json_add(m, "scenarios", scenarios);
	json_add(m, "environment", env);
	system_corpus_commit(c, runs, dir);
	spin_scenarios_free(sc, n);
	free(dir);
	return EXIT_OK;
}
