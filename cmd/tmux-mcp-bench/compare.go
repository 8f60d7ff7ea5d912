package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// build is one tmux-mcp binary in a comparison: the one under test, or another (-compare).
type build struct{ label, bin string }

// parseBuilds reads -compare: a comma list of label=path (a bare path is labelled by itself).
func parseBuilds(list string) ([]build, error) {
	var out []build
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		label, bin, ok := strings.Cut(item, "=")
		if !ok {
			label, bin = item, item
		}
		if _, err := exec.LookPath(bin); err != nil {
			return nil, fmt.Errorf("-compare: %s: %w", item, err)
		}
		out = append(out, build{label: label, bin: bin})
	}
	return out, nil
}

// compareRounds is how many times each build is started, and how many slices the timed
// list_sessions calls are cut into; builds take turns in every round, so that a noisy moment
// of the machine weighs on all of them alike.
const compareRounds = 20

// compareRows measures start-up (to the initialize reply and to the tools/list reply) and
// list_sessions over stdio for every build, side by side in one run on one tmux server.
func compareRows(ctx context.Context, builds []build, tmx *benchTmux, n int) ([]row, error) {
	st, err := compareStartups(ctx, builds, tmx)
	if err != nil {
		return nil, err
	}
	calls, err := compareCalls(ctx, builds, tmx, n)
	if err != nil {
		return nil, err
	}
	return startupTable(builds, st, calls), nil
}

// startups are the start-up figures of every build, one samples per build each.
type startups struct {
	floors, inits, lists, bareInits, bareLists []samples
}

// compareStartups starts every build compareRounds times, the builds taking turns.
func compareStartups(ctx context.Context, builds []build, tmx *benchTmux) (startups, error) {
	all := func() []samples { return make([]samples, len(builds)) }
	st := startups{all(), all(), all(), all(), all()}
	for range compareRounds {
		for i, b := range builds {
			t0 := time.Now()
			if err := exec.Command(b.bin, "version").Run(); err != nil {
				return st, err
			}
			st.floors[i] = append(st.floors[i], time.Since(t0))
			c, err := connect(ctx, b.bin, tmx)
			if err != nil {
				return st, err
			}
			c.close()
			st.inits[i] = append(st.inits[i], c.startup)
			st.lists[i] = append(st.lists[i], c.listed)
			in, li, err := rawStartup(tmx.serverCmd(b.bin))
			if err != nil {
				return st, err
			}
			st.bareInits[i] = append(st.bareInits[i], in)
			st.bareLists[i] = append(st.bareLists[i], li)
		}
	}
	return st, nil
}

// compareCalls times n list_sessions calls of every build, in compareRounds slices that take
// turns.
func compareCalls(ctx context.Context, builds []build, tmx *benchTmux, n int) ([]samples, error) {
	calls := make([]samples, len(builds))
	clients := make([]*client, len(builds))
	for i, b := range builds {
		c, err := connect(ctx, b.bin, tmx)
		if err != nil {
			return nil, err
		}
		defer c.close()
		clients[i] = c
		if _, err := timeSamples(warmup, 0, func() error { _, err := c.call(ctx, "list_sessions", map[string]any{}); return err }); err != nil {
			return nil, err
		}
	}
	per := max(n/compareRounds, 1)
	for range compareRounds {
		for i, c := range clients {
			s, err := timeSamples(0, per, func() error { _, err := c.call(ctx, "list_sessions", map[string]any{}); return err })
			if err != nil {
				return nil, err
			}
			calls[i] = append(calls[i], s...)
		}
	}
	return calls, nil
}

// startupTable is the rows of compareRows, every build's beside the first's.
func startupTable(builds []build, st startups, calls []samples) []row {
	var rows []row
	add := func(what string, all []samples) {
		for i, b := range builds {
			r := row{what: fmt.Sprintf("%s, %s (n=%d)", what, b.label, len(all[i])), value: stat(all[i])}
			if i > 0 {
				r.floor, r.ratio = builds[0].label+" "+stat(all[0]), ratio(all[i], all[0])
			}
			rows = append(rows, r)
		}
	}
	add("tmux-mcp version (process start)", st.floors)
	add("startup to initialize reply, go-sdk client", st.inits)
	add("startup to tools/list reply, go-sdk client", st.lists)
	add("startup to initialize reply, bare JSON-RPC client", st.bareInits)
	add("startup to tools/list reply, bare JSON-RPC client", st.bareLists)
	add("list_sessions over stdio, go-sdk client", calls)
	return rows
}
