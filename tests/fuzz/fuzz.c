// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <dirent.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture/cli/command.h"
#include "capture/fold.h"
#include "capture/json.h"
#include "capture/options.h"
#include "capture/system.h"
#include "tests/fuzz/fuzz.h"

jmp_buf fuzz_jmp;

/* Every harness looks systems up in the table the CLI hands the core. */
__attribute__((constructor)) static void fuzz_systems(void)
{
	system_table_set(systems);
}

static char *dir;               /* the input directory */
static char path[4096];
static pthread_t harness;       /* the only thread allowed to die */
static enum exit_code died_code;
static char died_msg[1024];

static void hook(enum exit_code code, const char *msg)
{
	if (!pthread_equal(pthread_self(), harness)) {
		fprintf(stderr, "fuzz: die() off the harness thread: %s\n", msg);
		abort();
	}
	died_code = code;
	snprintf(died_msg, sizeof(died_msg), "%s", msg);
	longjmp(fuzz_jmp, 1);
}

/*
 * A reader that died leaves its files open (an exit would close them):
 * close every descriptor on a file of the input directory.
 */
static void close_inputs(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = strlen(dir);
	struct dirent *e;
	char link[64], target[4096];

	if (!d)
		abort();
	while ((e = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len > (ssize_t)n && !strncmp(target, dir, n) &&
		    target[n] == '/')
			close(atoi(e->d_name));
	}
	closedir(d);
}

/*
 * Whether @msg starts with @prefix (then '/' or ':'), or with no @prefix
 * with some name: a path may hold anything, so anything before ": ".
 */
static int names_a_file(const char *msg, const char *prefix)
{
	size_t n;

	if (!prefix) {
		const char *colon = strstr(msg, ": ");

		return colon && colon > msg;
	}
	n = strlen(prefix);
	return !strncmp(msg, prefix, n) && (msg[n] == ':' || msg[n] == '/');
}

/* Abort unless @code is allowed and @msg names a file (see fuzz.h). */
static void judge(enum exit_code code, const char *msg, unsigned allowed,
		  const char *prefix)
{
	/* A usage error is about the command line, not a file. */
	if (!(allowed & FUZZ_CODE(code)) ||
	    (code != EXIT_USAGE && !names_a_file(msg, prefix))) {
		fprintf(stderr, "fuzz: exit %d not allowed or not naming the "
			"input: %s\n", code, msg);
		abort();
	}
}

static int died(unsigned allowed, const char *prefix)
{
	close_inputs();
	judge(died_code, died_msg, allowed, prefix);
	return 0;
}

int fuzz_refused(struct cap_err *err, unsigned allowed)
{
	judge(err->code, cap_err_text(err), allowed, dir);
	cap_err_release(err);
	return 0;
}

int fuzz_died(unsigned allowed)
{
	return died(allowed, dir);
}

int fuzz_died_elsewhere(unsigned allowed)
{
	return died(allowed, NULL);
}

static int remove_one(const char *p, const struct stat *st, int type,
		      struct FTW *ftw)
{
	(void)st, (void)type;
	return ftw->level ? remove(p) : 0;
}

static void remove_dir(void)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	rmdir(dir);
}

/* An empty input directory, made once per process. */
static void fresh_dir(void)
{
	if (!dir) {
		const char *tmp = access("/dev/shm", W_OK) ? getenv("TMPDIR")
							   : "/dev/shm";
		char *templ;

		if (asprintf(&templ, "%s/capture-fuzz-XXXXXX",
			     tmp ? tmp : "/tmp") < 0 || !mkdtemp(templ))
			abort();
		dir = templ;
		atexit(remove_dir);
	}
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	harness = pthread_self();
	die_hook = hook;
}

static void write_at(const char *p, const void *data, size_t size)
{
	FILE *f = fopen(p, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
		perror(p);
		abort();
	}
}

const char *fuzz_input_also(const char *name, const uint8_t *data,
			    size_t size)
{
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	write_at(path, data, size);
	return path;
}

const char *fuzz_input(const char *name, const uint8_t *data, size_t size)
{
	fresh_dir();
	return fuzz_input_also(name, data, size);
}

/* The length of the file at @p[0, end): up to a line "--" or the end. */
static size_t part_len(const uint8_t *p, size_t end, size_t *skip)
{
	for (size_t i = 0; i + 2 <= end; i++) {
		if ((i == 0 || p[i - 1] == '\n') && p[i] == '-' &&
		    p[i + 1] == '-' && (i + 2 == end || p[i + 2] == '\n')) {
			*skip = i + 2 < end ? 3 : 2;
			return i;
		}
	}
	*skip = 0;
	return end;
}

/*
 * The process a PGo trace part is of, as its file name must say: the
 * first "self" string in it (alphanumeric, short), else @i.
 */
static void part_self(const uint8_t *data, size_t n, int i, char self[24])
{
	static const char key[] = "\"self\":\"";
	const uint8_t *at = memmem(data, n, key, sizeof(key) - 1);
	size_t len = 0;

	if (at) {
		at += sizeof(key) - 1;
		while (at + len < data + n && len < 20 && isalnum(at[len]))
			len++;
	}
	if (at && len && at + len < data + n && at[len] == '"') {
		memcpy(self, at, len);
		self[len] = '\0';
	} else {
		snprintf(self, 24, "%d", i);
	}
}

const char *fuzz_input_pgo(const uint8_t *data, size_t size)
{
	char self[24];
	size_t at = 0;

	fresh_dir();
	for (int i = 0; at < size || i == 0; i++) {
		size_t skip, n = part_len(data + at, size - at, &skip);

		part_self(data + at, n, i, self);
		snprintf(path, sizeof(path), "%s/trace-%s-%d.log", dir, self, i);
		write_at(path, data + at, n);
		at += n + skip;
	}
	return dir;
}

int fuzz_same_json(const cJSON *a, const cJSON *b)
{
	struct strbuf x = STRBUF_INIT, y = STRBUF_INIT;
	int same;

	if (!a || !b)
		return a == b;
	json_write(&x, a, JSON_COMPACT);
	json_write(&y, b, JSON_COMPACT);
	same = x.len == y.len && !memcmp(x.buf, y.buf, x.len);
	strbuf_release(&x);
	strbuf_release(&y);
	return same;
}

const char *fuzz_input_parts(const uint8_t *data, size_t size, const char *ext)
{
	size_t at = 0;

	fresh_dir();
	for (int i = 0; at < size || i == 0; i++) {
		size_t skip, n = part_len(data + at, size - at, &skip);

		snprintf(path, sizeof(path), "%s/part-%d%s", dir, i, ext);
		write_at(path, data + at, n);
		at += n + skip;
	}
	return dir;
}

int fuzz_fold(const char *system, const char *input)
{
	const struct output_options out = OUTPUT_OPTIONS_INIT;
	const struct system *s = system_find(system);
	const struct folder *f = s ? s->folder : NULL;

	if (!f)
		abort();
	if (setjmp(fuzz_jmp))
		return fuzz_died(FUZZ_CODE(EXIT_BAD_INPUT) |
				 FUZZ_CODE(EXIT_CHECK_FAILED) |
				 FUZZ_CODE(EXIT_CAPTURE_FAILED));
	fold_input(f, NULL, "run", input, output_format_for(&out, f), NULL);
	return 0;
}
