// SPDX-License-Identifier: MIT
/* The guest runner's cache directory and its small helpers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"
#include "cache.h"
#include "guest.h"

const char *guest_cache_dir(void)
{
	static char *dir;
	const char *env;

	if (dir)
		return dir;
	if ((env = getenv("CAPTURE_CACHE")) && *env)
		dir = xstrdup(env);
	else if ((env = getenv("XDG_CACHE_HOME")) && *env)
		dir = xasprintf("%s/capture", env);
	else if ((env = getenv("HOME")) && *env)
		dir = xasprintf("%s/.cache/capture", env);
	else
		die(EXIT_ENV_MISSING, "no cache directory: set CAPTURE_CACHE or HOME");
	mkdir_p(dir);
	return dir;
}

char *guest_cache_path(const char *fmt, ...)
{
	char *rel, *path, *slash;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&rel, fmt, ap) < 0)
		die(EXIT_CAPTURE_FAILED, "out of memory");
	va_end(ap);
	path = xasprintf("%s/%s", guest_cache_dir(), rel);
	free(rel);
	slash = strrchr(path, '/');
	*slash = '\0';
	mkdir_p(path);
	*slash = '/';
	return path;
}

char *cache_tmp_name(const char *final)
{
	return xasprintf("%s.tmp-%ld", final, (long)getpid());
}

int cache_commit(const char *tmp, const char *final, struct cap_err *err)
{
	if (rename(tmp, final))
		return cap_fail(err, EXIT_CAPTURE_FAILED, "cannot rename %s to %s",
				tmp, final);
	return 0;
}

/* A new empty file under last-run/ for one command's output. */
static char *temp_file(const char *what)
{
	char *path = guest_cache_path("last-run/%s-XXXXXX", what);
	int fd = mkstemp(path);

	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "cannot create %s", path);
	close(fd);
	return path;
}

char *command_output(int code, const char *const argv[])
{
	char *out = temp_file("out"), *err = temp_file("err");
	int cleanup[2] = { remove_on_failure(out), remove_on_failure(err) };
	struct proc_result r = proc_run(argv, out, err, 60);
	char *text;

	if (!r.exited || r.status) {
		char *why = read_file(err, NULL);

		die(code, "'%s' failed: %s", argv[0],
		    why && *why ? strtok(why, "\n") : "no message");
	}
	text = read_file(out, NULL);
	remove(out);
	remove(err);
	cancel_on_failure(cleanup[0]);
	cancel_on_failure(cleanup[1]);
	if (!text)
		die(EXIT_CAPTURE_FAILED, "cannot read the output of %s", argv[0]);
	text[strcspn(text, "\n")] = '\0';
	free(out);
	free(err);
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
