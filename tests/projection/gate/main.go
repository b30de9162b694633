// gate: a lock held in one packed word, for capture's projections
// (docs/projection.md, tests/projection/gate.probes).  The word of the
// package variable gate says, from its low bits up:
//
//	bit 0       the gate is held
//	bits 1-7    the holder's number (0 when free)
//	bits 8-15   goroutines waiting in EnterAfter
//	bits 16-31  how many times the gate was taken
//
// Workers 1..N run the operations main hands them, one at a time and
// in a fixed order, so the schedule never varies:
//
//	Enter(who)          takes the gate (it waits while another holds it)
//	TryEnter(who) bool  takes it if it is free, says whether it did
//	Leave(who)          gives it up; only its holder may (else a panic)
//	EnterAfter(who, c)  counts itself waiting, waits until c is closed,
//	                    then takes the gate and is no longer waiting
//
// Rounds: worker r%N+1 takes the gate, the next one tries and fails,
// the holder leaves, the next one tries and succeeds, and leaves.  Then
// once, on purpose, an overlap: worker 2 enters after a channel, and
// while it waits worker 1 enters and leaves; then worker 2 takes it.
// Each step is logged on stdout.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"sync/atomic"
)

const (
	held        = 1
	holderShift = 1
	holderMask  = 0x7f << holderShift
	waiterUnit  = 1 << 8
	waiterMask  = 0xff << 8
	takenUnit   = 1 << 16
)

type Gate struct {
	word atomic.Uint32
}

var gate Gate

// take: the gate, held by who, taken once more; false if held already.
func (g *Gate) take(who uint32, stopWaiting bool) bool {
	for {
		w := g.word.Load()
		if w&held != 0 {
			return false
		}
		nw := (w | held | who<<holderShift) + takenUnit
		if stopWaiting {
			nw -= waiterUnit
		}
		if g.word.CompareAndSwap(w, nw) {
			return true
		}
	}
}

//go:noinline
func (g *Gate) Enter(who uint32) {
	for !g.take(who, false) {
		runtime.Gosched()
	}
}

//go:noinline
func (g *Gate) TryEnter(who uint32) bool {
	return g.take(who, false)
}

//go:noinline
func (g *Gate) Leave(who uint32) {
	for {
		w := g.word.Load()
		if w&held == 0 || (w&holderMask)>>holderShift != who {
			panic(fmt.Sprintf("Leave by %d of a gate it does not hold (%#x)", who, w))
		}
		if g.word.CompareAndSwap(w, w&^(held|holderMask)) {
			return
		}
	}
}

//go:noinline
func (g *Gate) EnterAfter(who uint32, c <-chan struct{}) {
	g.word.Add(waiterUnit)
	<-c
	for !g.take(who, true) {
		runtime.Gosched()
	}
}

func (g *Gate) waiting() uint32 {
	return (g.word.Load() & waiterMask) >> 8
}

type op struct {
	name string
	c    chan struct{}
}

// A worker runs its operations in order, each acknowledged when done.
func worker(who uint32, ops <-chan op, done chan<- string) {
	for o := range ops {
		s := o.name
		switch o.name {
		case "enter":
			gate.Enter(who)
		case "leave":
			gate.Leave(who)
		case "try":
			s = fmt.Sprintf("try %v", gate.TryEnter(who))
		case "after":
			gate.EnterAfter(who, o.c)
		}
		done <- fmt.Sprintf("worker %d %s word %#x", who, s, gate.word.Load())
	}
}

func main() {
	workers := flag.Int("workers", 3, "workers (2..127)")
	rounds := flag.Int("rounds", 6, "rounds of enter, try, leave, try, leave")
	flag.Parse()
	if *workers < 2 || *workers > 127 {
		fmt.Fprintln(os.Stderr, "gate: -workers must be 2..127")
		os.Exit(2)
	}
	ops := make([]chan op, *workers+1)
	done := make(chan string)
	for w := 1; w <= *workers; w++ {
		ops[w] = make(chan op)
		go worker(uint32(w), ops[w], done)
	}
	step := func(w int, name string) {
		ops[w] <- op{name: name}
		fmt.Println(<-done)
	}
	for r := 0; r < *rounds; r++ {
		a, b := r%*workers+1, (r+1)%*workers+1
		step(a, "enter")
		step(b, "try")
		step(a, "leave")
		step(b, "try")
		step(b, "leave")
	}
	// The overlap: worker 2 waits inside EnterAfter while worker 1 acts.
	c := make(chan struct{})
	ops[2] <- op{name: "after", c: c}
	for gate.waiting() == 0 {
		runtime.Gosched()
	}
	step(1, "enter")
	step(1, "leave")
	close(c)
	fmt.Println(<-done)
	step(2, "leave")
}
