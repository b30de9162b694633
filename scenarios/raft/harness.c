// SPDX-License-Identifier: MIT
/*
 * A raft harness's build and provenance (harness.h): a Go main built
 * reproducibly, the versions it was built from, the checks every raft
 * corpus passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include "../../capture/die.h"
#include "../../capture/home.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../../capture/system.h"
#include "harness.h"

static const char *go_tool(void)
{
	if (have_program("go"))
		return "go";
	if (file_exists("/usr/local/go/bin/go"))
		return "/usr/local/go/bin/go";
	die(EXIT_ENV_MISSING, "no Go toolchain (go on PATH or /usr/local/go/bin/go)");
}

/* Hold @out.lock (exclusive, until the descriptor is closed). */
static int build_lock(const char *out)
{
	char *path = xasprintf("%s.lock", out), *dir = xstrdup(out);
	int fd;

	*strrchr(dir, '/') = 0;
	mkdir_p(dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0 || flock(fd, LOCK_EX) < 0)
		die(EXIT_ENV_MISSING, "%s: %s", path, strerror(errno));
	free(dir);
	free(path);
	return fd;
}

/*
 * Reproducibly: -trimpath, no VCS stamp.  Go's build cache keeps what was
 * compiled: a rebuild of unchanged sources costs a link at most, and one
 * of an up-to-date @bin leaves the file as it is.  Captures side by side
 * build one @bin in turn, under @bin.lock: the first writes it, the
 * others find it up to date.  Two that both wrote it would each put a new
 * file in its place, and a capture that attached its uprobes to one file
 * could run the other, which no probe fires in.
 */
char *raft_go_build(const char *src, const char *bin, const char *tags,
		    const char *const cover[3], const char *what)
{
	char *dir = xasprintf("%s/%s", capture_home(), src);
	char *out = xasprintf("%s/%s", capture_home(), bin);
	const char *argv[16] = { go_tool(), "-C", dir, "build", "-trimpath",
				 "-buildvcs=false", "-mod=readonly" };
	int argc = 7;

	for (int i = 0; cover && i < 3; i++)
		argv[argc++] = cover[i];
	argv[argc++] = "-tags";
	argv[argc++] = tags;
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = ".";
	progress("building %s", what);
	setenv("GOTOOLCHAIN", "local", 1);
	int lock = build_lock(out);
	proc_must(EXIT_ENV_MISSING, argv, NULL);
	close(lock);
	free(dir);
	return out;
}

/*
 * Go writes no counters unless the main package is covered too; "atomic"
 * counters count how often each unit ran, as "count" ones do, and are
 * the mode whose counters a running process may clear.
 */
char *raft_cover_harness(const char *src, const char *bin, const char *module,
			 const char *name)
{
	char *pkgs = xasprintf("-coverpkg=.,%s", module);
	const char *const atomic[3] = { "-cover", "-covermode=atomic", pkgs };
	char *cover = xasprintf("%s-cover", bin);
	char *what = xasprintf("the %s harness (Go coverage of raft)", name);
	char *path = raft_go_build(src, cover, "", atomic, what);

	free(what);
	free(cover);
	free(pkgs);
	return path;
}

void raft_harness_status(const char *bin, const char *scenario, int status)
{
	if (status == EXIT_BAD_INPUT)
		die(EXIT_BAD_INPUT, "%s: bad scenario (the harness's message is above)",
		    scenario);
	if (status)
		die(EXIT_CAPTURE_FAILED, "%s %s: exit status %d", bin, scenario, status);
}

cJSON *raft_pinned_version(const char *src, const char *file,
			   const char *want, const char *stop, const char *missing)
{
	char *path = xasprintf("%s/%s/%s", capture_home(), src, file);
	char *text = read_file(path, NULL), *p = text;
	cJSON *v;

	if (!text)
		die(EXIT_ENV_MISSING, "%s: cannot read", path);
	/* @want starts a word: "require M V" or, in a block, "\tM V" */
	while ((p = strstr(p, want)) && p != text &&
	       !strchr(" \t\n", p[-1]))
		p++;
	if (!p)
		die(EXIT_ENV_MISSING, "%s: %s", path, missing);
	p += strlen(want);
	p[strcspn(p, stop)] = 0;
	v = json_str(p);
	free(text);
	free(path);
	return v;
}

cJSON *raft_go_mod_version(const char *src, const char *module)
{
	char *want = xasprintf("%s ", module);
	char *missing = xasprintf("no %s requirement", module);
	cJSON *v = raft_pinned_version(src, "go.mod", want, " \n", missing);

	free(missing);
	free(want);
	return v;
}

cJSON *raft_tool_version(const char *const argv[])
{
	char *tmp = owned_tmp_in(temp_dir(), "capture-version");
	int cleanup, fd = mkstemp_on_failure(tmp, &cleanup);
	char *text;
	cJSON *v;

	if (fd < 0)
		die(EXIT_CAPTURE_FAILED, "mkstemp: cannot create a temporary file");
	close(fd);
	proc_must(EXIT_ENV_MISSING, argv, tmp);
	text = read_file(tmp, NULL);
	unlink(tmp);
	cancel_on_failure(cleanup);
	free(tmp);
	if (!text)
		die(EXIT_CAPTURE_FAILED, "cannot read the output of %s", argv[0]);
	text[strcspn(text, "\n")] = 0;
	v = json_str(text);
	free(text);
	return v;
}

void raft_describe_harness(cJSON *env, const char *src, const char *module,
			   const char *bin)
{
	const char *argv[] = { go_tool(), "env", "GOVERSION", NULL };
	char hex[65];

	json_add(env, "raft_module", json_str(module));
	json_add(env, "raft_version", raft_go_mod_version(src, module));
	json_add(env, "go_version", raft_tool_version(argv));
	if (sha256_file(bin, hex))
		die(EXIT_CAPTURE_FAILED, "%s: cannot hash", bin);
	json_add(env, "harness_sha256", json_str(hex));
}

/*
 * The scenarios together must exercise every target action: a capture that
 * misses one (a probe that never fired, a scenario file emptied) is no
 * corpus of this system.  Single scenarios may lack some (election has no
 * proposal).
 */
void raft_require_actions(const struct folder *f, const cJSON *counts)
{
	for (int i = 0; f->actions[i]; i++)
		if (!json_get(counts, f->actions[i]))
			die(EXIT_CHECK_FAILED, "the capture gave no %s window: "
			    "every target action must have at least one",
			    f->actions[i]);
}
