package shellrun

import (
	"fmt"
	"strings"
	"testing"
)

// hijackNames are the names the typed line and the wrappers use, and a few the command's
// own shell might have redefined around them.
var hijackNames = []string{".", "source", "eval", "trap", "command", "builtin", "printf", "set", "unset",
	"exit", "return", "read", "history", "print", "declare", "typeset", "rm", "echo"}

var fishHijackNames = []string{"source", "printf", "functions", "exit", "echo", "emit", "history"}

// TestHijackingDefinitions defines each name as an alias and as a function in the
// interactive shell (where the shell accepts the definition), with and without errexit, then
// runs "exit 7": the run must report 7, or fail naming the definition; never another status,
// and the shell must survive. The definition must not run after the command either (bash
// restored its RETURN trap by eval of trap -p's "trap -- - RETURN", and an alias trap printed).
func TestHijackingDefinitions(t *testing.T) {
	for _, sh := range allShells() {
		t.Run(sh.name, func(t *testing.T) {
			need(t, sh)
			t.Parallel()
			names := hijackNames
			if sh.fam == Fish {
				names = fishHijackNames
			}
			for _, name := range names {
				for _, kind := range []string{"alias", "function"} {
					for _, errexit := range []bool{false, true} {
						if errexit && sh.fam == Fish {
							continue
						}
						label := fmt.Sprintf("%s-%s-errexit=%v", kind, name, errexit)
						t.Run(label, func(t *testing.T) {
							if kind == "function" && (sh.name == "dash" || sh.name == "sh") && specialBuiltins[name] {
								// dash refuses the definition with a syntax error, which in an
								// interactive dash reading a pipe also discards the rest of
								// its input (a terminal's next line would arrive normally).
								t.Skip("dash refuses a function of that name")
							}
							t.Parallel()
							prelude := hijackPrelude(sh, kind, name)
							if errexit {
								prelude += "\nset -e"
							}
							r := frame(t, sh, viaScript, prelude, "sh -c 'echo ran; exit 7'", true)
							p := r.parsed
							switch {
							case p.Failed != "":
								if !strings.Contains(p.Failed, "builtin") {
									t.Errorf("failure %q does not name the definition", p.Failed)
								}
							case !p.Done:
								t.Fatalf("no end marker; output:\n%s", r.out)
							case p.Status != 7 || string(p.Body) != "ran":
								t.Fatalf("status %d body %q, want 7 \"ran\"; output:\n%s", p.Status, p.Body, r.out)
							}
							// Between the end marker and the harness's own AFTER line (fish's
							// calls echo and functions).
							rest, _, _ := strings.Cut(string(r.out[p.End:]), "AFTER:")
							ownAfter := sh.fam == Fish && (name == "echo" || name == "functions")
							if p.Done && !ownAfter && strings.Contains(rest, "FAKE") {
								t.Errorf("the definition ran after the command; output:\n%s", r.out)
							}
							if r.after == "" && !(p.Failed != "" && errexit) {
								t.Errorf("the shell did not survive; output:\n%s", r.out)
							}
						})
					}
				}
			}
		})
	}
}

// specialBuiltins are POSIX's special builtins among hijackNames.
var specialBuiltins = map[string]bool{".": true, "eval": true, "exit": true, "return": true, "set": true, "trap": true, "unset": true}

// hijackPrelude defines name as an alias or a function that prints FAKE and succeeds.
func hijackPrelude(sh shell, kind, name string) string {
	if sh.fam == Fish {
		if kind == "alias" {
			return "alias " + name + "='echo FAKE'"
		}
		return "function " + name + "; echo FAKE; end"
	}
	if kind == "alias" {
		pre := ""
		if sh.name == "bash" {
			pre = "shopt -s expand_aliases\n"
		}
		return pre + "alias " + name + "='echo FAKE'"
	}
	// Some shells refuse some of these names; the definition's failure is fine.
	return "eval '" + name + "() { echo FAKE; }' 2>/dev/null"
}
