// SPDX-License-Identifier: MIT
/*
 * Which QEMU and which boot (boot.h, guest.h): the environment's choice
 * and the kernel command line it makes.
 */
#include <stdio.h>
#include <stdlib.h>
#include "../capture/die.h"
#include "../capture/proc.h"
#include "boot.h"

/* Where a snapshot's guest waits for its words (qemu/init). */
#define SNAPSHOT_WORD " capture_snapshot=1"

/* Quiet, fast boot: no KASLR, no mitigations, no keyboard probe. */
static const char base_append[] =
	"console=ttyS0 quiet panic=-1 nokaslr mitigations=off tsc=reliable "
	"no_timer_check i8042.noaux i8042.nokbd i8042.nopnp";

/*
 * The lean boot (docs/results/spin.md has the measurements, TCG, 2 vCPUs):
 * qboot instead of SeaBIOS (-0.18 s before the kernel runs), no crypto
 * self-tests (-0.5 s), no local APIC timer calibration (-0.12 s: 100 ms of
 * waiting on the PIT), no read-only remapping and its W+X check (-0.1 s),
 * no ACPI (-0.1 s; qboot's MP table still lists every CPU), an
 * uncompressed initramfs (-0.06 s of gunzip), and noreplace-smp (-0.12 s:
 * at one CPU the kernel otherwise rewrites its ~9,200 lock prefixes, and
 * every module's, into NOPs one text_poke() at a time; a locked
 * instruction means the same on one CPU, and at two nothing is rewritten
 * anyway).  Nothing the capture uses is left out: the scenario module, its
 * kthreads and the debug ports.
 */
static const char lean_append[] =
	" cryptomgr.notests nolapic_timer rodata=off acpi=off noreplace-smp";

/* CAPTURE_GUEST_BOOT: snapshot (the default), lean or classic. */
int guest_boot(void)
{
	static const char *const boots[] = { "snapshot", "lean", "classic", NULL };
	int boot = env_choice("CAPTURE_GUEST_BOOT", boots);

	return boot < 0 ? 0 : boot;
}

int guest_boot_lean(void)
{
	return guest_boot() != 2;
}

const char *guest_qemu(void)
{
	const char *q = getenv("CAPTURE_QEMU");

	return q && *q ? q : "qemu-system-x86_64";
}

/*
 * /init's capture_stop: "exit" for a boot-only run; CAPTURE_GUEST_STOP=
 * poweroff or hang makes the guest fail the way real guests do (stopping
 * without a word, hanging), which the checks below must catch; midway and
 * midway-hang reach the guest's own script (the spin module stops printing
 * halfway, then ends or hangs).
 */
static const char *stop_word(const struct guest_boot *b)
{
	static const char *const stops[] = { "poweroff", "hang", "midway",
					      "midway-hang", NULL };
	int stop;

	if (b->boot_only)
		return "exit";
	stop = env_choice("CAPTURE_GUEST_STOP", stops);
	return stop < 0 ? NULL : stops[stop];
}

/* The words /init gets as variables: the boot's own and its capture_stop. */
char *boot_words(const struct guest_boot *b)
{
	const char *stop = stop_word(b);

	return xasprintf("%s%s %s", stop ? "capture_stop=" : "", stop ? stop : "",
			 b->append ? b->append : "");
}

/*
 * The kernel command line of @b with @words, or, for a snapshot (NULL),
 * with the word that makes /init wait for them from fw_cfg.
 */
char *boot_kernel_line(const struct guest_boot *b, const char *words)
{
	return xasprintf("%s%s %s%s%s", base_append, guest_boot_lean() ? lean_append : "",
			 b->prepare ? b->prepare : "", words ? " " : SNAPSHOT_WORD,
			 words ? words : "");
}
