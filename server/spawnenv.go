package server

import (
	"maps"
	"slices"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// spawnEnv turns an environment argument (object of strings, JSON string of one, or null) and
// suppress_persistent_history into the NAME=value pairs a new pane's environment gets.
func spawnEnv(arg any, suppressHistory bool) ([]string, error) {
	env := map[string]string{}
	m, err := objectArg("environment", arg, `{"FOO": "bar"}`)
	if err != nil {
		return nil, err
	}
	for k, v := range m {
		s, isStr := v.(string)
		if !isStr {
			return nil, fail("Pass every value as a string, e.g. {\"PORT\": \"8080\"}.", "environment value of %q got %s, not a string", truncate(k, 60), describeValue(v))
		}
		if !tmux.ValidEnvName(k) {
			return nil, fail("Variable names are letters, digits and _, not starting with a digit.", "environment name %q is not a valid variable name", truncate(k, 60))
		}
		if strings.ContainsRune(s, 0) {
			return nil, fail("Remove the NUL byte.", "environment value of %s contains a NUL byte", k)
		}
		env[k] = s
	}
	if suppressHistory {
		for _, k := range []string{"HISTFILE", "fish_history"} {
			if v, ok := env[k]; ok && v != "" {
				return nil, fail("Omit "+k+" or set it to \"\" when suppress_persistent_history is true.", "environment variable %s conflicts with suppress_persistent_history=true", k)
			}
			env[k] = ""
		}
		env["fish_private_mode"] = "1"
		hc := env["HISTCONTROL"]
		if !strings.Contains(hc, "ignorespace") && !strings.Contains(hc, "ignoreboth") {
			if hc != "" {
				hc += ":"
			}
			env["HISTCONTROL"] = hc + "ignorespace"
		}
	}
	var pairs []string
	for _, k := range slices.Sorted(maps.Keys(env)) {
		pairs = append(pairs, k+"="+env[k])
	}
	return pairs, nil
}
