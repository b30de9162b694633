// SPDX-License-Identifier: MIT
/*
 * capture verify CORPUS: rerun the command MANIFEST.json records into a
 * temporary corpus and compare every file byte for byte.
 *
 * Three kinds of difference, reported apart: the corpus no longer matches
 * its own manifest (a file edited or added after it was written, a sha256
 * edited in the manifest); the rerun's output differs; the environment the manifest
 * records (kernel package, binaries, inputs) differs.  The last alone does
 * not fail verification: it is what explains an output difference.
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "command.h"
#include "../corpus.h"
#include "../die.h"
#include "../home.h"
#include "../json.h"
#include "../options.h"
#include "../proc.h"

static const char verify_usage[] =
	"usage: capture verify [options] CORPUS\n\n"
	"Rerun the capture or fold recorded in CORPUS/MANIFEST.json (from the\n"
	"current directory: relative inputs resolve as they did when it was\n"
	"made) and compare every file byte for byte.  The rerun writes only in\n"
	"a temporary directory.  Exit 0: identical (an environment difference\n"
	"alone is reported, not failed); 7: the output or the corpus itself\n"
	"differs (a file changed, missing or not in the manifest); 8: the\n"
	"command could not be rerun (or wrote no corpus, or names an output, or\n"
	"runs what this checkout does not ship, without --trust).\n";

static cJSON *load_manifest(const char *dir)
{
	static const char *const lists[] = { "files", "varying" };
	static char msg[512];
	char *path = xasprintf("%s/MANIFEST.json", dir);
	char *text = read_file(path, NULL);
	cJSON *m = text ? cJSON_Parse(text) : NULL;
	const cJSON *f;

	if (!text)
		die_at(EXIT_BAD_INPUT, path, 0, "cannot read: not a corpus");
	if (!cJSON_IsObject(m) || !cJSON_IsObject(json_get(m, "files")))
		die_at(EXIT_BAD_INPUT, path, 0, "not a manifest (no \"files\")");
	/* each is read (hashed, compared): none may lie outside the corpus */
	for (size_t i = 0; i < sizeof(lists) / sizeof(*lists); i++)
		cJSON_ArrayForEach(f, json_get(m, lists[i]))
			if (rel_path_refused(f->string)) {
				snprintf(msg, sizeof(msg), "%s: \"%s\" lists "
					 "'%.200s', not a path inside the corpus: %s",
					 path, lists[i], f->string,
					 rel_path_refused(f->string));
				cJSON_Delete(m);
				free(text);
				free(path);
				die(EXIT_BAD_INPUT, "%s", msg);
			}
	free(text);
	free(path);
	return m;
}

/* nftw has no user pointer: the walk reports into these. */
static const cJSON *walk_files, *walk_varying;
static size_t walk_skip;
static int walk_unlisted;

static int unlisted(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *rel = path + walk_skip;

	(void)st; (void)ftw;
	if (type == FTW_D || type == FTW_DP || !strcmp(rel, "MANIFEST.json") ||
	    json_get(walk_files, rel) || json_get(walk_varying, rel))
		return 0;
	printf("  altered: %s is in the corpus but not in MANIFEST.json\n", rel);
	walk_unlisted = 1;
	return 0;
}

/* The corpus against its own manifest: every file listed, with its sha256. */
static int check_digests(const char *dir, const cJSON *m)
{
	const cJSON *f;
	int bad = 0;

	walk_files = json_get(m, "files");
	walk_varying = json_get(m, "varying");
	walk_skip = strlen(dir) + 1;
	walk_unlisted = 0;
	if (nftw(dir, unlisted, 16, FTW_PHYS))
		die(EXIT_BAD_INPUT, "%s: cannot list the corpus", dir);
	bad = walk_unlisted;

	cJSON_ArrayForEach(f, json_get(m, "files")) {
		char *path = xasprintf("%s/%s", dir, f->string);
		char hex[65];

		if (sha256_file(path, hex)) {
			printf("  altered: %s is listed in MANIFEST.json but missing\n",
			       f->string);
			bad = 1;
		} else if (!cJSON_IsString(f) || strcmp(hex, f->valuestring)) {
			printf("  altered: %s has sha256 %s, MANIFEST.json records %s\n",
			       f->string, hex,
			       cJSON_IsString(f) ? f->valuestring : "(none)");
			bad = 1;
		}
		free(path);
	}
	cJSON_ArrayForEach(f, walk_varying) {
		char *path = xasprintf("%s/%s", dir, f->string);

		if (!file_exists(path)) {
			printf("  altered: %s is listed in MANIFEST.json but missing\n",
			       f->string);
			bad = 1;
		}
		free(path);
	}
	return bad;
}

