// A gauge whose whole state is one packed word, a package variable: bits
// 0-7 its level, 8-9 its mode, 16-31 its epoch, 63 whether it closed
// (once the epoch reaches cfg.Limit).  -workers goroutines take turns
// (worker 0, 1, ..., 0, ...) applying -ops operations each, a sequence
// that follows from the worker's number alone, so the events are the same
// every run; each is logged.  For capture go's package variables and
// computed fields (tests/go/test-go-vars.sh): a word, a sync/atomic
// counter, a pointer to a struct, an array, another package's variable.
package main

import (
	"flag"
	"fmt"
	"sync"
	"sync/atomic"

	"capture.test/gauge/dial"
)

// Config is the gauge's configuration.
type Config struct {
	Limit int64
	Step  int32
}

var (
	state  uint64 // the gauge
	hits   atomic.Int64
	cfg    = &Config{Limit: 6, Step: 3}
	recent [4]int32 // the level after each of the last 4 operations
)

const (
	raise = iota
	lower
	cycle
)

// apply applies operation op to the gauge (the caller holds the turn).
//
//go:noinline
func apply(worker, op, arg int) uint64 {
	w := state
	level, mode, epoch := w&0xff, w>>8&3, w>>16&0xffff
	n := hits.Add(1)
	switch op {
	case raise:
		level = (level + uint64(arg)) & 0xff
	case lower:
		level = max(level, uint64(arg)) - uint64(arg)
	default:
		mode = (mode + 1) & 3
		epoch++
	}
	w = level | mode<<8 | epoch<<16
	if epoch >= uint64(cfg.Limit) {
		w |= 1 << 63
	}
	state = w
	recent[n%4] = int32(level)
	fmt.Printf("apply worker=%d op=%d arg=%d level=%d mode=%d epoch=%d closed=%d "+
		"hits=%d ticks=%d limit=%d step=%d recent=%d\n", worker, op, arg, level, mode,
		epoch, w>>63, n, dial.Tick(), cfg.Limit, cfg.Step, recent[1])
	return w
}

// stop ends the program: it never returns, and has no RET (a return
// event of it is refused).
//
//go:noinline
func stop(why string) {
	panic(why)
}

func main() {
	workers := flag.Int("workers", 3, "goroutines")
	ops := flag.Int("ops", 20, "operations each")
	flag.Parse()
	if *workers < 1 || *ops < 0 {
		stop("usage: gauge [-workers N] [-ops N]")
	}
	var mu sync.Mutex
	next := sync.NewCond(&mu)
	turn := 0
	var wg sync.WaitGroup
	for g := 0; g < *workers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			seed := uint32(11 + 17*g)
			for i := 0; i < *ops; i++ {
				seed = seed*1103515245 + 12345
				mu.Lock()
				for turn%*workers != g {
					next.Wait()
				}
				apply(g, int(seed>>8%3), int(seed>>12%40)+1)
				turn++
				next.Broadcast()
				mu.Unlock()
			}
		}(g)
	}
	wg.Wait()
}
