// The clients' history as data (Jepsen's shape: an invoke, then ok, fail
// or info for an outcome not known) and its linearizability check per key
// with Porcupine.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/anishathalye/porcupine"
)

// An event of the history file; Time is nanoseconds since the workload
// began (not deterministic: the file is data, never compared byte for byte).
type event struct {
	Process int     `json:"process"`
	Type    string  `json:"type"` // invoke, ok, fail, info
	F       string  `json:"f"`    // put, get
	Key     string  `json:"key"`
	Value   *string `json:"value"` // a get's answer on ok: null when absent
	Time    int64   `json:"time"`
	op      int     // the operation it belongs to (its invoke's index)
}

type history struct {
	mu     sync.Mutex
	begin  time.Time
	events []event
}

func (h *history) add(e event) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	e.Time = time.Since(h.begin).Nanoseconds()
	h.events = append(h.events, e)
	return len(h.events) - 1
}

// invoke records the call and returns its handle for complete.
func (h *history) invoke(process int, f, key string, value *string) int {
	i := h.add(event{Process: process, Type: "invoke", F: f, Key: key, Value: value})
	h.mu.Lock()
	h.events[i].op = i
	h.mu.Unlock()
	return i
}

func (h *history) complete(op int, typ string, value *string) {
	h.mu.Lock()
	inv := h.events[op]
	h.mu.Unlock()
	h.add(event{Process: inv.Process, Type: typ, F: inv.F, Key: inv.Key,
		Value: value, op: op})
}

func (h *history) write(path string) {
	f, err := os.Create(path)
	if err != nil {
		die("%v", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, e := range h.events {
		enc.Encode(e)
	}
	if err := w.Flush(); err != nil {
		die("%s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		die("%s: %v", path, err)
	}
}

type outcomes struct {
	Ok      int `json:"ok"`
	Fail    int `json:"fail"`
	Unknown int `json:"unknown"`
}

func (h *history) outcomes() outcomes {
	var o outcomes
	for _, e := range h.events {
		switch e.Type {
		case "ok":
			o.Ok++
		case "fail":
			o.Fail++
		case "info":
			o.Unknown++
		}
	}
	return o
}

// An operation's input and output as the model sees them.
type kvIn struct {
	put   bool
	value string // a put's value
}

// operations are the history's calls grouped by key, as Porcupine takes
// them.  A put whose outcome is unknown may have taken effect at any time
// after its call: it never returns.  A failed or unknown get constrains
// nothing and is left out, as a failed put (etcd refused it).
func (h *history) operations() map[string][]porcupine.Operation {
	ret := map[int]event{}
	for _, e := range h.events {
		if e.Type != "invoke" {
			ret[e.op] = e
		}
	}
	byKey := map[string][]porcupine.Operation{}
	for i, e := range h.events {
		if e.Type != "invoke" {
			continue
		}
		r, done := ret[i]
		o := porcupine.Operation{ClientId: e.Process, Call: e.Time,
			Return: math.MaxInt64}
		switch {
		case e.F == "put" && (!done || r.Type == "info"):
			o.Input = kvIn{put: true, value: *e.Value}
		case e.F == "put" && r.Type == "ok":
			o.Input, o.Return = kvIn{put: true, value: *e.Value}, r.Time
		case e.F == "get" && done && r.Type == "ok":
			o.Input, o.Return = kvIn{}, r.Time
			o.Output = ""
			if r.Value != nil {
				o.Output = *r.Value
			}
		default:
			continue
		}
		byKey[e.Key] = append(byKey[e.Key], o)
	}
	return byKey
}

// register is one key of etcd: its value, "" until the first put.
var register = porcupine.Model{
	Init: func() interface{} { return "" },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		in := input.(kvIn)
		if in.put {
			return true, in.value
		}
		return output.(string) == state.(string), state
	},
	DescribeOperation: func(input, output interface{}) string {
		if in := input.(kvIn); in.put {
			return fmt.Sprintf("put(%q)", in.value)
		}
		return fmt.Sprintf("get() -> %q", output)
	},
}

// checkTimeout bounds one key's search: an undecided key fails the run
// (it is not shown linearizable).
const checkTimeout = 60 * time.Second

type verdict struct {
	Keys       int    `json:"keys"`
	Operations int    `json:"operations"`
	Result     string `json:"result"` // Ok, Illegal or Unknown
	Key        string `json:"key,omitempty"`
	minimal    []porcupine.Operation
}

// check runs Porcupine on every key; the first key not shown linearizable
// is shrunk to a minimal history that still is not.
func (h *history) check() verdict {
	byKey := h.operations()
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	v := verdict{Keys: len(keys), Result: string(porcupine.Ok)}
	for _, k := range keys {
		v.Operations += len(byKey[k])
	}
	for _, k := range keys {
		r := porcupine.CheckOperationsTimeout(register, byKey[k], checkTimeout)
		if r != porcupine.Ok {
			v.Result, v.Key = string(r), k
			v.minimal = byKey[k]
			if r == porcupine.Illegal {
				v.minimal = shrink(byKey[k])
			}
			break
		}
	}
	return v
}

// shrink drops operations one at a time while what is left is still not
// linearizable: the result is 1-minimal (no one operation can go).  The
// put of a value a get read stays while that get does: without it the
// history would show only a value out of nowhere, not the violation.
func shrink(ops []porcupine.Operation) []porcupine.Operation {
	for dropped := true; dropped; {
		dropped = false
		for i := 0; i < len(ops); {
			rest := append(append([]porcupine.Operation{}, ops[:i]...), ops[i+1:]...)
			if !readBy(ops[i], rest) &&
				porcupine.CheckOperationsTimeout(register, rest, checkTimeout) == porcupine.Illegal {
				ops, dropped = rest, true
			} else {
				i++
			}
		}
	}
	return ops
}

// readBy tells whether o is a put of a value a get of ops read.
func readBy(o porcupine.Operation, ops []porcupine.Operation) bool {
	in := o.Input.(kvIn)
	for _, r := range ops {
		if !in.put || r.Input.(kvIn).put {
			continue
		}
		if r.Output.(string) == in.value {
			return true
		}
	}
	return false
}

// report prints the key's minimal history on stderr, one operation a line
// with its client, call and return (ms since the workload began).
func (v verdict) report(h *history) {
	var b strings.Builder
	fmt.Fprintf(&b, "etcd-live: linearizability: key %s: %s; a minimal history of %d operations (client, [call, return] ms, operation):\n",
		v.Key, v.Result, len(v.minimal))
	sort.Slice(v.minimal, func(i, j int) bool { return v.minimal[i].Call < v.minimal[j].Call })
	for _, o := range v.minimal {
		ret := "unknown"
		if o.Return != math.MaxInt64 {
			ret = fmt.Sprintf("%.3f", float64(o.Return)/1e6)
		}
		fmt.Fprintf(&b, "  c%d [%.3f, %s] %s\n", o.ClientId, float64(o.Call)/1e6, ret,
			register.DescribeOperation(o.Input, o.Output))
	}
	os.Stderr.WriteString(b.String())
}
