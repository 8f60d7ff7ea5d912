package format_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/tmux/format"
)

// safeFormats expand nothing but their own text: Check must take them.
var safeFormats = []string{
	"", "-p", "plain text", "#{pane_id}", "#{cursor_x} #{cursor_y}", "#T #S #D #I #P #W #F #H #h",
	"#{?pane_dead,dead,alive}", "#{?#{pane_id},a,b}", "#{?pane_in_mode,#[fg=white#,bg=red],#[fg=red#,bg=white]}#W",
	"#{==:#{pane_id},x}", "#{!=:a,b}", "#{<=:a,b}", "#{||:#{pane_in_mode},#{alternate_on}}", "#{&&:1,0}",
	"#{s/a/b/:pane_title}", "#{s/a(.)/x/i:pane_title}", "#{s|x|y|:pane_current_path}",
	"#{=5:pane_title}", "#{=-5:pane_title}", "#{=/5/...:pane_title}", "#{=#{pane_width}:pane_title}",
	"#{p10:pane_title}", "#{p-10:pane_title}", "#{n:window_name}", "#{w:window_name}",
	"#{l:#(echo hi)}", "#{l:#{E:pane_title}}", "#{t:window_activity}", "#{t/p:window_activity}",
	"#{W:#{window_name} }", "#{W:#{window_name} ,#{window_name}* }", "#{P:#{pane_id} }", "#{S:#{W:#{P:#{pane_id} }}}",
	"#{e|+:1,2}", "#{e|*|f|4:5.5,3}", "#{e|m:7,3}", "#{m:*foo*,#{host}}", "#{m/ri:^A,#{pane_title}}", "#{C/r:^Start}", "#{C:foo}",
	"#{q:pane_title}", "#{q/h:pane_title}", "#{b:pane_current_path}", "#{d:pane_current_path}", "#{a:98}", "#{c:red}",
	"#{N:main}", "#{N/s:main}", "#{N/w:#{window_name}}", "#{L:#{client_name}}", "#{!:#{pane_dead}}", "#{!!:1}",
	"#{R:ab,3}", "#{O:#{option_name} }", "#{S/n:#{session_name} }",
	"##(not a job)", "####(x)", "##[fg=red]x", "#[fg=red]x", "}", "#{pane_title}#,#}#:",
	"#{?,a,b}", "#{?}", "#{E}", "#{T}", "#{:}", "#{=#(id):x}", "#{pane_id:}", "#{s}", "#{s/}", "#{s/a}", "#{=/:x}",
	"#{#{pane_id}}", "#{#{#{pane_id}}}", "#{?a,#{?b,#{?c,1,2},3},4}", "100%", "#{==:#{pane_id},%1}",
}

// hazards could each run a job, expand a value as a format, or make tmux misbehave; want is a
// part of the message.
var hazards = []struct{ f, want string }{
	// Formats that once got past the guard, which took the first : or } for the end of the
	// modifier list: it ends after the nested #{pane_id}.
	{"#{s/#{pane_id}/x/;E:pane_title}", "the E: modifier at byte 19"},
	{"#{?#{pane_id},#{s/#{pane_id}//;E:pane_title},}", "the E: modifier at byte 32"},
	{"#{s/#{pane_id}/x/;T:pane_title}", "the T: modifier at byte 19"},

	{"#(id)", "#( at byte 1"},
	{"x #{E:status-left}", "the E: modifier at byte 5"},
	{"#{T;=5:status-right}", "the T: modifier"},
	{"#{?#{T:@x},a,b}", "the T: modifier"},
	{"#{?1,#{E:pane_title},}", "the E: modifier"},
	{"#{W:#{E:pane_title}}", "the E: modifier"},
	{"#{=5:#{E:pane_title}}", "the E: modifier"},
	{"#{l;E:#(id)}", "the E: modifier"},
	{"#{E:}", "the E: modifier"},
	{"###(id)", "#( at byte 3"},
	{"#{?1,#(id),}", "#("},
	{"#{=1#(id):pane_title}", "#("},
	{"#{;}x", "a modifier list ending in ;"},
	{"#{pane_title}#(", "#("},
	// s/// arguments are expanded twice.
	{"#{s/x/#{pane_title}/:pane_id}", "# in an argument of s/…/…/ at byte 7"},
	{"#{s/x/##(id)/:pane_id}", "# in an argument of s/…/…/"},
	{"#{s/x/#T/:pane_id}", "# in an argument"},
	// tmux 3.4 and later unescape arguments: ##( becomes #(, ##{ becomes #{.
	{"#{=/5/##(id):pane_id}", "#("},
	{"#{=/5/##{E#:pane_title#}:pane_id}", "the E: modifier"},
	// A modifier older versions do not know does not hide E: from newer ones.
	{"#{L;E:pane_title}", "the E: modifier"},
	{"#{!;T:pane_title}", "the T: modifier"},
	{"#{c;E:pane_title}", "the E: modifier"},
	{"#{S/n;E:pane_title}", "the E: modifier"},
	// …nor does an older version's reading of the whole key hide a job.
	{"#{L:#(id)}", "#("},
	// Reads past the end in tmux 3.3a, or expands nothing of what follows.
	{"abc#", "a lone # at the end of a text at byte 4"},
	{"#{s/a#/b/:x}", "# in an argument"},
	{"#{=/a#/b:x}", "a lone #"},
	// An argument scan that starts inside the final ## sees a lone #, and tmux 3.3a reads
	// (and expands) the memory after the key: a fuzzed #{=##} ran the pane title's job.
	{"#{=##}", "a # that ends a modifier's argument at byte 5"},
	{"#{p##}", "a # that ends"},
	{"#{s##}", "a # that ends"},
	{"#{pane_id;}", "a modifier list ending in ;"},
	{"#{E;}", "a modifier list ending in ;"},
	{"x#{pane_id", "#{ without its closing } at byte 2"},
	{"a\x00b", "a NUL byte"},
	{strings.Repeat("#{", 40) + "pane_id" + strings.Repeat("}", 40), "nest more than 32 deep"},
	{"#{S:#{S:#{S:#{S:x}}}}", "loops nest more than 3 deep"},
}

