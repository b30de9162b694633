// A live etcd cluster for `capture etcd --live`: three members of the
// stock etcd server (go.etcd.io/etcd/server/v3, unmodified, through its
// embed entry) on loopback ports, each its own process of this binary,
// under a client workload of go.etcd.io/etcd/client/v3.
//
//	etcd-live cluster -dir DIR [-seconds N] [-clients C] [-restart=false]
//	etcd-live member -dir DIR -name NAME -cluster NAME=URL,... -peer URL -client URL
//
// cluster starts the members, runs C clients doing puts and gets for N
// seconds, kills the leader half-way under load (SIGKILL) and restarts
// it from its data directory, then stops every member and prints one JSON
// line: requests done, seconds, requests per second, the leader changes
// seen. A member runs until SIGTERM or SIGINT and exits 0 after a clean
// close.  Nothing else is written on stdout; diagnostics go to stderr.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
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

// freePorts asks the kernel for n unused loopback ports.
func freePorts(n int) []int {
	var ls []net.Listener
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			die("no free port: %v", err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}

type node struct {
	name, peer, client, dir string
	cmd                     *exec.Cmd
	done                    chan error
}

func (n *node) start(self, initial string) {
	n.cmd = exec.Command(self, "member", "-dir", n.dir, "-name", n.name,
		"-cluster", initial, "-peer", n.peer, "-client", n.client)
	n.cmd.Stderr = os.Stderr
	if err := n.cmd.Start(); err != nil {
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

type counts struct{ puts, gets, failed atomic.Int64 }

// work runs one client until ctx ends: a put, then a get of the same key.
func work(ctx context.Context, cli *clientv3.Client, id int, c *counts) {
	for i := 0; ctx.Err() == nil; i++ {
		key := fmt.Sprintf("k%d-%d", id, i%100)
		rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := cli.Put(rctx, key, fmt.Sprint(i))
		if err == nil {
			c.puts.Add(1)
			_, err = cli.Get(rctx, key)
			if err == nil {
				c.gets.Add(1)
			}
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			c.failed.Add(1)
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// leader is the member that says it leads, or -1.
func leader(cli *clientv3.Client, nodes []*node) int {
	for i, n := range nodes {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := cli.Status(ctx, n.client)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}

func waitLeader(cli *clientv3.Client, nodes []*node, not int) int {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if l := leader(cli, nodes); l >= 0 && l != not {
			return l
		}
		time.Sleep(100 * time.Millisecond)
	}
	die("no leader within 30 s")
	return -1
}

// restartLeader kills the leader under load (SIGKILL: a crash, nothing
// flushed or handed over) and starts it again from its data directory once
// another member leads.  The clients go on throughout: what the killed
// member had appended but not yet saved is lost, which Raft allows (no
// response was predicated on it) and the etcd folder's restart check
// accepts (docs/etcd-live.md).
func restartLeader(cli *clientv3.Client, nodes []*node, first int,
	self, initial string) (string, string) {
	l := leader(cli, nodes)
	if l < 0 {
		l = first
	}
	nodes[l].kill()
	next := waitLeader(cli, nodes, l)
	nodes[l].start(self, initial)
	return nodes[l].name, nodes[next].name
}

type summary struct {
	Requests       int64   `json:"requests"`
	Puts           int64   `json:"puts"`
	Gets           int64   `json:"gets"`
	Failed         int64   `json:"failed"`
	Clients        int     `json:"clients"`
	Seconds        float64 `json:"seconds"`
	RequestsPerSec float64 `json:"requests_per_second"`
	LeaderStopped  string  `json:"leader_stopped,omitempty"`
	NewLeader      string  `json:"new_leader,omitempty"`
}

func cluster(args []string) {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	dir := fs.String("dir", "", "directory for the members' data (must not exist)")
	seconds := fs.Float64("seconds", 30, "how long the workload runs")
	clients := fs.Int("clients", 8, "concurrent clients")
	restart := fs.Bool("restart", true, "stop the leader half-way and restart it")
	fs.Parse(args)
	if *dir == "" || *clients < 1 || *seconds <= 0 {
		die("cluster: -dir, a positive -seconds and -clients are needed")
	}
	if err := os.Mkdir(*dir, 0o700); err != nil {
		die("%v", err)
	}
	self, err := os.Executable()
	if err != nil {
		die("%v", err)
	}
	ports := freePorts(2 * members)
	nodes := make([]*node, members)
	var initial, endpoints []string
	for i := range nodes {
		n := &node{name: fmt.Sprintf("m%d", i+1),
			peer:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]),
			client: fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1])}
		n.dir = filepath.Join(*dir, n.name)
		nodes[i] = n
		initial = append(initial, n.name+"="+n.peer)
		endpoints = append(endpoints, n.client)
	}
	for _, n := range nodes {
		n.start(self, strings.Join(initial, ","))
	}
	// A signal to the cluster stops its members before it goes.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-sig
		for _, n := range nodes {
			n.cmd.Process.Signal(syscall.SIGTERM)
		}
		os.Exit(1)
	}()

	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints,
		DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		die("client: %v", err)
	}
	first := waitLeader(cli, nodes, -1)

	var c counts
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	begin := time.Now()
	for i := 0; i < *clients; i++ {
		wg.Add(1)
		go func(id int) { defer wg.Done(); work(ctx, cli, id, &c) }(i)
	}
	s := summary{Clients: *clients}
	half := time.Duration(*seconds * float64(time.Second) / 2)
	if *restart {
		time.Sleep(half)
		s.LeaderStopped, s.NewLeader = restartLeader(cli, nodes, first,
			self, strings.Join(initial, ","))
	}
	time.Sleep(time.Until(begin.Add(2 * half)))
	cancel()
	wg.Wait()
	s.Seconds = time.Since(begin).Seconds()
	cli.Close()
	for _, n := range nodes {
		n.stop()
	}
	s.Puts, s.Gets, s.Failed = c.puts.Load(), c.gets.Load(), c.failed.Load()
	s.Requests = s.Puts + s.Gets
	s.RequestsPerSec = float64(s.Requests) / s.Seconds
	if s.Requests == 0 {
		die("no request succeeded")
	}
	out, _ := json.Marshal(s)
	fmt.Println(string(out))
}