/* 1-based number of the first line where @a and @b differ. */
static long first_diff_line(const char *a, size_t na, const char *b, size_t nb)
{
	long line = 1;

	for (size_t i = 0; i < na && i < nb && a[i] == b[i]; i++)
		line += a[i] == '\n';
	return line;
}

static int compare_file(const char *old_dir, const char *new_dir,
			const char *rel)
{
	char *pa = xasprintf("%s/%s", old_dir, rel);
	char *pb = xasprintf("%s/%s", new_dir, rel);
	size_t na = 0, nb = 0;
	char *a = read_file(pa, &na), *b = read_file(pb, &nb);
	int differs = 1;

	if (!a)
		printf("  differs: %s: only in the rerun\n", rel);
	else if (!b)
		printf("  differs: %s: the rerun did not produce it\n", rel);
	else if (na != nb || memcmp(a, b, na))
		printf("  differs: %s, from line %ld\n", rel,
		       first_diff_line(a, na, b, nb));
	else
		differs = 0;
	free(a);
	free(b);
	free(pa);
	free(pb);
	return differs;
}

/*
 * MANIFEST.json byte for byte (re-indented or reordered is a difference),
 * as the rerun wrote it but with the recorded environment, whose
 * differences are reported apart and do not fail.
 */
static int manifest_bytes_differ(const char *dir, const cJSON *old,
				 const cJSON *new)
{
	char *path = xasprintf("%s/MANIFEST.json", dir);
	struct strbuf want = STRBUF_INIT;
	size_t len = 0;
	char *text = read_file(path, &len);
	cJSON *m = json_dup(new);
	const cJSON *env = json_get(old, "environment");
	int differs;

	if (env && json_get(m, "environment"))
		cJSON_ReplaceItemInObjectCaseSensitive(m, "environment",
						       json_dup(env));
	manifest_text(&want, m);
	differs = !text || len != want.len || memcmp(text, want.buf, len);
	if (differs)
		printf("  differs: MANIFEST.json, from line %ld: not the bytes "
		       "capture writes for it\n",
		       text ? first_diff_line(text, len, want.buf, want.len) : 1);
	strbuf_release(&want);
	cJSON_Delete(m);
	free(text);
	free(path);
	return differs;
}

/* Every file either manifest lists, and the manifests without environment. */
static int compare_outputs(const char *dir, const cJSON *old, const char *out,
			   const cJSON *new)
{
	const cJSON *f;
	cJSON *a = json_dup(old), *b = json_dup(new);
	int differs = 0, same = 0;

	cJSON_ArrayForEach(f, json_get(old, "files")) {
		int d = compare_file(dir, out, f->string);

		differs |= d;
		same += !d;
	}
	cJSON_ArrayForEach(f, json_get(new, "files"))
		if (!json_get(json_get(old, "files"), f->string))
			differs |= compare_file(dir, out, f->string);
	cJSON_DeleteItemFromObjectCaseSensitive(a, "environment");
	cJSON_DeleteItemFromObjectCaseSensitive(b, "environment");
	cJSON_ArrayForEach(f, a) {
		if (!cJSON_Compare(f, json_get(b, f->string), 1)) {
			printf("  differs: MANIFEST.json \"%s\"\n", f->string);
			differs = 1;
		}
	}
	if (!differs)
		differs = manifest_bytes_differ(dir, old, new);
	printf("  identical: %d files\n", same);
	cJSON_Delete(a);
	cJSON_Delete(b);
	return differs;
}

