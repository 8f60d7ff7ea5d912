package listfilter

import (
	"errors"
	"strings"
	"testing"

	"github.com/tmux-mcp/tmux-mcp/internal/hint"
)

type rec struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	On    bool   `json:"on"`
}

func TestApply(t *testing.T) {
	recs := []rec{{"dev-api", 2, true}, {"Dev-web", 1, false}, {"prod", 3, true}}
	for _, tc := range []struct {
		cond map[string]any
		want string // names kept, comma-separated
	}{
		{nil, "dev-api,Dev-web,prod"},
		{map[string]any{"name": "prod"}, "prod"},
		{map[string]any{"name__exact": "prod"}, "prod"},
		{map[string]any{"name__iexact": "DEV-WEB"}, "Dev-web"},
		{map[string]any{"name__startswith": "dev"}, "dev-api"},
		{map[string]any{"name__istartswith": "dev"}, "dev-api,Dev-web"},
		{map[string]any{"name__contains": "-"}, "dev-api,Dev-web"},
		{map[string]any{"name__icontains": "WEB"}, "Dev-web"},
		{map[string]any{"name__endswith": "api"}, "dev-api"},
		{map[string]any{"name__iendswith": "WEB"}, "Dev-web"},
		{map[string]any{"name__in": "prod, dev-api"}, "dev-api,prod"},
		{map[string]any{"name__in": []any{"prod", "x"}}, "prod"},
		{map[string]any{"name__nin": "prod"}, "dev-api,Dev-web"},
		{map[string]any{"name__regex": "^d"}, "dev-api"},
		{map[string]any{"name__iregex": "^d"}, "dev-api,Dev-web"},
		{map[string]any{"count": 3.0}, "prod"},
		{map[string]any{"on": true, "name__istartswith": "d"}, "dev-api"},
	} {
		fs, err := Parse(tc.cond, rec{})
		if err != nil {
			t.Fatalf("%v: %v", tc.cond, err)
		}
		var names []string
		for _, r := range Apply(fs, recs) {
			names = append(names, r.Name)
		}
		if got := strings.Join(names, ","); got != tc.want {
			t.Errorf("%v: kept %q, want %q", tc.cond, got, tc.want)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for cond, want := range map[string]string{
		"nope":        `unknown field "nope"`,
		"name__like":  `unknown operator "like"`,
		"name__regex": "invalid regex",
	} {
		_, err := Parse(map[string]any{cond: "("}, rec{})
		var he *hint.Error
		if !errors.As(err, &he) || !strings.Contains(he.Msg, want) || he.Hint == "" {
			t.Errorf("%s: %v, want a hinted refusal with %q", cond, err, want)
		}
	}
}
