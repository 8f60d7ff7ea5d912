package runner

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/shellrun"
	"github.com/tmux-mcp/tmux-mcp/tmux"
)

// fakeEngine answers the runner's screen reads from a fixed screen and records what it was
// asked to type, without tmux.
type fakeEngine struct {
	screen tmux.Screen
	rows   []string
	err    error // when set, what every command list fails with
	sent   []tmux.Op
}

func (f *fakeEngine) Do(ctx context.Context, op tmux.Op) error { return f.Batch(ctx, op) }

func (f *fakeEngine) Batch(_ context.Context, ops ...tmux.Op) error {
	if f.err != nil {
		return f.err
	}
	for _, op := range ops {
		switch o := op.(type) {
		case *tmux.Screen:
			pane := o.Pane
			*o = f.screen
			o.Pane = pane
		case *tmux.Capture:
			o.Lines = slices.Clone(f.rows)
		default:
			f.sent = append(f.sent, op)
		}
	}
	return nil
}

func fakeRun(f *fakeEngine) *run {
	return &run{eng: f, req: Request{pane: tmux.Pane{PaneID: "%1", PaneWidth: f.screen.Width}}}
}

// TestRedrawAtFake finds the typed line on a screen where the prompt did not start in column
// 0, and says where the wrapper redraws the command, from the screen alone.
func TestRedrawAtFake(t *testing.T) {
	typed := " . /tmp/x/r1"
	f := &fakeEngine{screen: tmux.Screen{Width: 20, Height: 4, CursorX: 7, CursorY: 2, HistorySize: 0, HistoryLimit: 2000},
		rows: []string{"out", "no newline$ . /tmp/x", "/r1", ""}}
	x := fakeRun(f)
	r := x.redrawAt(context.Background(), typed)
	if r == nil || r.Up != 2 || r.Col != 11 {
		t.Fatalf("redraw %+v, want 2 rows up from column 11", r)
	}
	if x.left != "no newline$" {
		t.Fatalf("left %q", x.left)
	}
	// A screen that cannot be read: nothing to redraw.
	f.err = errors.New("no server")
	if r := x.redrawAt(context.Background(), typed); r != nil {
		t.Fatalf("redraw %+v of an unreadable screen", r)
	}
}

// TestScreenFake reads the screen before typing, refuses a cursor off the rows, and text left
// of the cursor.
func TestScreenFake(t *testing.T) {
	f := &fakeEngine{screen: tmux.Screen{Width: 10, CursorX: 2, CursorY: 1, HistorySize: 5, HistoryLimit: 9},
		rows: []string{"a", "$ ls -l", ""}}
	x := fakeRun(f)
	b := x.screenBefore(context.Background())
	if !b.ok || b.x != 2 || b.y != 1 || b.cols != 10 || b.hist != 5 || b.limit != 9 || b.left() != "$ " {
		t.Fatalf("before %+v", b)
	}
	if got, ok := x.screenText(context.Background(), "ls", false); !ok || got != "a$" {
		t.Fatalf("screenText %q %v", got, ok)
	}
	f.screen.CursorY = 3
	if b := x.screenBefore(context.Background()); b.ok {
		t.Fatalf("cursor off the rows read as %+v", b)
	}
}

// TestPromptDrawnFake: text left of the cursor is a prompt, unless it is the previous run's
// output without a final line break (the shell has not drawn its prompt yet).
func TestPromptDrawnFake(t *testing.T) {
	f := &fakeEngine{screen: tmux.Screen{Width: 20, CursorX: 10, CursorY: 1}, rows: []string{"$ printf x", "no newline", ""}}
	x := fakeRun(f)
	if !x.promptDrawn(context.Background()) {
		t.Error("text left of the cursor is not taken for a prompt")
	}
	x.unterminated = "no newline"
	if x.promptDrawn(context.Background()) {
		t.Error("the previous run's unterminated output is taken for a prompt")
	}
	f.rows[1], f.screen.CursorX = "no newline$ ", 12
	if !x.promptDrawn(context.Background()) {
		t.Error("a prompt drawn after the previous run's output is not seen")
	}
	f.screen.CursorX, f.screen.CursorY = 0, 2
	if x.promptDrawn(context.Background()) {
		t.Error("an empty row is taken for a prompt")
	}
}

// TestKeysFake presses the keys then types the text, in one batch.
func TestKeysFake(t *testing.T) {
	f := &fakeEngine{}
	x := fakeRun(f)
	if err := x.keys(context.Background(), shellrun.ClearKeys(shellrun.Bash, false)[0], "echo hi"); err != nil {
		t.Fatal(err)
	}
	if len(f.sent) != 2 {
		t.Fatalf("sent %#v", f.sent)
	}
	k, ok := f.sent[0].(*tmux.SendKeys)
	txt, ok2 := f.sent[1].(*tmux.SendText)
	if !ok || !ok2 || k.Pane != "%1" || !slices.Equal(k.Keys, []string{"End", "A", "C-u"}) || txt.Text != "echo hi" {
		t.Fatalf("sent %#v %#v", f.sent[0], f.sent[1])
	}
}

// TestUnpersistShellGone: removing a run's option also tells whether its pane is gone.
func TestUnpersistShellGone(t *testing.T) {
	for _, c := range []struct {
		err  error
		gone bool
	}{
		{nil, false},
		{&tmux.CommandError{Command: []string{"set-option"}, Message: "no such pane: %1"}, true},
		{tmux.ErrServerNotRunning, true},
		{tmux.ErrTimeout, false},
	} {
		f := &fakeEngine{err: c.err}
		x := fakeRun(f)
		x.r, x.persisted = &Runner{}, true
		if got := x.unpersist(&Result{Outcome: Completed}); got != c.gone {
			t.Errorf("error %v: unpersist said shell gone %v", c.err, got)
		}
	}
}

// TestProcessGone: a process that exited and was reaped is gone; this one is not.
func TestProcessGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip(err)
	}
	if !processGone(cmd.Process.Pid) || processGone(os.Getpid()) || processGone(0) {
		t.Error("processGone: a reaped child not gone, or this process gone")
	}
}
