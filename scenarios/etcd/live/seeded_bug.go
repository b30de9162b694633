//go:build seededbug

// A seeded bug, built only for the test (-tags seededbug): one put in ten
// is answered ok at once and sent to etcd only 300 ms later, as a server
// that acknowledged a write before it committed.  The linearizability
// check must catch it: a get in between still sees the old value.
package main

import (
	"context"
	"strings"
	"time"
)

const seededBug = true

// seededEarly picks the puts answered early: those whose value ends in 7.
func seededEarly(value string) bool { return strings.HasSuffix(value, "7") }

func (w *workload) putEarly(op int, key, value string) error {
	w.h.complete(op, "ok", nil)
	w.bug.Add(1)
	go func() {
		defer w.bug.Done()
		time.Sleep(300 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		w.cli.Put(ctx, key, value)
	}()
	return nil
}
