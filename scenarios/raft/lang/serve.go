// SPDX-License-Identifier: MIT

// "-serve": the tries of capture etcd --explore --via ebpf (and of
// capture hashicorp --explore), in this one process under the probes
// (attached once).  Each stdin line is
// a try: tab-separated, the GOCOVERDIR of its counters ("" for none),
// "quiet" or "" (a refusal is expected: say nothing), then a command line
// of this harness (-generate ..., or SCENARIO_FILE [STEP_MAP]).  The
// driver's probes at tryStart and tryEnd send the events between them to
// the try's file and tell it the try's status (0, or 3: a step refused).
// The harness's Fatal(3) panics with a refusal while serving.
package lang

import (
	"bufio"
	"fmt"
	"os"
	"runtime/coverage"
	"strings"
)

// refusal is a Fatal(3) while serving: the try ends, not the process.
type refusal struct{ msg string }

var serving bool

// tryStart and tryEnd are probe sites (not inlined, so that they stay
// functions to probe).
//
//go:noinline
func tryStart(i int) {}

//go:noinline
func tryEnd(i, status int) {}

func serve() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	metaWritten := map[string]bool{}
	serving = true
	for i := 0; in.Scan(); i++ {
		f := strings.Split(in.Text(), "\t")
		if len(f) < 3 {
			Fatal(2, "-serve: try %d: want COVERDIR, QUIET and a command line", i)
		}
		tryStart(i)
		status := covered(f[0], metaWritten, func() int {
			return runTry(f[2:], f[1] == "quiet")
		})
		tryEnd(i, status)
	}
	if in.Err() != nil {
		Fatal(1, "-serve: stdin: %v", in.Err())
	}
}

// covered runs try with raft's counters cleared before it and written to
// dir after it (as a fresh process under GOCOVERDIR=dir would at exit);
// the meta-data file once per directory.
func covered(dir string, metaWritten map[string]bool, try func() int) int {
	if dir == "" {
		return try()
	}
	if err := coverage.ClearCounters(); err != nil {
		Fatal(1, "-serve: %v (build with -cover -covermode=atomic)", err)
	}
	status := try()
	if !metaWritten[dir] {
		if err := coverage.WriteMetaDir(dir); err != nil {
			Fatal(1, "-serve: %v", err)
		}
		metaWritten[dir] = true
	}
	if err := coverage.WriteCountersDir(dir); err != nil {
		Fatal(1, "-serve: %v", err)
	}
	return status
}

// runTry runs one command line of the harness; a refusal is status 3.
func runTry(args []string, quiet bool) (status int) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		ref, ok := r.(refusal)
		if !ok {
			panic(r)
		}
		if !quiet {
			fmt.Fprintln(os.Stderr, ref.msg)
		}
		status = 3
	}()
	switch {
	case len(args) >= 1 && args[0] == "-generate":
		generate(args[1:])
	case len(args) == 1 || len(args) == 2:
		h.Replay(args[0], strings.Join(args[1:], ""))
	default:
		Fatal(2, "-serve: bad try %q", strings.Join(args, " "))
	}
	return 0
}