static void print_value(const cJSON *v)
{
	struct strbuf sb = STRBUF_INIT;

	if (v)
		json_write(&sb, v, JSON_COMPACT);
	printf("%s", v ? sb.buf : "(absent)");
	strbuf_release(&sb);
}

static int compare_environment(const cJSON *old, const cJSON *new)
{
	const cJSON *a = json_get(old, "environment");
	const cJSON *b = json_get(new, "environment"), *e;
	int differs = 0;

	cJSON_ArrayForEach(e, a) {
		const cJSON *other = json_get(b, e->string);

		if (cJSON_Compare(e, other, 1))
			continue;
		printf("  environment differs: %s: ", e->string);
		print_value(e);
		printf(" -> ");
		print_value(other);
		printf("\n");
		differs = 1;
	}
	cJSON_ArrayForEach(e, b) {
		if (json_get(a, e->string))
			continue;
		printf("  environment differs: %s: (absent) -> ", e->string);
		print_value(e);
		printf("\n");
		differs = 1;
	}
	return differs;
}

static char *self_exe(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		die(EXIT_ENV_MISSING, "cannot find the capture executable");
	exe[n] = '\0';
	return xstrdup(exe);
}

/*
 * Could getopt read @arg as an output option (-o, -oDIR, --output and any
 * abbreviation, with or without =DIR)?  Such a command would write over
 * something other than verify's temporary directory.
 */
static int names_output(const char *arg)
{
	size_t n = strcspn(arg, "=");

	if (!strncmp(arg, "-o", 2))
		return 1;
	return n > 2 && !strncmp(arg, "--", 2) && !strncmp(arg + 2, "output", n - 2) &&
	       n - 2 <= strlen("output");
}

/*
 * Is @path (resolved from the current directory) something this checkout
 * ships: inside the tree capture was built from, and in no corpus there
 * (a directory holding a MANIFEST.json came from whoever made it)?  A
 * path that does not exist runs nothing: the rerun fails on its own.
 */
static int shipped(const char *path)
{
	char *real = realpath(path, NULL), *tree = realpath(toolkit_tree(), NULL);
	size_t n = tree ? strlen(tree) : 0;
	int ours = !real;

	if (real && tree && !strncmp(real, tree, n) && real[n] == '/') {
		ours = 1;
		for (char *s = strrchr(real, '/'); ours && s > real + n;
		     s = strrchr(real, '/')) {
			char *manifest = xasprintf("%.*s/MANIFEST.json",
						   (int)(s - real), real);

			ours = !file_exists(manifest);
			free(manifest);
			*s = '\0';
		}
	}
	free(real);
	free(tree);
	return ours;
}

/* Options whose value the rerun runs, builds or plays (any abbreviation). */
static int runs_its_value(const char *arg)
{
	static const char *const names[] = { "scenarios", "scenario", "binary",
					      "asterinas-src" };
	size_t n = strcspn(arg, "=");

	if (!strncmp(arg, "-s", 2))   /* -s PATH, -sPATH */
		return 1;
	for (size_t i = 0; n > 2 && !strncmp(arg, "--", 2) &&
	     i < sizeof(names) / sizeof(names[0]); i++)
		if (n - 2 <= strlen(names[i]) && !strncmp(arg + 2, names[i], n - 2))
			return 1;
	return 0;
}

/* -s or --scenario, whose value without a '/' names one of the checkout's. */
static int names_a_scenario(const char *arg)
{
	return arg[1] != '-' || strcspn(arg, "=") == strlen("--scenario");
}

