// SPDX-License-Identifier: MIT
/*
 * A ZooKeeper ensemble in network namespaces (ensemble.h).  The
 * namespaces are held by processes of capture's (`unshare --net sleep
 * infinity`, killed with their group when capture ends or dies: a
 * namespace goes with the last process in it), configured with iproute2
 * and nftables run in them (`nsenter --net`), and each server is a JVM
 * started in its member's namespace.  Members are 10.31.0.ID on a bridge
 * in the hub, which holds 10.31.0.254 (the clients and capture's own
 * questions come from there).  Cutting a member off drops its packets to
 * and from the other members in its namespace; the hub still reaches it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../../capture/die.h"
#include "../../capture/err.h"
#include "../../capture/json.h"
#include "../../capture/proc.h"
#include "../../jvm/engine.h"
#include "ensemble.h"

#define SUBNET "10.31.0"
#define HUB_ADDR SUBNET ".254"
#define CLIENT_PORT 2181
#define ELECTED_S 60.0
#define HELLO_S 60.0

const char *const zk_jvm_options[] = {
	"-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
	"-Djava.net.preferIPv4Stack=true",
	/* a dead or cut-off peer's connect gives up in 1 s, not 5 */
	"-Dzookeeper.cnxTimeout=1000",
	/* a lone server's notifications back off to 2 s, not 60 */
	"-Dzookeeper.fastleader.maxNotificationInterval=2000",
	NULL,
};

struct member {
	int id;
	struct proc holder, server;
	char *ns;                   /* /proc/PID/ns/net */
	int running, isolated, configured;
};

struct zk_ensemble {
	char *dir, *classpath;
	const char *agent;
	struct jvm_engine *e;
	struct proc hub;
	char *hub_ns;
	struct member m[ZK_MAX_SERVERS + 1];
	int n, killed, first_killed, cleanup;
};

char *zk_classpath(const char *lib)
{
	size_t n;
	char **names = list_dir(lib, NULL, &n);
	struct strbuf sb = STRBUF_INIT;

	if (!names)
		die(EXIT_ENV_MISSING, "%s: the ZooKeeper jars are not there", lib);
	for (size_t i = 0; i < n; i++)
		if (has_suffix(names[i], ".jar"))
			strbuf_addf(&sb, "%s%s/%s", sb.len ? ":" : "", lib, names[i]);
	free_names(names, n);
	return sb.buf;
}

/* A process holding a new network namespace: its /proc path once it has one. */
static char *hold_namespace(struct proc *p)
{
	static const char *const argv[] = { "unshare", "--net", "sleep", "infinity", NULL };
	char self[64] = "", theirs[64] = "", *path;
	double deadline = monotonic_seconds() + 10;

	proc_start(p, argv, "/dev/null", NULL);
	path = xasprintf("/proc/%d/ns/net", p->pid);
	if (readlink("/proc/self/ns/net", self, sizeof(self) - 1) < 0)
		die(EXIT_ENV_MISSING, "/proc/self/ns/net: %s", strerror(errno));
	while (monotonic_seconds() < deadline) {
		ssize_t k = readlink(path, theirs, sizeof(theirs) - 1);

		theirs[k > 0 ? k : 0] = 0;
		if (k > 0 && strcmp(theirs, self))
			return path;
		usleep(5000);
	}
	die(EXIT_ENV_MISSING, "unshare --net made no network namespace (needs root)");
}

/* @argv run in namespace @ns; dies naming it if it fails. */
static void in_ns(const char *ns, const char *const argv[])
{
	const char *full[16];
	char *opt = xasprintf("--net=%s", ns);
	int n = 0;

	full[n++] = "nsenter";
	full[n++] = opt;
	while (*argv && n < 15)
		full[n++] = *argv++;
	full[n] = NULL;
	proc_must(EXIT_ENV_MISSING, full, NULL);
	free(opt);
}

#define IN_NS(ns, ...) in_ns(ns, (const char *const[]){ __VA_ARGS__, NULL })

static void link_member(struct zk_ensemble *en, struct member *m)
{
	char veth[16], peer[16], addr[32];

	snprintf(veth, sizeof(veth), "zk%d", m->id);
	snprintf(peer, sizeof(peer), "%d", m->holder.pid);
	snprintf(addr, sizeof(addr), SUBNET ".%d/24", m->id);
	IN_NS(en->hub_ns, "ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0",
	      "netns", peer);
	IN_NS(en->hub_ns, "ip", "link", "set", veth, "master", "br0", "up");
	IN_NS(m->ns, "ip", "addr", "add", addr, "dev", "eth0");
	IN_NS(m->ns, "ip", "link", "set", "eth0", "up");
	IN_NS(m->ns, "ip", "link", "set", "lo", "up");
}

