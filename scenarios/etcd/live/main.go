// A live etcd cluster for `capture etcd --live`: three members of the
// stock etcd server (go.etcd.io/etcd/server/v3, unmodified, through its
// embed entry), each its own process of this binary in a network namespace
// of its own (netns.go), under a client workload of go.etcd.io/etcd/client/v3.
//
//	etcd-live cluster -dir DIR [-history FILE] [-seconds N] [-clients C]
//	    [-restart=false] [-nemesis KIND,...] [-seed N]
//	etcd-live member -dir DIR -name NAME -cluster NAME=URL,... -peer URL -client URL
//
// cluster builds the namespaces, starts the members, runs C clients doing
// puts and gets of shared keys for N seconds, kills the leader half-way
// under load (SIGKILL) and restarts it from its data directory, or with
// -nemesis applies the faults a schedule drawn from the seed gives
// (nemesis.go); then it stops every member once each serves again (ready),
// writes the clients' history to FILE if given (history.go), checks it for
// linearizability and prints one JSON line: requests done, the operations' outcomes, the verdict, seconds,
// requests per second, the leader changes or the nemesis's schedule and
// what it applied.  Exit 4: the history is not linearizable (a minimal
// history that shows it on stderr); 2: an unknown fault kind.  A member
// runs until SIGTERM or SIGINT and exits 0 after a clean close.  Nothing
// else is written on stdout; diagnostics go to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"google.golang.org/grpc"
)

const members = 3

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "etcd-live: "+format+"\n", args...)
	os.Exit(1)
}

func main() {
	if len(os.Args) < 2 {
		die("usage: etcd-live cluster|member [flags]")
	}
	switch os.Args[1] {
	case "cluster":
		cluster(os.Args[2:])
	case "member":
		member(os.Args[2:])
	default:
		die("unknown command %q (cluster or member)", os.Args[1])
	}
}

func mustURL(s string) url.URL {
	u, err := url.Parse(s)
	if err != nil {
		die("%s: %v", s, err)
	}
	return *u
}

// member runs one etcd server until it is told to stop.
func member(args []string) {
	fs := flag.NewFlagSet("member", flag.ExitOnError)
	dir := fs.String("dir", "", "data directory")
	name := fs.String("name", "", "member name")
	initial := fs.String("cluster", "", "initial cluster NAME=URL,...")
	peer := fs.String("peer", "", "peer URL")
	client := fs.String("client", "", "client URL")
	fs.Parse(args)

	cfg := embed.NewConfig()
	cfg.Name = *name
	cfg.Dir = *dir
	cfg.ListenPeerUrls = []url.URL{mustURL(*peer)}
	cfg.AdvertisePeerUrls = cfg.ListenPeerUrls
	cfg.ListenClientUrls = []url.URL{mustURL(*client)}
	cfg.AdvertiseClientUrls = cfg.ListenClientUrls
	cfg.InitialCluster = *initial
	cfg.InitialClusterToken = "capture-etcd-live"
	cfg.LogLevel = "fatal" // a clean close logs errors of its own
	cfg.LogOutputs = []string{"stderr"}

	// Signals first: a stop that comes while the server starts is kept.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		die("%s: %v", *name, err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		die("%s: %v", *name, err)
	case <-stop:
		e.Close()
		return
	}
	select {
	case <-stop:
	case err := <-e.Err():
		die("%s: %v", *name, err)
	}
	e.Close()
}

type node struct {
	name, peer, client, dir string
	ns                      *netns
	cmd                     *exec.Cmd
	done                    chan error
}

func (n *node) start(self, initial string) {
	n.cmd = command(self, "member", "-dir", n.dir, "-name", n.name,
		"-cluster", initial, "-peer", n.peer, "-client", n.client)
	n.cmd.Stderr = os.Stderr
	if err := n.ns.start(n.cmd); err != nil {
		die("start %s: %v", n.name, err)
	}
	n.done = make(chan error, 1)
	go func(c *exec.Cmd, done chan error) { done <- c.Wait() }(n.cmd, n.done)
}

// stop ends a member cleanly (SIGTERM); one that does not exit in time is
// an error.
func (n *node) stop() {
	n.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-n.done:
		if err != nil {
			die("%s: %v", n.name, err)
		}
	case <-time.After(20 * time.Second):
		n.cmd.Process.Kill()
		die("%s did not stop within 20 s of SIGTERM", n.name)
	}
}

// kill crashes a member: SIGKILL, then its exit is awaited.
func (n *node) kill() {
	n.cmd.Process.Kill()
	select {
	case <-n.done:
	case <-time.After(20 * time.Second):
		die("%s did not die within 20 s of SIGKILL", n.name)
	}
}

// The workload's keys: a client takes one of keysAtOnce keys at random,
// shared by every client, and the set moves on every opsPerKey*keysAtOnce
// operations, so that each key's history stays short enough to check.
const (
	keysAtOnce = 8
	opsPerKey  = 100
)

