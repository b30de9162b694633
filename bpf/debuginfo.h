/* SPDX-License-Identifier: MIT */
/*
 * Where an ELF file's DWARF is when the file has none (a distribution's
 * library, a binary split by objcopy --only-keep-debug): its separate
 * debug file, looked for as gdb looks (docs/libraries.md, "Separate
 * debug information").  With DIRS the debug directories (CAPTURE_DEBUG_DIRS,
 * colon-separated, else /usr/lib/debug), in this order:
 *
 *   DIR/.build-id/xx/yyyy.debug    by the file's GNU build id, xxyyyy
 *   DIR/xxyyyy/debuginfo           the same in debuginfod's cache layout
 *   FILEDIR/LINK                   by its .gnu_debuglink's name LINK,
 *   FILEDIR/.debug/LINK            FILEDIR the file's directory (its real
 *   DIR/FILEDIR/LINK               path's)
 *
 * The first that exists is the one: its build id must be the file's, or
 * it is refused naming both (a debug file of another build would place
 * every probe at a wrong address).  gdb's own finder (libdwfl's
 * dwfl_standard_find_debuginfo) skips such a file silently and looks on;
 * the refusal needs the candidate, so the lookup is done here.
 */
#ifndef DEBUGINFO_H
#define DEBUGINFO_H

#include <libelf.h>

struct cap_err;

/*
 * The descriptor of @elf's first note of @type whose owner is @owner (its
 * name, NUL-padded as Go pads "Go"), its length into *@len; NULL if none.
 */
const void *elf_note(Elf *elf, unsigned type, const char *owner, size_t *len);
/* The data of @elf's section @name (".gnu_debuglink"), or NULL. */
Elf_Data *elf_section(Elf *elf, const char *name);
/* The GNU build id note of @elf in hex into @hex (cap >= 2 * 20 + 1), "" if none. */
void elf_gnu_build_id(Elf *elf, char *hex, size_t cap);

/*
 * The separate debug file of @path (opened as @elf, whose GNU build id
 * is @build_id in hex, "" if none) that has DWARF: its path (caller
 * frees); NULL and @err (EXIT_BAD_INPUT) if none is found, saying where
 * it looked, or if the first one found is another build's.
 */
char *debug_file_find(const char *path, Elf *elf, const char *build_id,
		      struct cap_err *err);

#endif