static void write_text(const char *path, const char *text)
{
	write_file(path, text, strlen(text));
}

/* zK.cfg, dK/myid and the logging of every server. */
static void configure(struct zk_ensemble *en, struct member *m)
{
	struct strbuf sb = STRBUF_INIT;
	char *data = xasprintf("%s/d%d", en->dir, m->id), *path;

	mkdir_p(data);
	path = xasprintf("%s/myid", data);
	strbuf_addf(&sb, "%d\n", m->id);
	write_text(path, sb.buf);
	free(path);
	strbuf_reset(&sb);
	strbuf_addf(&sb, "tickTime=200\ninitLimit=20\nsyncLimit=5\ndataDir=%s\n"
		    "clientPort=%d\nclientPortAddress=" SUBNET ".%d\nadmin.enableServer=false\n"
		    "4lw.commands.whitelist=srvr\n", data, CLIENT_PORT, m->id);
	for (int i = 1; i <= en->n; i++)
		strbuf_addf(&sb, "server.%d=" SUBNET ".%d:2888:3888\n", i, i);
	path = xasprintf("%s/z%d.cfg", en->dir, m->id);
	write_text(path, sb.buf);
	free(path);
	free(data);
	strbuf_release(&sb);
	m->configured = 1;
}

struct zk_ensemble *zk_ensemble_new(int n, const char *lib, const char *agent,
				    struct jvm_engine *e)
{
	struct zk_ensemble *en = xcalloc(1, sizeof(*en));
	char *logback;

	en->n = n;
	en->agent = agent;
	en->e = e;
	en->classpath = zk_classpath(lib);
	en->dir = owned_tmp_in(temp_dir(), "capture-zookeeper");
	en->cleanup = mkdtemp_on_failure(en->dir);
	if (en->cleanup < 0)
		die(EXIT_CAPTURE_FAILED, "%s: %s", en->dir, strerror(errno));
	logback = xasprintf("%s/logback.xml", en->dir);
	write_text(logback, "<configuration><appender name=\"F\" class=\"ch.qos.logback.core."
		   "FileAppender\"><file>${zk.log}</file><encoder><pattern>%d %-5level "
		   "[%thread] %logger{0} - %msg%n</pattern></encoder></appender>"
		   "<root level=\"INFO\"><appender-ref ref=\"F\"/></root></configuration>\n");
	free(logback);
	en->hub_ns = hold_namespace(&en->hub);
	IN_NS(en->hub_ns, "ip", "link", "add", "br0", "type", "bridge");
	IN_NS(en->hub_ns, "ip", "addr", "add", HUB_ADDR "/24", "dev", "br0");
	IN_NS(en->hub_ns, "ip", "link", "set", "br0", "up");
	for (int i = 1; i <= n; i++) {
		en->m[i].id = i;
		en->m[i].ns = hold_namespace(&en->m[i].holder);
		link_member(en, &en->m[i]);
	}
	return en;
}

static struct member *member(struct zk_ensemble *en, const struct zk_step *st, int id)
{
	if (id < 1 || id > en->n)
		die(EXIT_BAD_INPUT, "line %ld: server %d is not in the ensemble (1 to %d)",
		    st->line, id, en->n);
	return &en->m[id];
}

static void start(struct zk_ensemble *en, struct member *m)
{
	const char *argv[32];
	char *ns = xasprintf("--net=%s", m->ns), *log = xasprintf("-Dzk.log=%s/s%d.log", en->dir, m->id);
	char *logback = xasprintf("-Dlogback.configurationFile=%s/logback.xml", en->dir);
	char *cfg = xasprintf("%s/z%d.cfg", en->dir, m->id), *out = xasprintf("%s/o%d", en->dir, m->id);
	int n = 0;

	if (m->running)
		die(EXIT_BAD_INPUT, "server %d runs already", m->id);
	if (!m->configured)
		configure(en, m);
	argv[n++] = "nsenter";
	argv[n++] = ns;
	argv[n++] = "java";
	for (int i = 0; zk_jvm_options[i]; i++)
		argv[n++] = zk_jvm_options[i];
	argv[n++] = log;
	argv[n++] = logback;
	argv[n++] = en->agent;
	argv[n++] = "-cp";
	argv[n++] = en->classpath;
	argv[n++] = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
	argv[n++] = cfg;
	argv[n] = NULL;
	proc_start(&m->server, argv, out, out);
	/* One after another: processes are numbered as their agents say hello. */
	if (jvm_wait_hello(en->e, m->server.pid, HELLO_S))
		die(EXIT_CAPTURE_FAILED, "server %d's JVM did not start within %g s (its output: %s)",
		    m->id, HELLO_S, out);
	m->running = 1;
	free(ns);
	free(log);
	free(logback);
	free(cfg);
	free(out);
}

