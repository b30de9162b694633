/* SPDX-License-Identifier: MIT */
/*
 * A ZooKeeper ensemble on this machine (docs/zookeeper.md, "The
 * ensemble"): every server in a network namespace of its own, joined to
 * the others through a bridge in a hub namespace (the address plan of
 * capture etcd --live's, on its own subnet), the real server's jars
 * (scenarios/zookeeper/install), each JVM with capture's agent.  Servers
 * start, are killed, restarted, cut off and healed as a scenario's steps
 * say; whether they elected a leader is asked of them (their "srvr").
 * Needs root (namespaces, links, nftables rules); everything it makes
 * goes when it ends or capture dies.
 */
#ifndef SCENARIOS_ZOOKEEPER_ENSEMBLE_H
#define SCENARIOS_ZOOKEEPER_ENSEMBLE_H

#include "steps.h"

struct jvm_engine;
struct zk_ensemble;

/*
 * The network of @n servers and their configuration in a private
 * directory; @lib the jars, @agent the -agentpath option each JVM gets.
 */
struct zk_ensemble *zk_ensemble_new(int n, const char *lib, const char *agent,
				    struct jvm_engine *e);
/* Run @sc's steps, then stop every server (dies on a step that fails). */
void zk_ensemble_run(struct zk_ensemble *en, const struct zk_scenario *sc);
/* Everything gone: servers, namespaces, the directory. */
void zk_ensemble_free(struct zk_ensemble *en);

/* The class path of @lib's jars (caller frees). */
char *zk_classpath(const char *lib);
/* The JVM options every server runs with, NULL-ended (the check's too). */
extern const char *const zk_jvm_options[];

#endif
