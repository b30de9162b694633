// SPDX-License-Identifier: MIT
/* The guest runner's cache directory and its small helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/home.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

char *cache_tmp_name(const char *final)
{
	remove_stale_tmps(final);
	return xasprintf("%s.tmp-%ld", final, (long)getpid());
}

int cache_commit(const char *tmp, const char *final, struct cap_err *err)
{
	if (rename(tmp, final))
		return cap_fail(err, EXIT_CAPTURE_FAILED, "cannot rename %s to %s",
				tmp, final);
	return 0;
}

/*
 * A new empty file under last-run/ for one command's output, removed if
 * the process dies (*@cleanup); NULL and @err.
 */
static char *temp_file(const char *what, int *cleanup, struct cap_err *err)
{
	char *base = cache_path(err, "last-run/%s", what), *path = NULL;
	int fd;

	/* Named for its owner: what a dead process left goes first. */
	if (base) {
		remove_stale_tmps(base);
		path = owned_tmp_name(base);
		free(base);
	}
	fd = path ? mkstemp_on_failure(path, cleanup) : -1;
	if (path && fd < 0) {
		cap_fail(err, EXIT_CAPTURE_FAILED, "cannot create %s", path);
		free(path);
		return NULL;
	}
	if (fd >= 0)
		close(fd);
	return path;
}

/* The first line of what @argv wrote to @out, or NULL and @err. */
static char *first_line(int code, const char *const argv[], const char *out,
			const char *errors, struct cap_err *err)
{
	struct proc_result r = proc_run(argv, out, errors, 60);
	char *text;

	if (!r.exited || r.status) {
		char *why = read_file(errors, NULL);

		cap_fail(err, code, "'%s' failed: %s", argv[0],
			 why && *why ? strtok(why, "\n") : "no message");
		free(why);
		return NULL;
	}
	text = read_file(out, NULL);
	if (!text) {
		cap_fail(err, EXIT_CAPTURE_FAILED, "cannot read the output of %s",
			 argv[0]);
		return NULL;
	}
	text[strcspn(text, "\n")] = '\0';
	return text;
}

char *command_output(int code, const char *const argv[], struct cap_err *err)
{
	int cleanup[2];
	char *out = temp_file("out", &cleanup[0], err);
	char *errors = out ? temp_file("err", &cleanup[1], err) : NULL;
	char *text = NULL;

	if (errors) {
		text = first_line(code, argv, out, errors, err);
		remove(errors);
		cancel_on_failure(cleanup[1]);
	}
	/* Nothing left in last-run/, whether it failed or not. */
	if (out) {
		remove(out);
		cancel_on_failure(cleanup[0]);
	}
	free(errors);
	free(out);
	return text;
}

int sha256_key(const char *const parts[], char key[17], struct cap_err *err)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[65];

	for (size_t i = 0; parts[i]; i++) {
		size_t len;
		char *data = read_file(parts[i], &len);

		if (!data) {
			strbuf_release(&sb);
			return cap_fail(err, EXIT_ENV_MISSING, "cannot read %s",
					parts[i]);
		}
		strbuf_addf(&sb, "%s %zu\n", strrchr(parts[i], '/') ?
			    strrchr(parts[i], '/') + 1 : parts[i], len);
		strbuf_add(&sb, data, len);
		free(data);
	}
	sha256_hex(sb.buf, sb.len, hex);
	memcpy(key, hex, 16);
	key[16] = '\0';
	strbuf_release(&sb);
	return 0;
}
