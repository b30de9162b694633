// SPDX-License-Identifier: MIT
/* Running a folder over one input: the part every system shares. */
#include <errno.h>
#include <libgen.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "audit.h"
#include "corpus.h"
#include "die.h"
#include "json.h"
#include "proc.h"
#include "fold.h"

void fold_run_windows(struct fold_run *run, const struct folder *f,
		      const cJSON *initial)
{
	char *rel = xasprintf("%s/%s%s", f->name, run->name,
			      window_file_ext(run->fmt.form));
	struct audit_pass *audit;

	if (run->windows)
		die(EXIT_CAPTURE_FAILED, "folder %s opened windows twice", f->name);
	run->itf = (struct itf_head){
		.system = f->name, .source = run->source, .run = run->name,
		.types = f->itf, .actor = f->actor,
	};
	run->windows = windows_open(run->corpus, rel, run->fmt, initial,
				    &run->itf);
	audit = run->corpus ? corpus_audit(run->corpus) : NULL;
	if (audit) {
		audit_pass_run(audit, rel);
		windows_observe(run->windows, audit_pass_window, audit);
	}
	else if (run->observe)   /* a check-only fold: no audit */
		windows_observe(run->windows, run->observe, run->observe_ctx);
	free(rel);
}

void fold_run_never_completing(struct fold_run *run, const char *action,
			       cJSON *data)
{
	cJSON *calls = cJSON_GetObjectItemCaseSensitive(run->info,
							"never_completing");
	cJSON *call;

	if (!calls)
		calls = json_add(run->info, "never_completing", json_arr());
	call = json_add(calls, NULL, json_obj());
	json_add(call, "action", json_str(action));
	json_add(call, "data", data);
	json_add(call, "pre_state", cJSON_Duplicate(
		windows_never_completing(run->windows, action, data), 1));
}

/*
 * The sha256 of the input's files, for the manifest.  Hashing is a tenth of
 * a fold's work and needs nothing from it: a thread does it on the other
 * core while the folder runs.
 */
struct input_digest {
	int dir;           /* a directory: {name: sha256}, else a string */
	char **names;      /* files (names in the directory), sorted */
	char **paths;
	size_t n;
	char (*hex)[65];
	long failed;       /* index of a file that could not be read, or -1 */
	atomic_int stop;   /* the fold failed: give up */
	pthread_t thread;
	int on_fail;       /* joins the thread before exit() tears stdio down */
};

/*
 * What a reader may be given: a regular file.  A device (/dev/zero, or a
 * link to one) is never a recorded stream and may never end; a pipe inside
 * a run directory would be read twice, by the fold and the digest.
 */
static void must_be_file(const char *path, const struct stat *st)
{
	refuse_device(path, path);
	if (!S_ISREG(st->st_mode))
		die_at(EXIT_BAD_INPUT, path, 0, "not a regular file");
}

static void add_file(struct input_digest *d, const char *name, char *path)
{
	struct stat st;

	if (stat(path, &st) || access(path, R_OK))
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read");
	must_be_file(path, &st);
	d->names = xrealloc(d->names, (d->n + 1) * sizeof(*d->names));
	d->paths = xrealloc(d->paths, (d->n + 1) * sizeof(*d->paths));
	d->names[d->n] = xstrdup(name);
	d->paths[d->n++] = path;
}

/*
 * The input's files: @path (@input itself or its copy), or the directory's
 * files but dot files.
 */
static void list_input(struct input_digest *d, const char *input,
		       const char *path)
{
	struct stat st;
	char **names;
	size_t n;

	if (stat(path, &st))
		die_at(EXIT_BAD_INPUT, input, 0, "no such file or directory");
	if (!S_ISDIR(st.st_mode)) {
		add_file(d, input, xstrdup(path));
		return;
	}
	d->dir = 1;
	names = list_dir(input, NULL, &n);
	if (!names)
		die_at(EXIT_BAD_INPUT, input, 0, "cannot open directory");
	for (size_t i = 0; i < n; i++)
		add_file(d, names[i], xasprintf("%s/%s", input, names[i]));
	free_names(names, n);
}

