// SPDX-License-Identifier: MIT

// The scenario language: a header of "config KEY VALUE" lines, then one
// step a line, "#" starting a comment.  docs/raft-scenarios.md describes
// every word and the raft calls it makes.
package lang

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Config is the raft configuration every node of a scenario runs with.
type Config struct {
	PreVote, CheckQuorum        bool
	ElectionTick, HeartbeatTick int
	// membership: a follower drops proposals instead of forwarding
	// them, the uncommitted entries' bytes a leader takes (0: no
	// limit), and committed conf changes wait for an apply step instead
	// of being applied at the Ready that hands them out (zero: raft's
	// and the harness's defaults)
	NoForwarding   bool
	MaxUncommitted uint64
	ApplyByStep    bool
}

// The configuration of the reference scenarios (no header).
var defaultConfig = Config{ElectionTick: 10, HeartbeatTick: 1}

// Step is one parsed scenario line.
type Step struct {
	Pos    string // file:line, for refusals while the step runs
	Text   string // the line's words, comment cut
	Word   string
	IDs    []uint64
	Data   string
	Index  uint64
	Groups [][]uint64 // partition
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

// parseID reads a node id 1..MaxNodes (the harness's: nodes above the
// initial ones join by add-node).
func parseID(s string) (uint64, bool) {
	id, err := strconv.ParseUint(s, 10, 64)
	return id, err == nil && id >= 1 && id <= h.MaxNodes
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
func parseArg(s *Step, k byte, arg string) string {
	switch k {
	case 'l':
		ids, ok := parseLink(arg)
		if !ok {
			return fmt.Sprintf("expected T<-F with distinct nodes 1..%d", h.MaxNodes)
		}
		s.IDs = append(s.IDs, ids...)
	case 'd':
		s.Data = arg
	case 'i':
		i, err := strconv.ParseUint(arg, 10, 64)
		if err != nil || i == 0 {
			return "bad index " + strconv.Quote(arg) + " (an integer >= 1)"
		}
		s.Index = i
	default:
		id, ok := parseID(arg)
		if !ok {
			return "bad node id " + strconv.Quote(arg)
		}
		s.IDs = append(s.IDs, id)
	}
	return ""
}

// parseGroups reads "A B | C": every node in exactly one of two or more
// groups (the initial nodes here; a joined one when it runs).
func parseGroups(s *Step, args []string) string {
	seen := make([]bool, h.MaxNodes+1)
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
		s.Groups = append(s.Groups, group)
		group = []uint64{}
	}
	if len(s.Groups) < 2 {
		return "partition takes two or more groups separated by |"
	}
	for id := uint64(1); id <= h.Nodes; id++ {
		if !seen[id] {
			return fmt.Sprintf("partition leaves out node %d", id)
		}
	}
	return ""
}

func parseStep(fields []string) (Step, string) {
	s := Step{Word: fields[0]}
	kinds, known := words[s.Word]
	if !known {
		return s, "unknown step " + strconv.Quote(s.Word)
	}
	if s.Word == "partition" {
		return s, parseGroups(&s, fields[1:])
	}
	if len(fields)-1 != len(kinds) {
		return s, fmt.Sprintf("%s takes %d argument(s)", s.Word, len(kinds))
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
func setConfig(cfg *Config, fields []string) string {
	if len(fields) != 3 {
		return "config takes a key and a value"
	}
	key, v := fields[1], fields[2]
	ok := false
	switch key {
	case "prevote":
		cfg.PreVote, ok = parseSwitch(v)
	case "checkquorum":
		cfg.CheckQuorum, ok = parseSwitch(v)
	case "election-tick":
		cfg.ElectionTick, ok = parseTick(v)
	case "heartbeat-tick":
		cfg.HeartbeatTick, ok = parseTick(v)
	case "forwarding":
		cfg.NoForwarding, ok = v == "off", v == "on" || v == "off"
	case "max-uncommitted-size":
		cfg.MaxUncommitted, ok = parseSize(v)
	case "apply-conf":
		cfg.ApplyByStep, ok = v == "step", v == "step" || v == "ready"
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
func scenarioLine(cfg *Config, seen map[string]bool, steps []Step,
	fields []string, pos string) ([]Step, string) {
	if fields[0] != "config" {
		s, bad := parseStep(fields)
		s.Pos, s.Text = pos, strings.Join(fields, " ")
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

// ReadScenario parses a scenario file; a bad line exits 3 naming file:line.
func ReadScenario(path string) (Config, []Step) {
	f, err := os.Open(path)
	if err != nil {
		Fatal(3, "%v", err)
	}
	defer f.Close()
	cfg, seen := defaultConfig, map[string]bool{}
	var steps []Step
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
			Fatal(3, "%s: %s", pos, bad)
		}
	}
	if err := sc.Err(); err != nil {
		Fatal(3, "%s: %v", path, err)
	}
	if cfg.HeartbeatTick >= cfg.ElectionTick {
		Fatal(3, "%s: heartbeat-tick %d must be below election-tick %d",
			header, cfg.HeartbeatTick, cfg.ElectionTick)
	}
	return cfg, steps
}
