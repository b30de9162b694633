/* SPDX-License-Identifier: MIT */
/*
 * Guest runner: boot Debian's own kernel under QEMU with a small
 * initramfs, collect what the guest writes to its event channel.
 *
 *  - the kernel is Debian's linux-image of the ABI of the installed
 *    linux-headers-*-amd64 (never a hard-coded ABI), fetched with
 *    apt-get download into the cache, its XZ payload unpacked to the
 *    vmlinux ELF that QEMU boots by PVH;
 *  - the initramfs (busybox-static, qemu/init as /init, the caller's
 *    files) and out-of-tree modules build reproducibly: same inputs, same
 *    sha256;
 *  - the event channel is the debug console, port 0xe9, written by the
 *    guest as "CAPTURE BEGIN <name>", event lines, "CAPTURE END <count>"
 *    (or "CAPTURE ERROR <why>"); /init reports through isa-debug-exit.
 *    A run counts only with both markers, the full count and /init's exit
 *    code: QEMU's own exit status 0 proves nothing (a panic exits 0);
 *  - a boot may ask for a second, binary channel, port 0x4e9 (the trace
 *    channel: the ftrace ring buffer shipped by the guest's tracedump,
 *    qemu/guest/tracedump.c); it counts only if it ends with
 *    "CAPTURE TRACE END <files>".  Its decoding is the caller's.
 *
 * Everything is cached under ${CAPTURE_CACHE:-${XDG_CACHE_HOME:-
 * $HOME/.cache}/capture}; the console log of the last run of each guest
 * is kept in its last-run/ for diagnosis, outside any corpus.
 */
#ifndef QEMU_GUEST_H
#define QEMU_GUEST_H

#include "../capture/err.h"
#include "../capture/home.h"
#include <stddef.h>
#include <cJSON.h>

/* Debian's kernel image matching the installed headers. */
struct guest_kernel {
	char *abi;          /* "6.1.0-57-amd64" */
	char *headers_dir;  /* /usr/src/linux-headers-<abi> */
	char *package;      /* "linux-image-<abi>" */
	char *version;      /* Debian version, the same as the headers' */
	char deb_sha256[65];
	char *vmlinux;      /* the uncompressed kernel ELF */
};

/*
 * Find, download if needed, unpack.  -1 and @err (mostly EXIT_ENV_MISSING)
 * if it cannot, @k then empty and nothing half-written left in the cache.
 */
int guest_kernel_get(struct guest_kernel *k, struct cap_err *err);
/*
 * Add "kernel", "headers", "qemu", "busybox" provenance to @env; -1 and
 * @err if dpkg-query cannot tell the packages' versions.
 */
int guest_kernel_describe(const struct guest_kernel *k, cJSON *env,
			  struct cap_err *err);

/*
 * Build the out-of-tree module @name.ko from @files (paths; Kbuild among
 * them) against @k's headers, or reuse the cached build of the same
 * inputs.  Returns the .ko path, its sha256 into @sha; NULL and @err if it
 * cannot be built.
 */
char *guest_module_build(const struct guest_kernel *k, const char *name,
			 const char *const files[], char sha[65],
			 struct cap_err *err);

/* A file for the initramfs: @src copied to /@dest. */
struct guest_file {
	const char *src;
	const char *dest;
};

/*
 * A reproducible initramfs of busybox, qemu/init as /init and @files
 * (cached by content).  Returns its path, its sha256 into @sha; NULL and
 * @err if it cannot be built.
 */
char *guest_initramfs(const struct guest_file *files, size_t n, char sha[65],
		      struct cap_err *err);

/* One guest boot. */
struct guest_boot {
	const char *name;         /* names the last-run/ logs */
	const char *vmlinux;
	const char *initrd;
	const char *append;       /* extra kernel command-line words */
	/*
	 * Words for the guest's /prepare.sh, the same for every run of a
	 * snapshot (on its kernel line, so in its key), or NULL.
	 */
	const char *prepare;
	int cpus;
	const char *events_path;  /* the event channel's bytes go here */
	const char *trace_path;   /* the trace channel's (port 0x4e9), or NULL */
	int boot_only;            /* /init stops at once: no markers */
};

/*
 * Boot the @n boots @b, at most @jobs at a time (each its own QEMU), and
 * check their event channels; errors[i] gets boot i's "CAPTURE ERROR"
 * text or NULL (caller frees).  Adds "accelerator" to @env.  Output does
 * not depend on @jobs: each boot writes only its own event channel.  A
 * hung or broken run is retried once, then the capture fails: -1 and
 * @err of kind EXIT_CAPTURE_FAILED naming the console log (no QEMU:
 * EXIT_ENV_MISSING), every guest stopped and no channel left behind.
 */
int guest_capture_all(const struct guest_boot *b, size_t n, int jobs,
		      char **errors, cJSON *env, struct cap_err *err);

/*
 * A static guest program built from the C source @src with the Debian
 * toolchain (cached by content; the same source gives the same binary).
 * Returns its path; NULL and @err if it cannot be built.
 */
char *guest_helper_build(const char *src, struct cap_err *err);

/* QEMU: CAPTURE_QEMU, else qemu-system-x86_64 on PATH. */
const char *guest_qemu(void);
/*
 * The lean boot (the default, CAPTURE_GUEST_BOOT=snapshot: booted once,
 * saved and restored for every run; =lean: booted in full each time) or,
 * with CAPTURE_GUEST_BOOT=classic, the boot of capture 0.x (SeaBIOS,
 * every boot-time self-test, gzip'd initramfs) that bench/spin-capture
 * compares it with.
 */
int guest_boot_lean(void);

/*
 * A guest that runs one scenario module: scenarios/NAME/module/ holds
 * NAME.c, NAME-trace.h (its trace events) and Kbuild; the initramfs
 * carries NAME.ko, tracedump and the scripts /init runs in every module
 * guest, qemu/guest/prepare.sh and guest.sh.  The module takes the
 * parameters cpus and trace (0: no tracing) at load, and name, steps and
 * a write to start, which runs the scenario, after.
 */
struct module_guest {
	const char *name;
	struct guest_kernel kernel;
	char *ko_name;
	char *initrd;
	char module_sha[65];
	char initrd_sha[65];
};

/*
 * Kernel, module and initramfs of @name, once (a prepared @g is kept).
 * -1 and @err if one cannot be got or built.
 */
int module_guest_prepare(struct module_guest *g, const char *name,
			 struct cap_err *err);
/*
 * Add the kernel's provenance, "module" and "initramfs_sha256" to @env;
 * -1 and @err as guest_kernel_describe().
 */
int module_guest_describe(const struct module_guest *g, cJSON *env,
			  struct cap_err *err);
/*
 * "capture_module=NAME capture_cpus=N capture_trace_kb=K": the words of
 * @g's /prepare.sh, the same for every scenario (so a snapshot can hold
 * them).
 */
char *module_guest_words(const struct module_guest *g, int cpus, int trace_kb);
/*
 * The ftrace ring buffer per guest CPU in KiB: CAPTURE_TRACE_KB (1-65536;
 * anything else is -1 and @err, of kind EXIT_USAGE), default 256.
 */
int guest_trace_kb(struct cap_err *err);
/* Free @n boots whose strings (name, append, prepare, both paths) were allocated, and @b. */
void guest_boots_free(struct guest_boot *b, size_t n);
/* @raw less its ".log", then @suffix: a channel's file beside it. */
char *guest_channel_path(const char *raw, const char *suffix);

#endif
