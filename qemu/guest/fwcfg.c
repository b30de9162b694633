// SPDX-License-Identifier: MIT
/*
 * fwcfg: reads one named file of QEMU's fw_cfg device and writes it to
 * stdout, waiting until the file exists.  Runs in the guest (built
 * statically on the host, qemu/helper.c).  A guest restored from a
 * snapshot gets its scenario this way: fw_cfg's files come from the
 * command line of the QEMU that restores, not from the snapshot, so a file
 * absent when the snapshot was saved is there once it is restored.
 *
 * The device is read by port I/O (selector 0x510, data 0x511, as in
 * qemu:docs/specs/fw_cfg.txt): no kernel driver is needed.
 *
 * usage: fwcfg NAME
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/io.h>
#include <unistd.h>

#define FW_CFG_PORT_SEL 0x510
#define FW_CFG_PORT_DATA 0x511
#define FW_CFG_FILE_DIR 0x19
#define FW_CFG_NAME_LEN 56
/* How often a missing file is looked for again. */
#define POLL_US 5000

static void read_data(void *buf, size_t len)
{
	insb(FW_CFG_PORT_DATA, buf, len);
}

static uint32_t read_be32(void)
{
	unsigned char b[4];

	read_data(b, sizeof(b));
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | b[2] << 8 | b[3];
}

/* The selector of file @name and its size into *@size, or -1. */
static int find(const char *name, uint32_t *size)
{
	uint32_t count;

	outw(FW_CFG_FILE_DIR, FW_CFG_PORT_SEL);
	count = read_be32();
	for (uint32_t i = 0; i < count; i++) {
		unsigned char sel[4];
		char entry[FW_CFG_NAME_LEN];

		*size = read_be32();
		read_data(sel, sizeof(sel));
		read_data(entry, sizeof(entry));
		if (!strncmp(entry, name, sizeof(entry)))
			return sel[0] << 8 | sel[1];
	}
	return -1;
}

int main(int argc, char **argv)
{
	uint32_t size;
	int sel;

	if (argc != 2) {
		fputs("usage: fwcfg NAME\n", stderr);
		return 2;
	}
	if (ioperm(FW_CFG_PORT_SEL, 2, 1)) {
		perror("fwcfg: ioperm");
		return 1;
	}
	while ((sel = find(argv[1], &size)) < 0)
		usleep(POLL_US);
	outw(sel, FW_CFG_PORT_SEL);
	for (uint32_t i = 0; i < size; i++) {
		unsigned char c;

		read_data(&c, 1);
		if (!c)
			break;
		putchar(c);
	}
	return fflush(stdout) ? 1 : 0;
}