type workload struct {
	cli *clientv3.Client
	h   *history
	ops atomic.Int64
	bug sync.WaitGroup // seeded-bug writes still to be sent
}

// work runs one client until ctx ends: puts of a value of its own and gets,
// half each, of shared keys, each recorded in the history.
func (w *workload) work(ctx context.Context, id int, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	for i := 0; ctx.Err() == nil; i++ {
		n := w.ops.Add(1)
		key := fmt.Sprintf("k%d-%d", n/(keysAtOnce*opsPerKey), rng.IntN(keysAtOnce))
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		var err error
		if rng.IntN(2) == 0 {
			err = w.put(rctx, id, key, fmt.Sprintf("%d-%d", id, i))
		} else {
			err = w.get(rctx, id, key)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// put records a put: ok, or unknown (info) on any error, since a put that
// timed out or lost its connection may still commit.
func (w *workload) put(ctx context.Context, id int, key, value string) error {
	op := w.h.invoke(id, "put", key, &value)
	if seededBug && seededEarly(value) {
		return w.putEarly(op, key, value)
	}
	_, err := w.cli.Put(ctx, key, value)
	if err != nil {
		w.h.complete(op, "info", nil)
		return err
	}
	w.h.complete(op, "ok", nil)
	return nil
}

// get records a get: ok with the value (null when absent), or fail: a
// read changes nothing, so one without an answer is as if never done.
func (w *workload) get(ctx context.Context, id int, key string) error {
	op := w.h.invoke(id, "get", key, nil)
	r, err := w.cli.Get(ctx, key)
	if err != nil {
		w.h.complete(op, "fail", nil)
		return err
	}
	var v *string
	if len(r.Kvs) > 0 {
		s := string(r.Kvs[0].Value)
		v = &s
	}
	w.h.complete(op, "ok", v)
	return nil
}

// The cluster and what the nemesis needs of it.
type clusterState struct {
	nodes         []*node
	cli           *clientv3.Client
	self, initial string
}

func (c *clusterState) byName(name string) *node {
	for _, n := range c.nodes {
		if n.name == name {
			return n
		}
	}
	return nil
}

// leader is the member that says it leads, or -1.
func (c *clusterState) leader() int {
	for i, n := range c.nodes {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		st, err := c.cli.Status(ctx, n.client)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}

func (c *clusterState) leaderOr(guess int) int {
	if l := c.leader(); l >= 0 {
		return l
	}
	return guess
}

func (c *clusterState) waitLeader(not int) int {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if l := c.leader(); l >= 0 && l != not {
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
	die("no leader within 30 s")
	return -1
}

// ready waits until member n serves its clients, which it does once it
// has joined the cluster (its attributes committed), or dies if it exits
// or takes 30 s.  A member is stopped only once ready: etcd's Close waits
// for the client servers that readiness starts, so it never returns in a
// member stopped before (the others stopped, it never joins), and a
// SIGTERM just after a restart can come before the member's handler is set.
func (c *clusterState) ready(n *node) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		_, err := c.cli.Status(ctx, n.client)
		cancel()
		if err == nil {
			return
		}
		select {
		case err := <-n.done:
			die("%s exited before it was ready: %v", n.name, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	die("%s not ready within 30 s", n.name)
}

// restartLeader kills the leader under load (SIGKILL: a crash, nothing
// flushed or handed over) and starts it again from its data directory once
// another member leads.  The clients go on throughout: what the killed
// member had appended but not yet saved is lost, which Raft allows (no
// response was predicated on it) and the etcd folder's restart check
// accepts (docs/etcd-live.md).
func (c *clusterState) restartLeader(first int) (string, string) {
	l := c.leaderOr(first)
	c.nodes[l].kill()
	next := c.waitLeader(l)
	c.nodes[l].start(c.self, c.initial)
	return c.nodes[l].name, c.nodes[next].name
}

type summary struct {
	Requests       int64           `json:"requests"`
	Puts           int64           `json:"puts"`
	Gets           int64           `json:"gets"`
	Failed         int64           `json:"failed"`
	Operations     outcomes        `json:"operations"`
	Linearizable   verdict         `json:"linearizability"`
	Clients        int             `json:"clients"`
	Seconds        float64         `json:"seconds"`
	RequestsPerSec float64         `json:"requests_per_second"`
	LeaderStopped  string          `json:"leader_stopped,omitempty"`
	NewLeader      string          `json:"new_leader,omitempty"`
	Nemesis        *nemesisSummary `json:"nemesis,omitempty"`
}

// exitNotLinearizable is the cluster's exit status when the history is not
// shown linearizable (capture's "check failed").
const exitNotLinearizable = 4

func cluster(args []string) {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	dir := fs.String("dir", "", "directory for the members' data (must not exist)")
	seconds := fs.Float64("seconds", 30, "how long the workload runs")
	clients := fs.Int("clients", 8, "concurrent clients")
	restart := fs.Bool("restart", true, "stop the leader half-way and restart it (without -nemesis)")
	kinds := fs.String("nemesis", "", "faults to inject, KIND,... or all (then no -restart)")
	seed := fs.Uint64("seed", 1, "the nemesis's and the workload's seed")
	histPath := fs.String("history", "", "write the clients' history here (NDJSON; checked either way)")
	fs.Parse(args)
	if *dir == "" || *clients < 1 || *seconds <= 0 {
		die("cluster: -dir, a positive -seconds and -clients are needed")
	}
	var nem *nemesis
	if *kinds != "" {
		nem = &nemesis{summary: nemesisSummary{Seed: *seed, Kinds: parseKinds(*kinds)}}
		nem.summary.Schedule = plan(nem.summary.Kinds, *seed, *seconds)
		*restart = false
	}
	if err := os.Mkdir(*dir, 0o700); err != nil {
		die("%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		die("%v", err)
	}
	var names []string
	for i := 0; i < members; i++ {
		names = append(names, fmt.Sprintf("m%d", i+1))
	}
	nw := newNetwork(append(names, "clients"))
	c := &clusterState{self: self}
	var initial, endpoints []string
	for i := 0; i < members; i++ {
		ns := nw.nodes[i]
		n := &node{name: ns.name, ns: ns, dir: filepath.Join(*dir, ns.name),
			peer:   fmt.Sprintf("http://%s:2380", ns.addr),
			client: fmt.Sprintf("http://%s:2379", ns.addr)}
		c.nodes = append(c.nodes, n)
		initial = append(initial, n.name+"="+n.peer)
		endpoints = append(endpoints, n.client)
	}
	c.initial = strings.Join(initial, ",")
	for _, n := range c.nodes {
		n.start(self, c.initial)
	}
	// A signal to the cluster stops its members before it goes (a paused
	// member is woken to hear it).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		for _, n := range c.nodes {
			n.cmd.Process.Signal(syscall.SIGTERM)
			n.cmd.Process.Signal(syscall.SIGCONT)
		}
		os.Exit(1)
	}()

	clientNS := nw.nodes[members]
	c.cli, err = clientv3.New(clientv3.Config{Endpoints: endpoints,
		DialTimeout: 5 * time.Second, Logger: zap.NewNop(),
		DialOptions: []grpc.DialOption{grpc.WithContextDialer(clientNS.dial)}})
	if err != nil {
		die("client: %v", err)
	}
	first := c.waitLeader(-1)

	begin := time.Now()
	w := &workload{cli: c.cli, h: &history{begin: begin}}
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(id int) { defer wg.Done(); w.work(ctx, id, *seed) }(i)
	}
	s := summary{Clients: *clients}
	half := time.Duration(*seconds * float64(time.Second) / 2)
	stopNemesis := make(chan struct{})
	nemesisDone := make(chan struct{})
	if nem != nil {
		nem.c, nem.begin = c, begin
		go func() { nem.run(stopNemesis); close(nemesisDone) }()
	} else {
		close(nemesisDone)
	}
	if *restart {
		time.Sleep(half)
		s.LeaderStopped, s.NewLeader = c.restartLeader(first)
	}
	time.Sleep(time.Until(begin.Add(2 * half)))
	close(stopNemesis)
	<-nemesisDone
	cancel()
	wg.Wait()
	w.bug.Wait()
	s.Seconds = time.Since(begin).Seconds()
	// A member restarted late (the leader half-way in a short run, a
	// crash the nemesis healed as it stopped) may still be starting.
	for _, n := range c.nodes {
		c.ready(n)
	}
	c.cli.Close()
	for _, n := range c.nodes {
		n.stop()
	}
	if *histPath != "" {
		w.h.write(*histPath)
	}
	tally(&s, w.h)
	if nem != nil {
		s.Nemesis = &nem.summary
	}
	if s.Puts+s.Gets == 0 {
		die("no request succeeded")
	}
	s.Linearizable = w.h.check()
	out, _ := json.Marshal(s)
	fmt.Println(string(out))
	if s.Linearizable.Result != "Ok" {
		s.Linearizable.report(w.h)
		os.Exit(exitNotLinearizable)
	}
}

// tally counts the requests answered and failed from the history.
func tally(s *summary, h *history) {
	for _, e := range h.events {
		switch {
		case e.Type == "ok" && e.F == "put":
			s.Puts++
		case e.Type == "ok":
			s.Gets++
		case e.Type != "invoke":
			s.Failed++
		}
	}
	s.Operations = h.outcomes()
	s.Requests = s.Puts + s.Gets
	s.RequestsPerSec = float64(s.Requests) / s.Seconds
}
