/* SPDX-License-Identifier: MIT */
/*
 * The Asterinas spin driver: runs a scenario as a kernel test (#[ktest]) of
 * Asterinas v0.16.0's ostd, instrumented by
 * patches/asterinas-v0.16.0/capture-trace.patch, with `cargo osdk test`
 * inside Asterinas's Docker image, and keeps what COM1 printed.
 */
#ifndef SCENARIOS_SPIN_ASTERINAS_H
#define SCENARIOS_SPIN_ASTERINAS_H

#include <stdio.h>
#include "steps.h"

/*
 * Write the Rust source of the kernel test that performs @sc's steps, in
 * order, on one traced SpinLock (the module `scenario` of the patch's
 * `capture` module), named capture_spin_<name>.
 */
void asterinas_write_ktest(const struct spin_scenario *sc, FILE *out);

#endif
