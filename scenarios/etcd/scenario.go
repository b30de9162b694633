// SPDX-License-Identifier: MIT

// The scenario language: a header of "config KEY VALUE" lines, then one
// step a line, "#" starting a comment.  docs/raft-scenarios.md describes every word
// and the raft calls it makes.
package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// config is the raft configuration every node of a scenario runs with.
type config struct {
	preVote, checkQuorum        bool
	electionTick, heartbeatTick int
	// membership: a follower drops proposals instead of forwarding
	// them, the uncommitted entries' bytes a leader takes (0: no
	// limit), and committed conf changes wait for an apply step instead
	// of being applied at the Ready that hands them out (zero: raft's
	// and the harness's defaults)
	noForwarding   bool
	maxUncommitted uint64
	applyByStep    bool
}

// The configuration of the reference scenarios (no header).
var defaultConfig = config{electionTick: 10, heartbeatTick: 1}

// step is one parsed scenario line.
type step struct {
	pos    string // file:line, for refusals while the step runs
	text   string // the line's words, comment cut
	word   string
	ids    []uint64
	data   string
	index  uint64
	groups [][]uint64 // partition
}

// words maps each step to the kinds of its arguments: n a node id, d data,
// l a link T<-F, i an index >= 1; partition takes groups of its own.
var words = map[string]string{
	"campaign": "n", "propose": "nd", "tick": "n", "deliver": "l",
	"discard": "n", "pump": "", "elect": "nnn",
	"deliver-one": "l", "drop": "l", "duplicate": "l", "reverse": "l",
	"crash": "n", "restart": "n", "compact": "ni", "heal": "",
	"partition": "", "hold": "n", "release": "n",
	"add-node": "nn", "remove-node": "nn", "apply": "n",
}

// parseID reads a node id 1..maxNodes (the harness's: nodes above the
// initial ones join by add-node).
func parseID(s string) (uint64, bool) {
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil && id >= 1 && id <= maxNodes
}

// parseLink reads "T<-F".
func parseLink(s string) ([]uint64, bool) {
	t, f, ok := strings.Cut(s, "<-")
	if !ok {
		return nil, false
	}
	to, ok1 := parseID(t)
	from, ok2 := parseID(f)
	return []uint64{to, from}, ok1 && ok2 && to != from
}

// parseArg reads one argument of kind k into s.
func parseArg(s *step, k byte, arg string) string {
	switch k {
	case 'l':
		ids, ok := parseLink(arg)
		if !ok {
			return fmt.Sprintf("expected T<-F with distinct nodes 1..%d", maxNodes)
		}
		s.ids = append(s.ids, ids...)
	case 'd':
		s.data = arg
	case 'i':
		i, err := strconv.ParseUint(arg, 10, 64)
		if err != nil || i == 0 {
			return "bad index " + strconv.Quote(arg) + " (an integer >= 1)"
		}
		s.index = i
	default:
		id, ok := parseID(arg)
		if !ok {
			return "bad node id " + strconv.Quote(arg)
		}
		s.ids = append(s.ids, id)
	}
	return ""
}

// parseGroups reads "A B | C": every node in exactly one of two or more
// groups (the initial nodes here; a joined one when it runs).
func parseGroups(s *step, args []string) string {
	var seen [maxNodes + 1]bool
	group := []uint64{}
	for i, a := range append(args, "|") {
		if a != "|" {
			id, ok := parseID(a)
			if !ok || seen[id] {
				return "bad or repeated node id " + strconv.Quote(a)
			}
			seen[id] = true
			group = append(group, id)
			continue
		}
		if len(group) == 0 {
			return fmt.Sprintf("empty group before argument %d", i+1)
		}
		s.groups = append(s.groups, group)
		group = []uint64{}
	}
	if len(s.groups) < 2 {
		return "partition takes two or more groups separated by |"
	}
	for id := 1; id <= nodes; id++ {
		if !seen[id] {
			return fmt.Sprintf("partition leaves out node %d", id)
		}
	}
	return ""
}

