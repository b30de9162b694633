// SPDX-License-Identifier: MIT
/*
 * The spin system's live entry (capture/live.h): `capture spin` runs its
 * scenarios on a real kernel's spinlock with one of the drivers below.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../../capture/corpus.h"
#include "../../capture/die.h"
#include "../../capture/json.h"
#include "../../capture/options.h"
#include "../../capture/proc.h"
#include "driver.h"

static const char spin_usage[] =
	"usage: capture spin --scenario NAME|all [options]\n\n"
	"Boot a kernel, run the scenario on one real spinlock, fold the events\n"
	"the kernel reports into (pre, action, post) windows.  Scenarios are the\n"
	"files NN-NAME of scenarios/spin/; \"all\" runs them in NN order into\n"
	"one corpus (window files spin/NN-NAME.ndjson).\n\n"
	"options:\n"
	"  -s, --scenario NAME  a scenario name, or all\n"
	"      --scenarios DIR  take the scenario files from DIR (default:\n"
	"                       scenarios/spin)\n"
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
	OUTPUT_OPTIONS_HELP("corpus/spin-NAME")
	"  -h, --help           this text\n\n"
	"environment: CAPTURE_CACHE (download and build cache), CAPTURE_ACCEL\n"
	"(tcg or kvm: skip the probe), CAPTURE_GUEST_TIMEOUT (seconds a boot may\n"
	"take, default 60), CAPTURE_GUEST_STALL (seconds a guest may write\n"
	"nothing, default 10), CAPTURE_QEMU (the QEMU binary), CAPTURE_GUEST_BOOT\n"
	"(lean, the default, or classic: the slower boot bench/spin-capture\n"
	"compares it with).\n";

#define MAX_JOBS 16

enum { O_CPUS = 0x1000, O_BOOT_ONLY };

static const struct option spin_options[] = {
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "jobs", required_argument, NULL, 'j' },
	{ "boot-only", no_argument, NULL, O_BOOT_ONLY },
	{ 0 }
};

static struct spin_run_options opts = { .cpus = 1 };

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

static void spin_option(int opt, const char *arg)
{
	if (opt == 'j') {
		opts.jobs = parse_jobs(arg);
		option_unrecorded(arg);
	} else if (opt == O_CPUS) {
		if (strcmp(arg, "1") && strcmp(arg, "2"))
			die(EXIT_USAGE, "--cpus: expected 1 or 2, not '%s'", arg);
		opts.cpus = atoi(arg);
	} else {
		opts.boot_only = 1;
	}
}

static void spin_prepare(struct live_capture *lc)
{
	struct spin_live *s = xcalloc(1, sizeof(*s));

	s->sc = xcalloc(lc->n, sizeof(*s->sc));
	for (size_t i = 0; i < lc->n; i++)
		spin_scenario_load(lc->sc[i].path, &s->sc[i]);
	s->opt = opts;
	if (!s->opt.jobs)
		s->opt.jobs = default_jobs();
	lc->data = s;
}

/* --boot-only: one boot of the guest, nothing kept. */
static int spin_instead(struct live_capture *lc)
{
	char path[] = "/tmp/capture-boot-only-XXXXXX";
	struct live_capture one = *lc;
	int fd, cleanup;

	if (!opts.boot_only)
		return -1;
	if (!lc->scenario)
		live_usage(lc);
	fd = mkstemp(path);
	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create a temporary file");
	close(fd);
	cleanup = remove_on_failure(path);
	one.n = 1;
	one.raw = (char *[]){ path };
	lc->driver->run(&one);
	remove(path);
	cancel_on_failure(cleanup);
	return EXIT_OK;
}

/* A driver's raw ring-buffer pages carry time stamps: they vary. */
static void vary_ftrace(struct live_capture *lc)
{
	for (size_t i = 0; i < lc->n; i++) {
		char *rel = xasprintf("raw/%s.ftrace", lc->sc[i].run);
		char *path = corpus_path(lc->corpus, rel);

		if (file_exists(path))
			corpus_vary(lc->corpus, rel, "ftrace ring-buffer pages: their "
				    "time stamps differ from run to run; raw/RUN.log "
				    "is their decoding");
		free(path);
		free(rel);
	}
}

/*
 * The raw ring-buffer pages vary; the kernel, and what the manifest says
 * about each scenario: its file, digest and steps.
 */
static void spin_describe(struct live_capture *lc, cJSON *m)
{
	const struct spin_live *s = lc->data;
	cJSON *scenarios = json_arr();

	vary_ftrace(lc);
	json_add(m, "kernel", json_str(lc->driver->name));
	for (size_t i = 0; i < lc->n; i++) {
		cJSON *e = json_obj();
		char hex[65];

		if (sha256_file(lc->sc[i].path, hex))
			die_at(EXIT_BAD_INPUT, lc->sc[i].path, 0, "cannot read");
		json_add(e, "name", json_str(lc->sc[i].name));
		json_add(e, "file", json_str(lc->sc[i].run));
		json_add(e, "sha256", json_str(hex));
		json_add(e, "steps", json_int((long long)s->sc[i].nsteps));
		json_add(scenarios, NULL, e);
	}
	json_add(m, "scenarios", scenarios);
}

static void spin_release(struct live_capture *lc)
{
	struct spin_live *s = lc->data;

	spin_scenarios_free(s->sc, lc->n);
	free(s);
}

static const struct live_driver *const spin_drivers[] = {
	&spin_linux_driver,
	&spin_asterinas_driver,
	NULL,
};

const struct live_system live_spin = {
	.summary = "run a scenario on a real kernel's spinlock, fold it",
	.usage = spin_usage,
	.shortopts = "k:j:",
	.options = spin_options,
	.option = spin_option,
	.driver_option = { "kernel", required_argument, NULL, 'k' },
	.drivers = spin_drivers,
	.raw_ext = "log",
	.prepare = spin_prepare,
	.instead = spin_instead,
	.describe = spin_describe,
	.release = spin_release,
};
