// SPDX-License-Identifier: MIT
/* QEMU's command line of a guest boot (cmdline.h). */
#include <stdlib.h>
#include "../capture/die.h"
#include "../capture/json.h"
#include "accel.h"
#include "boot.h"
#include "cmdline.h"

/* @s with QEMU's option commas doubled: "," is ",," inside a value. */
char *qemu_opt_value(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (const char *p = s; *p; p++)
		strbuf_addstr(&sb, *p == ',' ? ",," : (char[]){ *p, 0 });
	return sb.buf;
}

void qemu_arg(struct qemu_line *l, const char *a)
{
	l->argv[l->n++] = a;
}

/* Add @a, freed with the line. */
void qemu_arg_own(struct qemu_line *l, char *a)
{
	l->owned[l->nowned++] = a;
	qemu_arg(l, a);
}

void qemu_line_free(struct qemu_line *l)
{
	for (size_t i = 0; i < l->nowned; i++)
		free(l->owned[i]);
}

/* A chardev @id writing into @path, or discarding what it gets (NULL). */
static char *chardev(const char *id, const char *path)
{
	char *value = path ? qemu_opt_value(path) : NULL;
	char *dev = path ? xasprintf("file,id=%s,path=%s", id, value) :
		    xasprintf("null,id=%s", id);

	free(value);
	return dev;
}

/*
 * The machine of boot @b: the event channel (port 0xe9) into @events and,
 * if the boot asks, the trace channel (0x4e9) into @trace.  A snapshot's
 * machine (@words NULL) always has both: the one restoring it must have
 * the devices of the one that saved it.
 */
void qemu_machine_line(struct qemu_line *l, const struct guest_boot *b,
		       enum accel accel, const char *console, const char *events,
		       const char *trace, const char *words)
{
	int kvm = accel == ACCEL_KVM;
	static const char *const fixed[] = { "-M", "pc", "-m", "256M", "-nodefaults",
		"-display", "none", "-no-reboot", "-serial", "chardev:console",
		"-device", "isa-debug-exit,iobase=0xf4,iosize=0x04", "-device",
		"isa-debugcon,iobase=0xe9,chardev=events", NULL };

	qemu_arg(l, guest_qemu());
	qemu_arg(l, "-accel");
	qemu_arg(l, accel_name(accel));
	qemu_arg(l, "-cpu");
	qemu_arg(l, kvm ? "host" : "qemu64");
	qemu_arg(l, "-smp");
	qemu_arg_own(l, xasprintf("%d", b->cpus > 0 ? b->cpus : 1));
	for (size_t i = 0; fixed[i]; i++)
		qemu_arg(l, fixed[i]);
	qemu_arg(l, "-kernel");
	qemu_arg(l, b->vmlinux);
	qemu_arg(l, "-initrd");
	qemu_arg(l, b->initrd);
	qemu_arg(l, "-append");
	qemu_arg_own(l, boot_kernel_line(b, words));
	qemu_arg(l, "-chardev");
	qemu_arg_own(l, chardev("console", console));
	qemu_arg(l, "-chardev");
	qemu_arg_own(l, chardev("events", events));
	if (trace || !words) {
		qemu_arg(l, "-chardev");
		qemu_arg_own(l, chardev("trace", trace));
		qemu_arg(l, "-device");
		qemu_arg(l, "isa-debugcon,iobase=0x4e9,chardev=trace");
	}
	if (guest_boot_lean()) {
		qemu_arg(l, "-bios");
		qemu_arg(l, "qboot.rom");
	}
	l->argv[l->n] = NULL;
}