static void *hash_files(void *arg)
{
	struct input_digest *d = arg;

	for (size_t i = 0; i < d->n && d->failed < 0 && !d->stop; i++)
		if (sha256_file_unless(d->paths[i], d->hex[i], &d->stop))
			d->failed = (long)i;
	return NULL;
}

/* The fold failed: the hashes are of no use, stop before exit(). */
static void stop_hashing(void *arg)
{
	struct input_digest *d = arg;

	d->stop = 1;
	pthread_join(d->thread, NULL);
}

static void digest_start(struct input_digest *d, const char *input,
			 const char *path)
{
	memset(d, 0, sizeof(*d));
	d->failed = -1;
	list_input(d, input, path);
	d->hex = xcalloc(d->n + 1, sizeof(*d->hex));
	d->on_fail = start_worker(&d->thread, "capture-hash",
				    hash_files, stop_hashing, d);
}

/* Wait for the hashes: a string for a file, {name: sha256} for a directory. */
static cJSON *digest_finish(struct input_digest *d)
{
	cJSON *files = d->dir ? json_obj() : NULL;

	cancel_on_failure(d->on_fail);
	pthread_join(d->thread, NULL);
	if (d->failed >= 0)
		die_at(EXIT_BAD_INPUT, d->paths[d->failed], 0, "cannot read");
	if (!d->dir)
		files = json_str(d->hex[0]);
	for (size_t i = 0; i < d->n; i++) {
		if (d->dir)
			json_add(files, d->names[i], json_str(d->hex[i]));
		free(d->names[i]);
		free(d->paths[i]);
	}
	free(d->names);
	free(d->paths);
	free(d->hex);
	return files;
}

/* The temporary copy of an input that can be read only once. */
struct input_copy {
	char *path;       /* NULL: the input is read as it is */
	int cleanup;
};

static void copy_stream(const char *input, FILE *in, int fd, const char *to)
{
	char buf[65536];
	size_t n;

	int err;

	/* a short write is no error of its own: the next one says why (ENOSPC) */
	while ((n = fread(buf, 1, sizeof(buf), in)))
		if ((err = write_all(fd, buf, n)))
			die(EXIT_CAPTURE_FAILED, "cannot copy %s to %s: %s", input,
			    to, strerror(err));
	if (ferror(in))
		die_at(EXIT_BAD_INPUT, input, 0, "read error: %s", strerror(errno));
}

/*
 * A pipe, a FIFO or "-" (standard input) can be read only once, and both
 * the fold and the digest read the input (at once, on two threads): it is
 * copied whole into a temporary file first, which both then read.  A FIFO
 * without a writer blocks here, on the main thread, where a signal still
 * ends the run.
 */
