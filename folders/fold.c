// SPDX-License-Identifier: MIT
/* Running a folder over one input: the part every system shares. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "../capture/corpus.h"
#include "../capture/die.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "folder.h"

void fold_run_windows(struct fold_run *run, const struct folder *f,
		      const cJSON *initial)
{
	char *rel = xasprintf("%s/%s.ndjson", f->name, run->name);

	if (run->windows)
		die(EXIT_CAPTURE_FAILED, "folder %s opened windows twice", f->name);
	run->windows = windows_open(run->corpus, rel, run->fmt, initial);
	free(rel);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static cJSON *file_digest(const char *path)
{
	char hex[65];

	if (sha256_file(path, hex))
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read");
	return json_str(hex);
}

/* sha256 of the input: a string for a file, {name: sha256} for a directory. */
static cJSON *input_digest(const char *input)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	cJSON *files;
	DIR *d;

	if (stat(input, &st))
		die_at(EXIT_BAD_INPUT, input, 0, "no such file or directory");
	if (!S_ISDIR(st.st_mode))
		return file_digest(input);
	d = opendir(input);
	if (!d)
		die_at(EXIT_BAD_INPUT, input, 0, "cannot open directory");
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		names = xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), name_cmp);
	files = json_obj();
	for (size_t i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", input, names[i]);

		json_add(files, names[i], file_digest(p));
		free(p);
		free(names[i]);
	}
	free(names);
	return files;
}

void fold_input(const struct folder *f, struct corpus *c, const char *name,
		const char *input, struct output_format fmt, cJSON *runs)
{
	struct fold_run run = {
		.name = name, .input = input, .corpus = c, .fmt = fmt,
	};
	char *rel = xasprintf("events/%s.ndjson", name);
	cJSON *digest = input_digest(input);
	long nevents;

	run.events = events_open(c, rel);
	run.repairs = json_arr();
	run.counts = json_obj();
	run.info = json_obj();
	f->fold(&run);
	if (!run.windows)
		die_at(EXIT_CHECK_FAILED, input, 0, "no %s run found", f->name);
	windows_close(run.windows, run.counts);
	nevents = events_close(run.events);
	free(rel);
	if (!runs) {
		cJSON_Delete(digest);
		cJSON_Delete(run.repairs);
		cJSON_Delete(run.counts);
		cJSON_Delete(run.info);
		return;
	}
	cJSON *r = json_add(runs, NULL, json_obj());
	const char *inside = c ? corpus_rel(c, input) : NULL;
	json_add(r, "name", json_str(name));
	json_add(r, "input", json_str(inside ? inside : input));
	json_add(r, "input_sha256", digest);
	json_add(r, "events", json_int(nevents));
	json_add(r, "windows", run.counts);
	json_add(r, "repairs", run.repairs);
	json_add(r, "info", run.info);
}
