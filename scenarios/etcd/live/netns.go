// The cluster's network: every member and the clients in a network
// namespace of their own, joined by veth pairs to a bridge in a hub
// namespace, addresses only inside those namespaces (10.29.0.0/24, which
// no interface of the machine's own namespace carries).  The namespaces
// have no name (nothing under /run/netns): this process holds each by an
// open descriptor and the processes started in them hold them too, so
// they go, with their links and filter rules, when the last of those
// exits.  Every process started here dies with this one (a parent-death
// signal, command), which dies with capture however capture ends: so the
// namespaces go with capture, SIGKILL included.
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const subnet = "10.29.0"

// A namespace, held open by this process.
type netns struct {
	fd    int
	name  string      // for messages
	addr  string      // its address on the bridge ("" for the hub)
	calls chan func() // run on the thread that made the namespace (newNS)
}

// inNS runs f on an OS thread moved into ns; the thread is never given
// back to Go's scheduler (its goroutine ends locked), so no other
// goroutine ever runs in ns by mistake.  A process f starts begins in ns.
func inNS(ns *netns, f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(ns.fd, unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("setns %s: %v", ns.name, err)
			return
		}
		errc <- f()
	}()
	return <-errc
}

// newNS makes a new network namespace and keeps it open, and the thread
// that made it, in it, for the rest of the process (ns.start).
func newNS(name, addr string) *netns {
	ns := &netns{name: name, addr: addr, calls: make(chan func())}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := syscall.Unshare(syscall.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("unshare: %v", err)
			return
		}
		fd, err := syscall.Open("/proc/thread-self/ns/net",
			syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		ns.fd = fd
		errc <- err
		for f := range ns.calls {
			f()
		}
	}()
	if err := <-errc; err != nil {
		die("network namespace %s: %v (needs root)", name, err)
	}
	return ns
}

// path names the namespace for ip's "netns" argument.
func (ns *netns) path() string {
	return fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), ns.fd)
}

// run runs a command (ip, nft) inside ns; a failure ends the run.
func (ns *netns) run(argv ...string) {
	if err := ns.try(argv...); err != nil {
		die("%v", err)
	}
}

func (ns *netns) try(argv ...string) error {
	return inNS(ns, func() error {
		out, err := command(argv[0], argv[1:]...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("in %s: %q: %v: %s", ns.name, argv, err, out)
		}
		return nil
	})
}

// dial connects from inside ns (the socket is made there and keeps it).
func (ns *netns) dial(ctx context.Context, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNS(ns, func() error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		return err
	})
	return c, err
}

// network is the hub and the namespaces on its bridge.
type network struct {
	hub   *netns
	nodes []*netns // members m1.., then the clients
}

// filter is each node's own nftables table the nemesis writes into: one
// chain for what comes in, one for what goes out.
const filterTable = `table inet nemesis {
	chain in { type filter hook input priority 0; policy accept; }
	chain out { type filter hook output priority 0; policy accept; }
}`

// newNetwork builds the hub with its bridge and one namespace for each
// name, the i-th at 10.29.0.(i+1).
func newNetwork(names []string) *network {
	n := &network{hub: newNS("hub", "")}
	n.hub.run("ip", "link", "add", "br0", "type", "bridge")
	n.hub.run("ip", "link", "set", "br0", "up")
	for i, name := range names {
		ns := newNS(name, fmt.Sprintf("%s.%d", subnet, i+1))
		veth := "v" + name
		n.hub.run("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0",
			"netns", ns.path())
		n.hub.run("ip", "link", "set", veth, "master", "br0", "up")
		ns.run("ip", "link", "set", "lo", "up")
		ns.run("ip", "addr", "add", ns.addr+"/24", "dev", "eth0")
		ns.run("ip", "link", "set", "eth0", "up")
		ns.nft(filterTable)
		n.nodes = append(n.nodes, ns)
	}
	return n
}

// nft applies a ruleset (nft -f -) inside ns.
func (ns *netns) nft(rules string) {
	err := inNS(ns, func() error {
		cmd := command("nft", "-f", "-")
		cmd.Stdin = strings.NewReader(rules)
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("in %s: nft: %v: %s\n%s", ns.name, err, out, rules)
		}
		return nil
	})
	if err != nil {
		die("%v", err)
	}
}

// command is a process that dies with this one (SIGKILL).  The kernel
// sends the parent-death signal when the thread that started the process
// ends, not the process: one started by inNS is waited for there, before
// its thread ends; a member is started by ns.start.
func command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// start starts cmd (made by command) inside ns, from the thread that made
// ns, which lives as long as this process: a thread of inNS ends with its
// call and would take the process with it.
func (ns *netns) start(cmd *exec.Cmd) error {
	errc := make(chan error, 1)
	ns.calls <- func() { errc <- cmd.Start() }
	return <-errc
}
