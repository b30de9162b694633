// SPDX-License-Identifier: MIT
/* What kind of command capture go was given: see gocommand.h. */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../capture/err.h"
#include "debuginfo.h"
#include "gocommand.h"

enum kind { NOT_ELF, SCRIPT, ELF_NOT_GO, GO_TOOL, GO_PROGRAM };

/*
 * A Go program has a .go.buildinfo section (every Go since 1.13); the go
 * tool's says its main package is cmd/go ("path\tcmd/go\n").
 */
static enum kind elf_kind_of(Elf *elf)
{
	Elf_Data *d = elf_section(elf, ".go.buildinfo");

	if (!d)
		return ELF_NOT_GO;
	if (d->d_buf && memmem(d->d_buf, d->d_size, "path\tcmd/go\n", 12))
		return GO_TOOL;
	return GO_PROGRAM;
}

static enum kind kind_of(const char *path, char *interp, size_t cap)
{
	char head[256] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, head, sizeof(head) - 1, 0);
	enum kind k = NOT_ELF;
	Elf *elf;

	if (n >= 2 && head[0] == '#' && head[1] == '!') {
		head[n] = 0;
		snprintf(interp, cap, "%.*s", (int)strcspn(head + 2, "\n"), head + 2);
		k = SCRIPT;
	} else if (n >= 4 && !memcmp(head, ELFMAG, SELFMAG)) {
		elf_version(EV_CURRENT);
		elf = elf_begin(fd, ELF_C_READ, NULL);
		k = elf && elf_kind(elf) == ELF_K_ELF ? elf_kind_of(elf) : NOT_ELF;
		if (elf)
			elf_end(elf);
	}
	if (fd >= 0)
		close(fd);
	return k;
}

int go_is_go_program(const char *path)
{
	char interp[8];

	return kind_of(path, interp, sizeof(interp)) == GO_PROGRAM;
}

int go_command_check(const char *path, char *const argv[], struct cap_err *err)
{
	char interp[200] = "";
	const char *sub = argv[0] && argv[1] ? argv[1] : "";

	switch (kind_of(path, interp, sizeof(interp))) {
	case GO_PROGRAM:
		return 0;
	case GO_TOOL:
		return cap_fail(err, EXIT_USAGE, "%s is the go tool: `go %s` builds the program "
				"without the DWARF capture go reads and runs it as a child of its own; "
				"build it first, then capture the binary: go build -o prog . && "
				"capture go --probes SPEC -- ./prog ARGS...", path, sub);
	case SCRIPT:
		return cap_fail(err, EXIT_USAGE, "%s is a script (#!%s), not a Go binary: capture go "
				"probes the Go binary COMMAND names; name that binary (its arguments "
				"after it)", path, interp);
	case ELF_NOT_GO:
		return cap_fail(err, EXIT_BAD_INPUT, "%s is an ELF executable but not a Go program "
				"(no .go.buildinfo section): capture go probes Go binaries only", path);
	default:
		return cap_fail(err, EXIT_BAD_INPUT, "%s is neither an ELF executable nor a script: "
				"capture go probes Go binaries only", path);
	}
}