static void kill_server(struct zk_ensemble *en, struct member *m)
{
	struct proc_result r;

	if (!m->running)
		die(EXIT_BAD_INPUT, "server %d does not run", m->id);
	jvm_killed(en->e, m->server.pid);
	kill(m->server.pid, SIGKILL);
	proc_poll(&m->server, &r, 1);
	m->running = 0;
	en->killed = m->id;
	if (!en->first_killed)
		en->first_killed = m->id;
}

/*
 * A socket in the hub's namespace: made on this thread moved there and
 * back (a socket stays in the namespace it was made in).
 */
static int hub_socket(struct zk_ensemble *en)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	int hub = open(en->hub_ns, O_RDONLY | O_CLOEXEC), s = -1;

	if (self < 0 || hub < 0 || setns(hub, CLONE_NEWNET))
		die(EXIT_ENV_MISSING, "setns %s: %s", en->hub_ns, strerror(errno));
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (setns(self, CLONE_NEWNET))
		die(EXIT_CAPTURE_FAILED, "setns back: %s", strerror(errno));
	close(self);
	close(hub);
	return s;
}

/* What server @m says it is ("leader", "follower"), "" when it serves not, NULL unreachable. */
static const char *mode(struct zk_ensemble *en, const struct member *m)
{
	static char buf[4096];
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(CLIENT_PORT) };
	char addr[32];
	struct pollfd p;
	size_t got = 0;
	int s = hub_socket(en);
	char *at;

	snprintf(addr, sizeof(addr), SUBNET ".%d", m->id);
	inet_pton(AF_INET, addr, &a.sin_addr);
	p = (struct pollfd){ .fd = s, .events = POLLOUT };
	if ((connect(s, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS) ||
	    poll(&p, 1, 1000) != 1 || (p.revents & (POLLERR | POLLHUP)) ||
	    write(s, "srvr", 4) != 4) {
		close(s);
		return NULL;
	}
	p.events = POLLIN;
	while (got < sizeof(buf) - 1 && poll(&p, 1, 1000) == 1) {
		ssize_t k = read(s, buf + got, sizeof(buf) - 1 - got);

		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(s);
	buf[got] = 0;
	if (!(at = strstr(buf, "Mode: ")))
		return "";
	at += 6;
	at[strcspn(at, "\r\n")] = 0;
	return at;
}

/* The server leading now among those that run and are not cut off, or 0. */
static int leader(struct zk_ensemble *en)
{
	for (int i = 1; i <= en->n; i++) {
		const char *md;

		if (en->m[i].running && !en->m[i].isolated && (md = mode(en, &en->m[i])) &&
		    !strcmp(md, "leader"))
			return i;
	}
	return 0;
}

/*
 * The servers that run and reach each other have one leader, the others
 * follow it: each says so.  @why what they said last.
 */
static int agreed(struct zk_ensemble *en, struct strbuf *why)
{
	int leaders = 0, ok = 1;

	strbuf_reset(why);
	for (int i = 1; i <= en->n; i++) {
		const char *md;

		if (!en->m[i].running || en->m[i].isolated)
			continue;
		md = mode(en, &en->m[i]);
		strbuf_addf(why, "%sserver %d %s", why->len ? ", " : "",
			    i, !md ? "unreachable" : !*md ? "not serving" : md);
		leaders += md && !strcmp(md, "leader");
		ok &= md && (!strcmp(md, "leader") || !strcmp(md, "follower"));
	}
	return ok && leaders == 1;
}

static void elected(struct zk_ensemble *en, const struct zk_step *st)
{
	double deadline = monotonic_seconds() + ELECTED_S;
	struct strbuf why = STRBUF_INIT;

	while (!agreed(en, &why)) {
		if (monotonic_seconds() > deadline)
			die(EXIT_CAPTURE_FAILED, "line %ld: no leader elected within %g s (%s)",
			    st->line, ELECTED_S, why.buf);
		usleep(200000);
	}
	strbuf_release(&why);
}

static void isolate(struct zk_ensemble *en, struct member *m)
{
	char *rules = xasprintf("%s/cut%d.nft", en->dir, m->id);

	write_text(rules, "table inet capture_zk {\n"
		   " chain in { type filter hook input priority 0; ip saddr " SUBNET ".0/24 "
		   "ip saddr != " HUB_ADDR " drop; }\n"
		   " chain out { type filter hook output priority 0; ip daddr " SUBNET ".0/24 "
		   "ip daddr != " HUB_ADDR " drop; }\n}\n");
	IN_NS(m->ns, "nft", "-f", rules);
	m->isolated = 1;
	free(rules);
}

static void heal(struct zk_ensemble *en)
{
	for (int i = 1; i <= en->n; i++)
		if (en->m[i].isolated) {
			IN_NS(en->m[i].ns, "nft", "delete", "table", "inet", "capture_zk");
			en->m[i].isolated = 0;
		}
}

/* @n znodes created by a client (zkCli, from the hub), each acknowledged. */
static void write_znodes(struct zk_ensemble *en, const struct zk_step *st)
{
	static int written;
	int at = leader(en);
	char *cmds = xasprintf("%s/client.in", en->dir), *out = xasprintf("%s/client.out", en->dir);
	char *server = xasprintf(SUBNET ".%d:%d", at, CLIENT_PORT), *text;
	char *script = xasprintf("exec java -Xmx64m -cp '%s' org.apache.zookeeper.ZooKeeperMain "
				 "-server %s < %s", en->classpath, server, cmds);
	const char *argv[] = { "nsenter", NULL, "sh", "-c", script, NULL };
	struct strbuf sb = STRBUF_INIT;
	int created = 0;

	if (!at)
		die(EXIT_CAPTURE_FAILED, "line %ld: no leader to write to", st->line);
	for (int i = 0; i < st->n; i++)
		strbuf_addf(&sb, "create /capture-%d x\n", ++written);
	strbuf_addstr(&sb, "quit\n");
	write_text(cmds, sb.buf);
	argv[1] = xasprintf("--net=%s", en->hub_ns);
	proc_run(argv, out, out, 120);
	text = read_file(out, NULL);
	for (const char *p = text ? text : ""; (p = strstr(p, "Created /capture-")); p++)
		created++;
	if (created != st->n)
		die(EXIT_CAPTURE_FAILED, "line %ld: %d of %d znodes created (the client said: %s)",
		    st->line, created, st->n, out);
	free((char *)argv[1]);
	free(text);
	free(cmds);
	free(out);
	free(server);
	free(script);
	strbuf_release(&sb);
}

/* The server a step names: an id, the leader now, or the one killed last. */
static struct member *named(struct zk_ensemble *en, const struct zk_step *st, int id)
{
	if (id == ZK_LEADER && !(id = leader(en)))
		die(EXIT_CAPTURE_FAILED, "line %ld: no server leads", st->line);
	if ((id == ZK_KILLED && !(id = en->killed)) ||
	    (id == ZK_FIRST_KILLED && !(id = en->first_killed)))
		die(EXIT_BAD_INPUT, "line %ld: no server was killed", st->line);
	return member(en, st, id);
}

static void step(struct zk_ensemble *en, const struct zk_step *st)
{
	switch (st->op) {
	case ZK_START:
	case ZK_RESTART:
		for (int i = 0; i < st->n; i++)
			start(en, named(en, st, st->servers[i]));
		break;
	case ZK_KILL:
		kill_server(en, named(en, st, st->servers[0]));
		break;
	case ZK_ISOLATE:
		isolate(en, named(en, st, st->servers[0]));
		break;
	case ZK_HEAL:
		heal(en);
		break;
	case ZK_WRITE:
		write_znodes(en, st);
		break;
	case ZK_ELECTED:
		elected(en, st);
		break;
	}
}

/* SIGTERM (the JVM ends, its agent says its last), SIGKILL after 10 s. */
static void stop_servers(struct zk_ensemble *en)
{
	double deadline = monotonic_seconds() + 10;
	struct proc_result r;

	for (int i = 1; i <= en->n; i++)
		if (en->m[i].running)
			kill(en->m[i].server.pid, SIGTERM);
	for (int i = 1; i <= en->n; i++) {
		struct member *m = &en->m[i];
		int done = 0;

		if (!m->running)
			continue;
		while (!(done = proc_poll(&m->server, &r, 0)) && monotonic_seconds() < deadline)
			usleep(20000);
		if (!done)
			kill_server(en, m);
		m->running = 0;
	}
}

void zk_ensemble_run(struct zk_ensemble *en, const struct zk_scenario *sc)
{
	for (size_t i = 0; i < sc->nsteps; i++) {
		const struct zk_step *st = &sc->steps[i];

		progress("%s: line %ld: %s", sc->run, st->line, zk_step_word(st->op));
		step(en, st);
	}
	stop_servers(en);
}

void zk_ensemble_free(struct zk_ensemble *en)
{
	for (int i = 1; i <= en->n; i++) {
		if (en->m[i].ns)
			proc_stop(&en->m[i].holder);
		free(en->m[i].ns);
	}
	proc_stop(&en->hub);
	free(en->hub_ns);
	remove_tree(en->dir);
	cancel_on_failure(en->cleanup);
	free(en->dir);
	free(en->classpath);
	free(en);
}