/* Does capture go's option @arg take the next word as its value? */
static int go_option_takes_next(const char *arg)
{
	static const char *const valued[] = { "probes", "fold", "output", "form",
					       "json", "timeout", "ring-bytes" };
	size_t n = strlen(arg);

	if (!strcmp(arg, "-p") || !strcmp(arg, "-o"))
		return 1;
	for (size_t i = 0; n > 2 && !strncmp(arg, "--", 2) && !strchr(arg, '=') &&
	     i < sizeof(valued) / sizeof(valued[0]); i++)
		if (n - 2 <= strlen(valued[i]) && !strncmp(arg + 2, valued[i], n - 2))
			return 1;
	return 0;
}

/*
 * The program capture go runs: the first word that is neither an option
 * nor an option's value (go's options stop there, as getopt's "+" does),
 * or the word after "--".  A word taken for a value that is none makes a
 * later word the target and the earlier one unchecked, so an option not
 * known here counts as taking none: its value is then checked instead.
 */
static const char *go_target(const cJSON *cmd, int n)
{
	for (int i = 2; i < n; i++) {
		const char *arg = cJSON_GetArrayItem(cmd, i)->valuestring;

		if (!strcmp(arg, "--"))
			return i + 1 < n ? cJSON_GetArrayItem(cmd, i + 1)->valuestring : NULL;
		if (arg[0] != '-' || !arg[1])
			return arg;
		i += go_option_takes_next(arg);
	}
	return NULL;
}

/*
 * What of the recorded command @cmd (its @n strings) the checkout does not
 * ship: a capture go target (a program found on PATH is not the
 * checkout's), a scenario file or directory, a binary, a source tree.
 * NULL if nothing.
 */
static const char *untrusted(const cJSON *cmd, int n)
{
	const char *target;

	if (!strcmp(cJSON_GetArrayItem(cmd, 1)->valuestring, "go") ||
	    !strcmp(cJSON_GetArrayItem(cmd, 1)->valuestring, "probe")) {
		target = go_target(cmd, n);
		return target && (!strchr(target, '/') || !shipped(target)) ?
		       target : NULL;
	}
	for (int i = 2; i < n; i++) {
		const char *arg = cJSON_GetArrayItem(cmd, i)->valuestring, *value;

		if (!strcmp(arg, "--"))
			return NULL;   /* operands: corpora, not run */
		if (!runs_its_value(arg))
			continue;
		value = strchr(arg, '=') ? strchr(arg, '=') + 1 :
			arg[1] != '-' && arg[2] ? arg + 2 :
			i + 1 < n ? cJSON_GetArrayItem(cmd, ++i)->valuestring : "";
		if ((strchr(value, '/') || !names_a_scenario(arg)) && !shipped(value))
			return value;
	}
	return NULL;
}

/*
 * A corpus from elsewhere runs what its sender chose: shown and refused
 * (EXIT_RERUN_FAILED) when its command runs what the checkout does not
 * ship, before anything is run or written.
 */
static void refuse_untrusted(const cJSON *m)
{
	const cJSON *cmd = json_get(m, "command"), *e;
	struct strbuf sb = STRBUF_INIT;
	int n = cJSON_GetArraySize(cmd);
	const char *what;

	cJSON_ArrayForEach(e, cmd)
		if (!cJSON_IsString(e))
			return;   /* rerun() refuses it */
	if (n < 2 || !(what = untrusted(cmd, n)))
		return;
	cJSON_ArrayForEach(e, cmd)
		strbuf_addf(&sb, "%s%s", sb.len ? " " : "", e->valuestring);
	progress("the recorded command: %s", sb.buf);
	strbuf_release(&sb);
	die(EXIT_RERUN_FAILED, "not rerunning: the recorded command runs %s, "
	    "which this checkout (%s) does not ship; --trust reruns it", what,
	    toolkit_tree());
}

