// SPDX-License-Identifier: MIT
/* A spec's library as a file: see libraries.h. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/json.h"
#include "../capture/proc.h"
#include "libraries.h"

size_t lib_prefix(const char *name)
{
	for (size_t i = 0; name[i]; i++)
		if (name[i] == ':' && name[i + 1] != ':' && (!i || name[i - 1] != ':'))
			return i;
	return 0;
}

/* @binary's PT_INTERP (caller frees), or NULL: a static binary. */
static char *interpreter(const char *binary)
{
	int fd = open(binary, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	char *interp = NULL;
	size_t n = 0;
	GElf_Phdr ph;

	elf_version(EV_CURRENT);
	if (elf && !elf_getphdrnum(elf, &n))
		for (size_t i = 0; i < n && !interp; i++)
			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_INTERP &&
			    ph.p_filesz > 1 && ph.p_filesz < 4096) {
				interp = xcalloc(1, ph.p_filesz + 1);
				if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) !=
				    (ssize_t)ph.p_filesz) {
					free(interp);
					interp = NULL;
				}
			}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return interp;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * From a line of the dynamic linker's --list ("\tNAME => PATH (0x...)",
 * "\tPATH (0x...)") or of /proc/PID/maps (its path last), the path of
 * @name, or NULL; every library's name is added to @seen.
 */
static char *match_line(char *line, const char *name, int maps, struct strbuf *seen)
{
	char *arrow = strstr(line, " => "), *path, *end;
	const char *needed;

	if (maps) {
		path = strchr(line, '/');
		if (!path || strstr(path, " (deleted)"))
			return NULL;
		needed = base_name(path);
	} else {
		line += strspn(line, " \t");
		path = arrow ? arrow + 4 : line;
		if (arrow)
			*arrow = '\0';
		if ((end = strstr(path, " (")))
			*end = '\0';
		needed = arrow ? line : base_name(path);
		if (*path != '/')
			return NULL;
	}
	if (!strcmp(needed, name) || !strcmp(base_name(path), name))
		return xstrdup(path);
	if (!strstr(seen->buf ? seen->buf : "", needed)) {
		strbuf_addstr(seen, seen->len ? ", " : "");
		strbuf_addstr(seen, needed);
	}
	return NULL;
}

/* @name's path in @text's lines (maps or --list), else NULL; @seen as above. */
static char *match_text(char *text, const char *name, int maps, struct strbuf *seen)
{
	char *save = NULL, *found = NULL;

	for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save))
		found = match_line(l, name, maps, seen);
	return found;
}

/* What @binary's dynamic linker lists (NULL if it has none or fails). */
static char *linker_list(const char *binary, const char *interp)
{
	char *out = owned_tmp_in(temp_dir(), "ld-list"), *text = NULL;
	const char *argv[] = { interp, "--list", binary, NULL };
	int cleanup, fd = mkstemp_on_failure(out, &cleanup);
	struct proc_result r;

	if (fd >= 0) {
		close(fd);
		r = proc_run(argv, out, "/dev/null", 10);
		text = r.exited && !r.status ? read_file(out, NULL) : NULL;
		unlink(out);
		cancel_on_failure(cleanup);
	}
	free(out);
	return text;
}

char *lib_path(const char *binary, pid_t pid, const char *name, struct cap_err *err)
{
	struct strbuf seen = STRBUF_INIT;
	char *interp = pid > 0 ? NULL : interpreter(binary), *text = NULL, *found = NULL;
	char *maps = pid > 0 ? xasprintf("/proc/%d/maps", (int)pid) : NULL;

	if (strchr(name, '/'))
		found = realpath(name, NULL);
	else if (maps)
		text = read_file(maps, NULL);
	else if (interp)
		text = linker_list(binary, interp);
	if (text)
		found = match_text(text, name, pid > 0, &seen);
	if (!found && strchr(name, '/'))
		cap_fail(err, EXIT_BAD_INPUT, "%s: no such library file", name);
	else if (!found && !maps && !interp)
		cap_fail(err, EXIT_BAD_INPUT, "%s: links no library %s: it is statically "
			 "linked (no PT_INTERP)", binary, name);
	else if (!found)
		cap_fail(err, EXIT_BAD_INPUT, "%s: %s no library %s (it %s: %s); one it "
			 "loads with dlopen() is named by its path, /PATH/%s:SYMBOL",
			 maps ? maps : binary, maps ? "maps" : "links", name,
			 maps ? "maps" : "links", seen.len ? seen.buf : "none", name);
	strbuf_release(&seen);
	free(text);
	free(maps);
	free(interp);
	return found;
}
