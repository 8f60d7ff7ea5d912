package marks

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Event
	}{
		{"\x1b]133;A\x07", []Event{{Kind: Prompt}}},
		{"\x1b]133;D;130\x1b\\", []Event{{Kind: Done, Status: 130, HasStatus: true}}},
		{"\x1b]133;D\x07", []Event{{Kind: Done}}},
		{"\x1b]133;D;0;aid=42\x07", []Event{{Kind: Done, HasStatus: true}}},
		{"\x1b]133;A;cl=m;aid=7\x07", []Event{{Kind: Prompt}}},
		{"\x1b]133;C;cmdline_url=echo%20one\x07", []Event{{Kind: Output, Cmdline: "echo one"}}},
		{"\x1b]133;C;cmdline=ls -l\x07", []Event{{Kind: Output, Cmdline: "ls -l"}}},
		{"\x1b]633;E;echo\\x3b hi\\\\;nonce\x07", []Event{{Kind: Line, Cmdline: `echo; hi\`}}},
		{"\x1b]7;file://host/tmp/a%20b\x07", []Event{{Kind: Cwd, Path: "/tmp/a b"}}},
		{"\x1b]7;http://x/y\x07", nil},
		{"\x1b]6973;abc;S\x07\x1b]6973;abc;E;3\x07", []Event{{Kind: RunStart, RunID: "abc"}, {Kind: RunEnd, RunID: "abc", Status: 3, HasStatus: true}}},
		{"\x1b]133;Z\x07\x1b]0;title\x07\x1b]133;B", nil},
		{"\x1b]133;A\x18\x1b]133;B\x07", []Event{{Kind: Input}}},
		{"\x1b]133;A\x1b[0m\x1b]133;B\x07", []Event{{Kind: Input}}},
	} {
		for split := 0; split <= len(tc.in); split++ {
			var p Parser
			var got []Event
			emit := func(ev Event, _ int) { ev.At, ev.End = 0, 0; got = append(got, ev) }
			p.Feed([]byte(tc.in[:split]), 0, emit)
			p.Feed([]byte(tc.in[split:]), int64(split), emit)
			if len(got) != len(tc.want) {
				t.Fatalf("%q split %d: got %+v, want %+v", tc.in, split, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("%q split %d: got %+v, want %+v", tc.in, split, got[i], tc.want[i])
				}
			}
		}
	}
}

func TestParseOffsets(t *testing.T) {
	var p Parser
	in := "ab\x1b]133;C\x07out"
	var ev Event
	var next int
	p.Feed([]byte(in), 100, func(e Event, n int) { ev, next = e, n })
	if ev.At != 102 || ev.End != 110 || next != 10 {
		t.Fatalf("got at %d end %d next %d", ev.At, ev.End, next)
	}
}

const (
	mA = "\x1b]133;A\x07"
	mB = "\x1b]133;B\x07"
	mC = "\x1b]133;C\x07"
)

func mD(s string) string { return "\x1b]133;D;" + s + "\x07" }

func TestHistory(t *testing.T) {
	stream := "\x1b]7;file://h/home/u\x07" + mA + "$ " + mB + "echo one\r\n" + mC + "one\r\n" + mD("0") +
		mA + "$ " + mB + "falx\x08\x1b[Kse\r\n" + mC + mD("1") +
		mA + "$ " + mB + "\r\n" + mD("0") + // an empty line
		mA + "$ " + mB + "cd /tmp\r\n" + mC + mD("0") + "\x1b]7;file://h/tmp\x07" +
		mA + "$ " + mB + "sleep 100\r\n" + mC + "^C\r\n" + mD("130") + mD("130") + // doubled D
		mA + "$ " + mB + "\x1b]133;C;cmdline_url=make%20all\x07" + "partial"
	for split := 0; split < len(stream); split += 7 {
		var h History
		h.Write([]byte(stream[:split]), 0, time.Now())
		h.Write([]byte(stream[split:]), int64(split), time.Now())
		cmds := h.Commands(int64(len(stream)))
		type row struct {
			cmd    string
			status int
			cwd    string
			lines  int
		}
		want := []row{{"echo one", 0, "/home/u", 1}, {"false", 1, "/home/u", 0}, {"cd /tmp", 0, "/home/u", 0},
			{"sleep 100", 130, "/tmp", 1}, {"make all", -1, "/tmp", 1}}
		if len(cmds) != len(want) {
			t.Fatalf("split %d: %d commands: %+v", split, len(cmds), cmds)
		}
		for i, w := range want {
			c := cmds[i]
			st := -1
			if c.Status != nil {
				st = *c.Status
			}
			if c.Command != w.cmd || st != w.status || c.Cwd != w.cwd || c.ID != i+1 || (c.Lines != w.lines && i != 4) {
				t.Fatalf("split %d: command %d = %+v (status %d), want %+v", split, i, c, st, w)
			}
		}
		if got := stream[cmds[0].OutStart:cmds[0].OutEnd]; got != "one\r\n" {
			t.Fatalf("split %d: output %q", split, got)
		}
		if last := cmds[4]; !last.Running || stream[last.OutStart:last.OutEnd] != "partial" {
			t.Fatalf("split %d: last %+v", split, last)
		}
	}
}

func TestHistoryRuns(t *testing.T) {
	var h History
	h.Runs("ls /")
	run := "\x1b]6973;r1;S\x07bin\r\n\x1b]6973;r1;E;2\x07"
	// Within a marked wrapper line, and in a shell without marks.
	for _, s := range []string{mA + mB + "{ . /x; }\r\n" + mC + run + mD("2") + mA, run} {
		h = History{}
		h.Runs("ls /")
		h.Write([]byte(s), 0, time.Now())
		cmds := h.Commands(0)
		if len(cmds) != 1 || !cmds[0].ByServer || cmds[0].Command != "ls /" || *cmds[0].Status != 2 || s[cmds[0].OutStart:cmds[0].OutEnd] != "bin\r\n" {
			t.Fatalf("%q: %+v", s, cmds)
		}
	}
}

func TestHistoryBound(t *testing.T) {
	h := History{Max: 3}
	for range 5 {
		h.Write([]byte(mB+"x\r\n"+mC+mD("0")), 0, time.Now())
	}
	cmds := h.Commands(0)
	if len(cmds) != 3 || cmds[0].ID != 3 || cmds[2].ID != 5 {
		t.Fatalf("%+v", cmds)
	}
}

func TestTyped(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"echo one\r\n", "echo one"},
		{"\x1b[1mecho\x1b[0m one", "echo one"},
		{"eco\x08\x08ch\x1b[Ko", "echo"},
		{"abc\x1b[2Dx", "axc"},
		{"for i in 1\r\n> do\r\n", "for i in 1\n> do"},
		{"ls\x1b[3Cx", "ls   x"},
		{"héllo wörld", "héllo wörld"},
		{"abc\x1b[1G\x1b[Pz", "zc"},
		// A right prompt (fish's, drawn first, then the line typed): not the command's.
		{"\r\x1b[92C12:00:01\r\x1b[92C\r\x1b[2Cfalse\r\x1b[92C12:00:02\r\n", "false"},
		{"make\x1b[60C\x1b[90m12:00:01\x1b[m\r\n", "make"},
	} {
		var ty typed
		ty.write([]byte(tc.in))
		if got := ty.text(); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzHistory(f *testing.F) {
	f.Add([]byte(mA+mB+"echo one\r\n"+mC+"one\r\n"+mD("0")), 3)
	f.Add([]byte("\x1b]7;file://h/tmp\x07\x1b]6973;x;S\x07\x1b]6973;x;E;1\x07"), 1)
	f.Add([]byte("\x1b]133;C;cmdline_url=%zz\x1b\\\x1b]633;E;\\x4\x07"), 0)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		var h History
		h.Max = 4
		if split < 0 || split > len(b) {
			split = len(b) / 2
		}
		h.Write(b[:split], 0, time.Time{})
		h.Write(b[split:], int64(split), time.Time{})
		for _, c := range h.Commands(int64(len(b))) {
			if c.OutStart < 0 || c.OutEnd < c.OutStart || c.OutEnd > int64(len(b)) {
				t.Fatalf("bad range %d..%d of %d", c.OutStart, c.OutEnd, len(b))
			}
			if strings.ContainsRune(c.Command, 0x1b) {
				t.Fatalf("escape in command %q", c.Command)
			}
		}
	})
}

// TestTypedAfterPrompt: a line editor that redraws the line from the screen's start moves
// past the prompt by its width (fish 3: "\r\x1b[13C"), and erases what it drew there (the
// grey autosuggestion "/" after "cd /tmp") from that column: the prompt's width, known from
// the text between A and B, is where the command line begins.
func TestTypedAfterPrompt(t *testing.T) {
	fish := "cd \r\x1b[9C/tmp\r\x1b[13C\x1b[38;5;240m/\r\x1b[13C\x1b[30m\x1b[m\x0f\b\b\b\b\b\b\b" +
		"\x1b[34mcd\x1b[30m\x1b[m\x0f \x1b[36m\x1b[4m/tmp\x1b[38;5;240m\x1b[24m/\r\x1b[13C\x1b[30m\x1b[m\x0f" +
		"\x1b[K\r\x1b[13C\r\n\x1b[30m\x1b[m\x0f"
	for _, tc := range []struct{ name, prompt, typed, want string }{
		{"fish autosuggestion", "/tmp> ", fish, "cd /tmp"},
		{"two-line prompt", "~/src\r\n\x1b[32m❯\x1b[m ", "ls\r\x1b[2Cls -l\r\n", "ls -l"},
		{"redrawn with the prompt", "$ ", "ech\r$ echo\r\n", "echo"},
		{"to a column", "$ ", "abc\x1b[4G\x1b[Kd\r\n", "ad"},
	} {
		var h History
		h.Write([]byte(mA+tc.prompt+mB+tc.typed+mC+mD("0")), 0, time.Time{})
		if cmds := h.Commands(1 << 20); len(cmds) != 1 || cmds[0].Command != tc.want {
			t.Errorf("%s: %+v, want the command %q", tc.name, cmds, tc.want)
		}
	}
}

// TestTypedUnknownOrigin: a reader that came in at a fish prompt sees the first key drawn at
// the cursor, then the editor's redraws from the screen's start.
func TestTypedUnknownOrigin(t *testing.T) {
	var ty typed
	ty.write([]byte("e\r\x1b[22Cecho \r\x1b[27Cone\r\x1b[30C\b\b\b\b\b\b\b\b\x1b[34mecho\x1b[m one\r\n"))
	if got := ty.text(); got != "echo one" {
		t.Fatalf("got %q", got)
	}
	ty = typed{}
	ty.write([]byte("echo one\r\n")) // bash: no redraw
	if got := ty.text(); got != "echo one" {
		t.Fatalf("got %q", got)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("\x1b]133;D;1;aid=3\x07\x1b]7;file://h/a%20b\x1b\\"), 5)
	f.Add([]byte("\x1b]633;E;a\\x3bb\x07\x1b]6973;id;E;-1\x07"), 0)
	f.Fuzz(func(t *testing.T, b []byte, split int) {
		if split < 0 || split > len(b) {
			split = 0
		}
		var p Parser
		last := int64(-1)
		emit := func(ev Event, next int) {
			if ev.At < 0 || ev.End <= ev.At || ev.End > int64(len(b)) || ev.At < last {
				t.Fatalf("event %+v out of order or range (len %d)", ev, len(b))
			}
			last = ev.End
		}
		p.Feed(b[:split], 0, emit)
		p.Feed(b[split:], int64(split), emit)
	})
}

// TestHistoryRunInNestedShell: a run typed into a shell started by a marked command (bash in
// an integrated zsh, ssh) is listed on its own, and the command it ran inside runs on and ends
// with its own status: the run used to take that command's place, which was then lost.
func TestHistoryRunInNestedShell(t *testing.T) {
	run := "{ . /x; }\r\n\x1b]6973;r1;S\x07bin\r\n\x1b]6973;r1;E;2\x07inner$ "
	for _, tc := range []struct {
		name, after string
		status      int // the nested shell's
	}{
		{"exited", "exit\r\n" + mD("0") + mA + "$ ", 0},
		{"killed under the run", "", 137},
	} {
		var h History
		before := mA + "$ " + mB + "bash\r\n" + mC + "inner$ echo hi\r\nhi\r\ninner$ "
		h.Write([]byte(before), 0, time.Time{})
		h.Runs("ls /")
		rest := run + tc.after
		if tc.after == "" {
			rest = "{ . /x; }\r\n\x1b]6973;r1;S\x07bin\r\n" + mD("137") + mA + "$ "
		}
		h.Write([]byte(rest), int64(len(before)), time.Time{})
		stream := before + rest
		cmds := h.Commands(int64(len(stream)))
		if len(cmds) != 2 {
			t.Fatalf("%s: want the nested shell and the run, got %+v", tc.name, cmds)
		}
		sh, r := cmds[0], cmds[1]
		if sh.Command != "bash" || sh.ByServer || sh.Running || sh.Status == nil || *sh.Status != tc.status {
			t.Errorf("%s: the nested shell: %+v", tc.name, sh)
		}
		if !strings.Contains(stream[sh.OutStart:sh.OutEnd], "hi\r\n") {
			t.Errorf("%s: the nested shell's output %q", tc.name, stream[sh.OutStart:sh.OutEnd])
		}
		if r.Command != "ls /" || !r.ByServer || r.Running || r.ID != 2 || stream[r.OutStart:r.OutEnd] != "bin\r\n" {
			t.Errorf("%s: the run: %+v, output %q", tc.name, r, stream[r.OutStart:r.OutEnd])
		}
		if tc.status == 0 && (r.Status == nil || *r.Status != 2) {
			t.Errorf("%s: the run's status: %+v", tc.name, r)
		}
	}
}

// TestHistoryPromptHookMarks: a user's preexec hook in a DEBUG trap prints C before each
// command bash runs for its prompt (the integration's, direnv's, history -a), with its own
// D and A among them, after a command and after a run: only the commands typed and the run
// are listed. A prompt without B still lists what is typed at it.
func TestHistoryPromptHookMarks(t *testing.T) {
	title := func(s string) string { return "\x1b]2;" + s + "\x07" + mC }
	prompt := title("__tmux_mcp_pre") + mD("1") + "\x1b]7;file://h/p\x07" + mA + title("_direnv_hook") +
		"direnv: loading ~/p/.envrc\r\n" + title("history -a") + title("history -n") + mD("0") + mA +
		title("__tmux_mcp_post") + "u@h ~/p\r\n" + mB + "❯ "
	run := "\x1b]6973;r1;S\x07ran\r\n\x1b]6973;r1;E;0\x07"
	stream := "false\r\n" + mC + title("false") + prompt + " { . /r1; }\r\n" + mC + title("{") + run + prompt +
		"make\r\n" + mC + "made\r\n" + prompt +
		mA + "$ " + "ls\r\n" + mC + "a\r\n" + mD("0") // no B
	for split := 0; split < len(stream); split += 5 {
		var h History
		h.Runs("echo ran")
		h.Write([]byte(stream[:split]), 0, time.Now())
		h.Write([]byte(stream[split:]), int64(split), time.Now())
		var got []string
		for _, c := range h.Commands(0) {
			got = append(got, fmt.Sprintf("%s=%v/%d", c.Command, c.Status != nil && *c.Status == 0, c.Lines))
		}
		if want := []string{"false=false/0", "echo ran=true/1", "❯ make=false/1", "=true/1"}; !slices.Equal(got, want) {
			t.Fatalf("split %d: %q, want %q", split, got, want)
		}
	}
}

// TestHistoryDoubledCmdline: of two C marks for one command (the user's preexec hook's and
// the integration's), the command line the second carries is the command's, not what the
// screen showed (here with a right prompt drawn close to it).
func TestHistoryDoubledCmdline(t *testing.T) {
	var h History
	h.Write([]byte(mA+"$ "+mB+"ls -l\x1b[3C12:00:01\r\n"+mC+"\x1b]133;C;cmdline_url=ls%20-l\x07out\r\n"+mD("0")), 0, time.Time{})
	if cmds := h.Commands(0); len(cmds) != 1 || cmds[0].Command != "ls -l" || cmds[0].Lines != 1 {
		t.Fatalf("%+v", cmds)
	}
}
