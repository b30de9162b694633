/* SPDX-License-Identifier: MIT */
/*
 * The domain set (capture spin --scenario domain): spin scenarios generated
 * from the extended audit domain (folders/spin/spin-domain.h), one per
 * pre-state in which some call can be made, each making every reachable
 * call of that pre-state in column order.  Captured at two CPUs, they
 * cover every reachable cell of both audit domains (the reference 18/18,
 * two of them self-deadlocks observed never completing).
 */
#ifndef SCENARIOS_SPIN_DOMAIN_H
#define SCENARIOS_SPIN_DOMAIN_H

#include "../../capture/json.h"
#include "steps.h"

/* The set's name for --scenario. */
#define SPIN_DOMAIN_SET "domain"

/*
 * The generated scenarios into *@out (malloc'ed; spin_scenarios_free());
 * returns their number.  Each is named after its pre-state ("held-by-0"),
 * its path is "domain/NN-NAME" and its step lines are step numbers.
 */
size_t spin_domain_scenarios(struct spin_scenario **out);

/* The scenario in the file form, "ACTOR OP" a line, into @sb. */
void spin_scenario_text(const struct spin_scenario *s, struct strbuf *sb);

#endif
