// A toy cluster for the probe spec's reads of real Go values (docs/probe-spec.md,
// tests/go/test-go-reads.sh): nodes named by strings ("node-a", ...) of a
// named string type, peers in a named slice type, a state embedded in the
// node, an atomic counter, a generic store, a log behind an interface, a
// map of votes, an error result, its id and a longer blob as []byte, and
// slices of strings (every node's name) and of structs holding strings.
// Every step it makes is logged on stdout, one line each, for the test to
// compare with the events.
// Standard library only.
package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"sync/atomic"
)

type ServerID string

type IDs []uint64

// Server is an element of a node's view of the cluster.
type Server struct {
	ID   ServerID
	Addr string
}

// State is embedded in Node: its fields are the node's (n.Term).
type State struct {
	Term   uint64
	Leader ServerID
}

// Log is what a node appends to; two implementations, so that the
// dynamic type matters.
type Log interface {
	Append(v uint64)
	Len() int
}

type memLog struct {
	entries []uint64
	name    string
}

func (l *memLog) Append(v uint64) { l.entries = append(l.entries, v) }
func (l *memLog) Len() int        { return len(l.entries) }

type nullLog struct{ dropped uint64 }

func (l *nullLog) Append(uint64) { l.dropped++ }
func (l *nullLog) Len() int      { return 0 }

// Store is generic: its methods exist once per shape of K and V.
type Store[K comparable, V any] struct {
	m    map[K]V
	puts int
}

//go:noinline
func Put[K comparable, V any](s *Store[K, V], k K, v V) int {
	s.m[k] = v
	s.puts++
	return s.puts
}

type Node struct {
	State
	ID      ServerID
	Addr    string
	Key     []byte // the id's bytes
	Blob    []byte // the id's bytes 3 times
	Peers   IDs
	Known   []ServerID // every node's name
	Servers []Server   // the nodes up to this one
	Applied atomic.Uint64
	Votes   map[ServerID]bool
	Log     Log
}

var errStale = errors.New("stale term")

// step applies one message to the node; a term below the node's is refused.
//
//go:noinline
func (n *Node) step(from ServerID, term uint64, data []uint64) error {
	if term < n.Term {
		return errStale
	}
	if term > n.Term {
		n.Term = term
		n.Leader = from
	}
	n.Votes[from] = true
	for _, v := range data {
		n.Log.Append(v)
	}
	n.Applied.Add(uint64(len(data)))
	return nil
}

func main() {
	steps := flag.Int("steps", 12, "messages per node")
	flag.Parse()
	names := []ServerID{"node-a", "node-b", "node-c", "node-\"q\"\\é"}
	nodes := make([]*Node, len(names))
	for i, id := range names {
		var l Log = &memLog{name: "mem"}
		if i == 2 {
			l = &nullLog{}
		}
		peers := IDs{}
		for k := 0; k <= i*30; k++ {
			peers = append(peers, uint64(k))
		}
		nodes[i] = &Node{ID: id, Addr: strings.Repeat(string(id), 8),
			Key: []byte(id), Blob: []byte(strings.Repeat(string(id), 3)),
			Peers: peers, Known: names, Votes: map[ServerID]bool{}, Log: l}
		for _, s := range names[:i+1] {
			nodes[i].Servers = append(nodes[i].Servers, Server{ID: s, Addr: string(s) + ":80"})
		}
	}
	ints := &Store[string, int]{m: map[string]int{}}
	ids := &Store[ServerID, uint64]{m: map[ServerID]uint64{}}
	for s := 0; s < *steps; s++ {
		for i, n := range nodes {
			from := names[(i+s)%len(names)]
			term := uint64(s/3 + 1)
			if s%5 == 4 {
				term = 0
			}
			data := make([]uint64, s%4)
			for k := range data {
				data[k] = uint64(100*s + k)
			}
			err := n.step(from, term, data)
			fmt.Printf("step %s from %s term %d data %d err %v -> term %d leader %s applied %d votes %d log %d\n",
				n.ID, from, term, len(data), err == nil, n.Term, n.Leader,
				n.Applied.Load(), len(n.Votes), n.Log.Len())
			fmt.Printf("put ints %d %s\n", Put(ints, string(n.ID), s), n.ID)
			fmt.Printf("put ids %d %s\n", Put(ids, from, term), from)
		}
	}
}
