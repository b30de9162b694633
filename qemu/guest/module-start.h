/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start parameter of a scenario module (qemu/guest.h, module guests):
 * a module loaded before its scenario is known (a guest saved after the
 * load is restored for any scenario) takes its steps as parameters, then
 * a write to start runs them, once.  The including module defines
 * run_scenario(), which returns 0 or a negative errno for the write.
 * Built into each module with its own sources (qemu/module-guest.c).
 */
#ifndef MODULE_START_H
#define MODULE_START_H

#include <linux/moduleparam.h>

static int run_scenario(void);

static int start_set(const char *val, const struct kernel_param *kp)
{
	static bool started;

	if (started)
		return -EBUSY;
	started = true;
	return run_scenario();
}

static const struct kernel_param_ops start_ops = { .set = start_set };
module_param_cb(start, &start_ops, NULL, 0200);
MODULE_PARM_DESC(start, "any write: run the scenario in steps (once)");

#endif