func parseStep(fields []string) (step, string) {
	s := step{word: fields[0]}
	kinds, known := words[s.word]
	if !known {
		return s, "unknown step " + strconv.Quote(s.word)
	}
	if s.word == "partition" {
		return s, parseGroups(&s, fields[1:])
	}
	if len(fields)-1 != len(kinds) {
		return s, fmt.Sprintf("%s takes %d argument(s)", s.word, len(kinds))
	}
	for i, arg := range fields[1:] {
		if bad := parseArg(&s, kinds[i], arg); bad != "" {
			return s, bad
		}
	}
	return s, ""
}

func parseSwitch(v string) (bool, bool) {
	return v == "on", v == "on" || v == "off"
}

func parseTick(v string) (int, bool) {
	t, err := strconv.Atoi(v)
	return t, err == nil && t >= 1 && t <= 1000
}

// parseSize reads a byte count 1..2^30.
func parseSize(v string) (uint64, bool) {
	n, err := strconv.ParseUint(v, 10, 64)
	return n, err == nil && n >= 1 && n <= 1<<30
}

// setConfig applies one header line "config KEY VALUE" to cfg.
func setConfig(cfg *config, fields []string) string {
	if len(fields) != 3 {
		return "config takes a key and a value"
	}
	key, v := fields[1], fields[2]
	ok := false
	switch key {
	case "prevote":
		cfg.preVote, ok = parseSwitch(v)
	case "checkquorum":
		cfg.checkQuorum, ok = parseSwitch(v)
	case "election-tick":
		cfg.electionTick, ok = parseTick(v)
	case "heartbeat-tick":
		cfg.heartbeatTick, ok = parseTick(v)
	case "forwarding":
		cfg.noForwarding, ok = v == "off", v == "on" || v == "off"
	case "max-uncommitted-size":
		cfg.maxUncommitted, ok = parseSize(v)
	case "apply-conf":
		cfg.applyByStep, ok = v == "step", v == "step" || v == "ready"
	default:
		return "unknown config key " + strconv.Quote(key) +
			" (prevote, checkquorum, election-tick, heartbeat-tick, " +
			"forwarding, max-uncommitted-size, apply-conf)"
	}
	if !ok {
		return fmt.Sprintf("config %s: bad value %q", key, v)
	}
	return ""
}

// scenarioLine parses one non-empty line into the header or the steps.
func scenarioLine(cfg *config, seen map[string]bool, steps []step,
	fields []string, pos string) ([]step, string) {
	if fields[0] != "config" {
		s, bad := parseStep(fields)
		s.pos, s.text = pos, strings.Join(fields, " ")
		return append(steps, s), bad
	}
	if len(steps) > 0 {
		return steps, "config belongs in the header, before the first step"
	}
	if len(fields) > 1 && seen[fields[1]] {
		return steps, "config " + fields[1] + " given twice"
	}
	if len(fields) > 1 {
		seen[fields[1]] = true
	}
	return steps, setConfig(cfg, fields)
}

// readScenario parses a scenario file; a bad line exits 3 naming file:line.
func readScenario(path string) (config, []step) {
	f, err := os.Open(path)
	if err != nil {
		fatal(3, "%v", err)
	}
	defer f.Close()
	cfg, seen := defaultConfig, map[string]bool{}
	var steps []step
	header := "" // the last config line's file:line
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text, _, _ := strings.Cut(sc.Text(), "#")
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		pos := fmt.Sprintf("%s:%d", path, line)
		if fields[0] == "config" {
			header = pos
		}
		var bad string
		if steps, bad = scenarioLine(&cfg, seen, steps, fields, pos); bad != "" {
			fatal(3, "%s: %s", pos, bad)
		}
	}
	if err := sc.Err(); err != nil {
		fatal(3, "%s: %v", path, err)
	}
	if cfg.heartbeatTick >= cfg.electionTick {
		fatal(3, "%s: heartbeat-tick %d must be below election-tick %d",
			header, cfg.heartbeatTick, cfg.electionTick)
	}
	return cfg, steps
}