/* Rerun the manifest's command into @out; dies with EXIT_RERUN_FAILED. */
static void rerun(const cJSON *m, const char *tmp, const char *out,
		  double timeout)
{
	const cJSON *cmd = json_get(m, "command");
	int n = cJSON_GetArraySize(cmd), k = 0;
	const char **argv;
	char *errs, *log;
	struct proc_result r;

	for (int i = 0; i < n; i++)
		if (!cJSON_IsString(cJSON_GetArrayItem(cmd, i)))
			n = 0;
	if (n < 2)
		die(EXIT_RERUN_FAILED, "MANIFEST.json records no command to rerun");
	for (int i = 2; i < n; i++)
		if (names_output(cJSON_GetArrayItem(cmd, i)->valuestring))
			die(EXIT_RERUN_FAILED, "not rerunning: the recorded command "
			    "names an output (%s), which the rerun would overwrite",
			    cJSON_GetArrayItem(cmd, i)->valuestring);
	argv = xcalloc(n + 4, sizeof(*argv));
	errs = xasprintf("%s/stderr", tmp);
	argv[k++] = self_exe();
	argv[k++] = cJSON_GetArrayItem(cmd, 1)->valuestring;
	argv[k++] = "-o";
	argv[k++] = out;
	for (int i = 2; i < n; i++)
		argv[k++] = cJSON_GetArrayItem(cmd, i)->valuestring;
	progress("rerunning the recorded command (%s)", argv[1]);
	r = proc_run(argv, "/dev/null", errs, timeout);
	free((char *)argv[0]);
	free(argv);
	if (r.timed_out || !r.exited || r.status) {
		log = read_file(errs, NULL);
		fprintf(stderr, "%s", log ? log : "");
		free(log);
	}
	free(errs);
	if (r.timed_out)
		die(EXIT_RERUN_FAILED, "could not rerun: no result within %g s",
		    timeout);
	if (!r.exited || r.status)
		die(EXIT_RERUN_FAILED, "could not rerun: 'capture %s' %s %d "
		    "(inputs resolve from the current directory, as when the "
		    "corpus was made)", cJSON_GetArrayItem(cmd, 1)->valuestring,
		    r.exited ? "exited with" : "was killed by signal", r.status);
	if (!corpus_exists(out))
		die(EXIT_RERUN_FAILED, "could not rerun: 'capture %s' wrote no "
		    "corpus", cJSON_GetArrayItem(cmd, 1)->valuestring);
}

int cmd_verify(int argc, char **argv)
{
	double timeout = 3600;
	int trust = 0;
	const struct opt options[] = {
		OPT_SECONDS(0, "timeout", &timeout, "SECS", 1e7, "give the rerun at "
			    "most this long (default 3600)"),
		OPT_FLAG(0, "trust", &trust, "rerun a command that runs a program, "
			 "scenario files\nor a source tree from outside this "
			 "checkout (a\ncapture go target, --scenarios, --binary,\n"
			 "--asterinas-src): the corpus's sender chose them"),
		OPT_HELP(),
		OPT_END(),
	};
	const struct opt_command cmd = { verify_usage, options, NULL, 0 };
	int first = parse_options(&cmd, argc, argv);
	char *tmp, *out;
	cJSON *old, *new;
	int altered, differs, env, cleanup;

	if (argc - first != 1)
		opt_usage(&cmd, 0);
	old = load_manifest(argv[first]);
	if (!trust)
		refuse_untrusted(old);
	tmp = owned_tmp_in(temp_dir(), "capture-verify");
	cleanup = mkdtemp_on_failure(tmp);
	if (cleanup < 0)
		die(EXIT_RERUN_FAILED, "cannot create %s: %s", tmp, strerror(errno));
	out = xasprintf("%s/corpus", tmp);
	printf("verify %s\n", argv[first]);
	altered = check_digests(argv[first], old);
	rerun(old, tmp, out, timeout);
	new = load_manifest(out);
	differs = compare_outputs(argv[first], old, out, new);
	env = compare_environment(old, new);
	if (altered || differs)
		printf("result: differs%s\n", env ? " (and the environment "
		       "differs too, which may explain it)" : "");
	else
		printf("result: identical%s\n", env ? " output (the environment "
		       "differs)" : "");
	remove_tree(tmp);
	cancel_on_failure(cleanup);
	cJSON_Delete(old);
	cJSON_Delete(new);
	free(out);
	free(tmp);
	return altered || differs ? EXIT_DIFFERS : EXIT_OK;
}