func TestCheck(t *testing.T) {
	for _, f := range safeFormats {
		if err := format.Check(f, format.Options{}); err != nil {
			t.Errorf("Check(%q) = %v, want nil", f, err)
		}
	}
	for _, h := range hazards {
		err := format.Check(h.f, format.Options{})
		var hz *format.Hazard
		if !errors.As(err, &hz) {
			t.Errorf("Check(%q) = %v, want a hazard", h.f, err)
			continue
		}
		if !strings.Contains(err.Error(), h.want) {
			t.Errorf("Check(%q) = %q, want it to mention %q", h.f, err, h.want)
		}
	}
}

func TestCheckStrftime(t *testing.T) {
	// display-message runs the format through strftime(3) first: with LC_TIME=de_DE, %p is
	// empty and #%p(id) is #(id).
	for _, f := range []string{"#%p(id)", "%H:%M", "#{==:#{pane_id},%1}", "100%"} {
		err := format.Check(f, format.Options{Strftime: true})
		if err == nil || !strings.Contains(err.Error(), "strftime") {
			t.Errorf("Check(%q, Strftime) = %v, want a strftime hazard", f, err)
		}
	}
	if err := format.Check("#{pane_id} #{t:window_activity}", format.Options{Strftime: true}); err != nil {
		t.Errorf("no %% at all: %v", err)
	}
}

func TestCheckContext(t *testing.T) {
	err := format.Check("ok #{pane_id} #{s/#{pane_id}/x/;E:pane_title} tail", format.Options{})
	if err == nil || !strings.Contains(err.Error(), "(in #{s/#{pane_id}/x/;E:pane_title})") {
		t.Errorf("the message does not quote the replacement: %v", err)
	}
	// A hazard after a closed #{…} is at the top level, one inside a conditional after a
	// closed #{…} in the conditional's.
	if err := format.Check("#{pane_id} #(whoami)", format.Options{}); err == nil || strings.Contains(err.Error(), "(in ") {
		t.Errorf("a #( after #{pane_id} is said to be in it: %v", err)
	}
	if err := format.Check("#{?1,#{pane_id} #(id),}", format.Options{}); err == nil || !strings.Contains(err.Error(), "(in #{?1,#{pane_id} #(id),})") {
		t.Errorf("a #( in a conditional after #{pane_id}: %v", err)
	}
	long := "#{?1," + strings.Repeat("x", 100) + "#{E:pane_title},}"
	if err := format.Check(long, format.Options{}); err == nil || len(err.Error()) > 400 {
		t.Errorf("a long replacement is not shortened: %v", err)
	}
}

func TestEscape(t *testing.T) {
	for _, tt := range []struct{ in, want, time string }{
		{"plain", "plain", "plain"},
		{"a#b", "a##b", "a##b"},
		{"#{pane_id}", "##{pane_id}", "##{pane_id}"},
		{"#[x]", "#[x]", "#[x]"},
		{"##[x", "##[x", "##[x"},
		{"a##b#", "a####b##", "a####b##"},
		{"#(id)", "##(id)", "##(id)"},
		{"50% #[", "50% #[", "50%% #["},
		{"#S", "##S", "##S"},
		{"a#b#[c", "a##b#[c", "a##b#[c"},
		{"%Y #%", "%Y ##%", "%%Y ##%%"},
		{"###", "######", "######"},
	} {
		if got := format.Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := format.EscapeTime(tt.in); got != tt.time {
			t.Errorf("EscapeTime(%q) = %q, want %q", tt.in, got, tt.time)
		}
		// What Escape writes is always safe to expand.
		if err := format.Check(format.Escape(tt.in), format.Options{}); err != nil {
			t.Errorf("Check(Escape(%q)) = %v", tt.in, err)
		}
	}
}

func ExampleCheck() {
	for _, f := range []string{"#{cursor_x},#{cursor_y}", "#{s/#{pane_id}/x/;E:pane_title}"} {
		if err := format.Check(f, format.Options{Strftime: true}); err != nil {
			fmt.Println("refused:", err)
			continue
		}
		fmt.Println("safe:", f)
	}
	// Output:
	// safe: #{cursor_x},#{cursor_y}
	// refused: the E: modifier at byte 19 (in #{s/#{pane_id}/x/;E:pane_title}): it expands the value as a format, and a value is not the format's own (a pane sets its own title, for one), so it can run a shell job
}

func ExampleEscape() {
	fmt.Println(format.Escape("build #3 #[ok]"))
	// Output: build ##3 #[ok]
}
