package shellrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRecordedPanes parses raw pane output recorded with tmux pipe-pane
// from real interactive shells (line editors on, bracketed paste, prompts,
// zsh's PROMPT_SP, mksh's scrolling line editor) running the command
//
//	echo 'a<TAB>b' "x!!y" ünï
//	printf 'two\n'; exit 3
//
// framed with run id tid, through Script (…-script.out) and Inline
// (…-inline.out).
func TestParseRecordedPanes(t *testing.T) {
	files, err := filepath.Glob("testdata/raw-*.out")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			out, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			p := Parse(out, tid)
			if !p.Done || !p.Started || p.Status != 3 {
				t.Fatalf("Done=%v Started=%v Status=%d", p.Done, p.Started, p.Status)
			}
			body := strings.ReplaceAll(string(stripEscapes(p.Body)), "\r\n", "\n")
			if body != "a\tb x!!y ünï\ntwo" {
				t.Errorf("body %q", body)
			}
			if SourcingFailed(out, "/tmp/srx/posix") || SourcingFailed(out, "/tmp/srx/fish") {
				t.Error("SourcingFailed on a good run")
			}
			final := parse(out, tid)
			for n := 0; n < len(out); n++ {
				q := parse(out[:n], tid)
				if q.Done != (n >= final.End) || q.Done && q.Status != 3 {
					t.Fatalf("prefix %d: Done=%v Status=%d (marker ends at %d)", n, q.Done, q.Status, final.End)
				}
				if q.Started && q.bodyStart == final.bodyStart && !strings.HasPrefix(string(final.Body), string(q.Body)) {
					t.Fatalf("partial body at %d is not a prefix: %q", n, q.Body)
				}
			}
			if kept, dropped := ScrubForeign(strings.Split(body, "\n"), tid); dropped || len(kept) != 2 {
				t.Errorf("ScrubForeign dropped lines: %q", kept)
			}
		})
	}
}