static void copy_if_stream(struct input_copy *cp, const char *input)
{
	struct stat st;
	FILE *in;
	int fd;

	cp->path = NULL;
	if (strcmp(input, "-") &&
	    (stat(input, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return;   /* list_input() names what is wrong with it */
	if (strcmp(input, "-") && !S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode))
		must_be_file(input, &st);
	cp->path = owned_tmp_in(temp_dir(), "capture-input");
	fd = mkstemp_on_failure(cp->path, &cp->cleanup);
	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s: %s", cp->path,
		    strerror(errno));
	in = strcmp(input, "-") ? fopen(input, "rb") : stdin;
	if (!in)
		die_at(EXIT_BAD_INPUT, input, 0, "cannot open: %s", strerror(errno));
	copy_stream(input, in, fd, cp->path);
	if (in != stdin)
		fclose(in);
	if (close(fd))
		die(EXIT_CAPTURE_FAILED, "cannot write %s: %s", cp->path,
		    strerror(errno));
}

static void copy_remove(struct input_copy *cp)
{
	if (!cp->path)
		return;
	unlink(cp->path);
	cancel_on_failure(cp->cleanup);
	free(cp->path);
}

/* fold_input() of @run (name, input, corpus, fmt and the options set). */
static void fold_one(const struct folder *f, struct fold_run run, cJSON *runs)
{
	const char *name = run.name, *input = run.path ? run.path : run.input;
	char *rel = xasprintf("events/%s.ndjson", name);
	struct input_copy copy;
	struct input_digest d;
	cJSON *digest;
	long nevents;

	copy_if_stream(&copy, input);
	run.path = copy.path ? copy.path : input;
	digest_start(&d, input, run.path);
	run.events = events_open(run.corpus, rel);
	run.repairs = json_arr();
	run.counts = json_obj();
	run.info = json_obj();
	f->fold(&run);
	if (!run.windows)
		die_at(EXIT_CHECK_FAILED, run.input, 0, "no %s run found", f->name);
	windows_close(run.windows, run.counts);
	/*
	 * a run that shows no step is no ground truth, whatever it parsed
	 * (an observed fold only counts what it shows)
	 */
	if (!run.counts->child && !run.observe)
		die_at(EXIT_CHECK_FAILED, run.input, 0,
		       "no windows: the run shows no %s action", f->name);
	nevents = events_close(run.events);
	free(rel);
	digest = digest_finish(&d);
	copy_remove(&copy);
	if (!runs) {
		cJSON_Delete(digest);
		cJSON_Delete(run.repairs);
		cJSON_Delete(run.counts);
		cJSON_Delete(run.info);
		return;
	}
	cJSON *r = json_add(runs, NULL, json_obj());
	json_add(r, "name", json_str(name));
	json_add(r, "input", json_str(run.source));
	json_add(r, "input_sha256", digest);
	json_add(r, "events", json_int(nevents));
	json_add(r, "windows", run.counts);
	json_add(r, "repairs", run.repairs);
	json_add(r, "info", run.info);
}

void fold_input_mapped(const struct folder *f, struct corpus *c,
		       const char *name, const char *input,
		       struct output_format fmt, cJSON *runs,
		       const char *step_map)
{
	const char *inside = c ? corpus_rel(c, input) : NULL;
	/* a message names where a failure keeps the file (corpus_keep_failed) */
	char *kept = c ? corpus_kept_path(c, input) : NULL;

	fold_one(f, (struct fold_run){
		.name = name, .input = kept ? kept : input, .path = input,
		.corpus = c, .fmt = fmt, .source = inside ? inside : input,
		.step_map = step_map,
	}, runs);
	free(kept);
}

void fold_input(const struct folder *f, struct corpus *c, const char *name,
		const char *input, struct output_format fmt, cJSON *runs)
{
	fold_input_mapped(f, c, name, input, fmt, runs, NULL);
}

void fold_observed(const struct folder *f, const char *input,
		   const char *step_map, window_observer *fn, void *ctx)
{
	fold_one(f, (struct fold_run){
		.name = "explored", .input = input, .source = input,
		.fmt = { .form = f->form }, .observe = fn, .observe_ctx = ctx,
		.step_map = step_map,
	}, NULL);
}

/*
 * Run name: the input's last path component without its extension;
 * "stdin" for "-".
 */
static char *run_name(const char *input)
{
	char *copy = xstrdup(strcmp(input, "-") ? input : "stdin");
	size_t n = strlen(copy);

	while (n > 1 && copy[n - 1] == '/')
		copy[--n] = '\0';
	char *name = xstrdup(basename(copy));
	char *dot = strrchr(name, '.');

	if (dot && dot != name)
		*dot = '\0';
	free(copy);
	return name;
}

cJSON *fold_inputs(const struct folder *f, struct corpus *c, int n,
		   char **inputs, struct output_format fmt)
{
	cJSON *runs = json_arr();
	char **names = xcalloc(n, sizeof(*names));

	for (int i = 0; i < n; i++) {
		names[i] = run_name(inputs[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(names[i], names[j]))
				die(EXIT_USAGE, "inputs %s and %s would both be run '%s'",
				    inputs[j], inputs[i], names[i]);
	}
	for (int i = 0; i < n; i++)
		fold_input(f, c, names[i], inputs[i], fmt, runs);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return runs;
}
