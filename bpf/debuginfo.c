// SPDX-License-Identifier: MIT
/* Separate debug files found as gdb finds them: see debuginfo.h. */
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"
#include "debuginfo.h"

const void *elf_note(Elf *elf, unsigned type, const char *owner, size_t *len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0)
			if (nh.n_type == type && nh.n_namesz > strlen(owner) &&
			    !strcmp((const char *)d->d_buf + noff, owner)) {
				*len = nh.n_descsz;
				return (const char *)d->d_buf + doff;
			}
	}
	return NULL;
}

void elf_gnu_build_id(Elf *elf, char *hex, size_t cap)
{
	size_t n = 0;
	const unsigned char *id = elf_note(elf, NT_GNU_BUILD_ID, "GNU", &n);

	hex[0] = '\0';
	for (size_t i = 0; id && i < n && 2 * i + 2 < cap; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
}

Elf_Data *elf_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t shstr;
	GElf_Shdr sh;
	const char *n;

	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstr, sh.sh_name)) &&
		    !strcmp(n, name))
			return elf_getdata(scn, NULL);
	return NULL;
}

/* The file name .gnu_debuglink holds, or NULL. */
static const char *debuglink(Elf *elf)
{
	Elf_Data *d = elf_section(elf, ".gnu_debuglink");

	return d && d->d_size && memchr(d->d_buf, '\0', d->d_size) ? d->d_buf : NULL;
}

/* The debug directories: CAPTURE_DEBUG_DIRS's, else gdb's default. */
static char **debug_dirs(int *n)
{
	const char *env = getenv("CAPTURE_DEBUG_DIRS");
	char *list = xstrdup(env && *env ? env : "/usr/lib/debug"), *save = NULL;
	char **dirs = xcalloc(strlen(list) + 1, sizeof(*dirs));

	*n = 0;
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save))
		dirs[(*n)++] = xstrdup(d);
	free(list);
	return dirs;
}

/* Every candidate path, in the order they are looked at (NULL-ended). */
static char **candidates(const char *path, Elf *elf, const char *build_id)
{
	int ndirs, n = 0;
	char **dirs = debug_dirs(&ndirs);
	char **c = xcalloc(3 * (size_t)ndirs + 3, sizeof(*c));
	const char *link = debuglink(elf);
	char *real = realpath(path, NULL), *copy = real ? real : xstrdup(path);
	const char *dir = dirname(copy);

	for (int i = 0; build_id[0] && build_id[1] && i < ndirs; i++) {
		c[n++] = xasprintf("%s/.build-id/%.2s/%s.debug", dirs[i], build_id,
				   build_id + 2);
		c[n++] = xasprintf("%s/%s/debuginfo", dirs[i], build_id);
	}
	if (link) {
		c[n++] = xasprintf("%s/%s", dir, link);
		c[n++] = xasprintf("%s/.debug/%s", dir, link);
		for (int i = 0; i < ndirs; i++)
			c[n++] = xasprintf("%s%s/%s", dirs[i], dir, link);
	}
	free(copy);
	free_names(dirs, (size_t)ndirs);
	return c;
}

/*
 * Candidate @debug, which exists: its own path if it is @build_id's and
 * has DWARF; else NULL and @err naming both files.
 */
static char *check(const char *path, const char *build_id, const char *debug,
		   struct cap_err *err)
{
	int fd = open(debug, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);
	Dwarf *dw = NULL;
	char id[256] = "";
	int ok = 0;

	if (elf && elf_kind(elf) == ELF_K_ELF)
		elf_gnu_build_id(elf, id, sizeof(id));
	if (!build_id[0])
		cap_fail(err, EXIT_BAD_INPUT, "%s: its separate debug file %s cannot be "
			 "checked: %s has no GNU build id to match (link it with "
			 "--build-id)", path, debug, path);
	else if (strcmp(id, build_id))
		cap_fail(err, EXIT_BAD_INPUT, "%s (build id %s): its debug file %s is "
			 "another build's (build id %s): its addresses are not this "
			 "file's; give the matching one", path, build_id, debug,
			 id[0] ? id : "none");
	else if (!(dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL)))
		cap_fail(err, EXIT_BAD_INPUT, "%s: its debug file %s has no DWARF (%s)",
			 path, debug, dwarf_errmsg(-1));
	else
		ok = 1;
	if (dw)
		dwarf_end(dw);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return ok ? xstrdup(debug) : NULL;
}

char *debug_file_find(const char *path, Elf *elf, const char *build_id,
		      struct cap_err *err)
{
	char **c = candidates(path, elf, build_id), *found = NULL;
	int n = 0, tried = 0;

	for (; c[n]; n++)
		if (!tried && access(c[n], R_OK) == 0) {
			found = check(path, build_id, c[n], err);
			tried = 1;
		}
	if (!tried)
		cap_fail(err, EXIT_BAD_INPUT, "%s: no DWARF debug information (built "
			 "without -g, or stripped?), and no separate debug file%s%s%s: "
			 "rebuild it with -g, or install its debug file (a Debian "
			 "package's is in PACKAGE-dbg or PACKAGE-dbgsym)", path,
			 n ? " (looked for " : " (it has no build id or debuglink to look by)",
			 n ? c[0] : "", n ? (n > 1 ? ", ...)" : ")") : "");
	free_names(c, (size_t)n);
	return found;
}
