// SPDX-License-Identifier: MIT
/* The accelerator verdict: forced, evident, or cached per host (accel.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "../capture/die.h"
#include "../capture/err.h"
#include "../capture/proc.h"
#include "accel.h"
#include "cache.h"

static struct {
	int known;
	int forced;
	enum accel accel;
	char *cache;    /* the verdict's file, NULL when none is cached */
} v;

/* The first "model name" of /proc/cpuinfo. */
static char *cpu_model(void)
{
	char *text = read_file("/proc/cpuinfo", NULL), *model, *end;

	model = text ? strstr(text, "model name") : NULL;
	if (!model) {
		free(text);
		return xstrdup("unknown");
	}
	end = model + strcspn(model, "\n");
	*end = '\0';
	model = xstrdup(model);
	free(text);
	return model;
}

/*
 * What decides whether KVM runs a guest: the host kernel, QEMU, the CPU
 * and the guest kernel image.  Their digest names the verdict's file;
 * NULL and @err if QEMU cannot tell its version.
 */
static char *verdict_path(const struct guest_boot *b, struct cap_err *err)
{
	const char *argv[] = { guest_qemu(), "--version", NULL };
	char *qemu = command_output(EXIT_ENV_MISSING, argv, err);
	char *model, *key, hex[65];
	const char *image = strrchr(b->vmlinux, '/');
	struct utsname u;

	if (!qemu)
		return NULL;
	model = cpu_model();
	uname(&u);
	key = xasprintf("%s\n%s\n%s\n%s\n%s\n%s\n", u.release, guest_qemu(), qemu,
			model, image ? image + 1 : b->vmlinux,
			guest_boot_lean() ? "lean" : "classic");
	sha256_hex(key, strlen(key), hex);
	hex[16] = '\0';
	free(key);
	free(model);
	free(qemu);
	return cache_path(err, "accel/%s", hex);
}

const char *accel_name(enum accel a)
{
	return a == ACCEL_KVM ? "kvm" : "tcg";
}

static void settle(enum accel accel)
{
	v.known = 1;
	v.accel = accel;
}

/* A cached verdict: "kvm" or "tcg", a newline, why. */
static int load(void)
{
	char *text = read_file(v.cache, NULL);
	int ok = text && (!strncmp(text, "kvm\n", 4) || !strncmp(text, "tcg\n", 4));

	if (ok) {
		text[strcspn(text + 4, "\n") + 4] = '\0';
		settle(text[0] == 'k' ? ACCEL_KVM : ACCEL_TCG);
		progress("using %s: %s (verdict cached in %s)",
			 text[0] == 'k' ? "KVM" : "TCG", text + 4, v.cache);
	}
	free(text);
	return ok;
}

/* 1 if the verdict is forced, evident or cached, 0 if not, -1 and @err. */
static int first_look(const struct guest_boot *b, struct cap_err *err)
{
	static const char *const names[] = { "tcg", "kvm", NULL };
	int force = env_choice("CAPTURE_ACCEL", names), fd;

	if (force >= 0) {
		v.forced = 1;
		settle(force ? ACCEL_KVM : ACCEL_TCG);
		progress("using %s: CAPTURE_ACCEL says so", names[force]);
		return 1;
	}
	fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		settle(ACCEL_TCG);
		progress("no usable /dev/kvm: using TCG");
		return 1;
	}
	close(fd);
	v.cache = verdict_path(b, err);
	return v.cache ? load() : -1;
}

int accel_known(const struct guest_boot *b, enum accel *accel,
		struct cap_err *err)
{
	static int looked;

	if (!looked) {
		looked = 1;
		if (first_look(b, err) < 0)
			return -1;
	}
	*accel = v.accel;
	return v.known;
}

void accel_settle(enum accel accel, const char *why)
{
	char *text = xasprintf("%s\n%s\n", accel_name(accel), why);

	settle(accel);
	if (v.cache)
		write_file_atomic(v.cache, text, strlen(text));
	free(text);
}

int accel_demote(const char *why)
{
	char *because;

	if (v.forced)
		return 0;
	because = xasprintf("a KVM guest failed after KVM was chosen: %s", why);
	accel_settle(ACCEL_TCG, because);
	free(because);
	return 1;
}
