package hint

import "strings"

// Closest returns the candidate a mistyped name most likely meant, or "" when none is close:
// the same name in another spelling (pane_id for paneId, list-sessions for list_sessions)
// first, then the nearest within a few edits (list_sesions for list_sessions).
func Closest(name string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	for _, c := range candidates {
		if norm(c) == n {
			return c
		}
	}
	best, bestD := "", max(1, min(3, len(n)/3))+1
	for _, c := range candidates {
		if d := distance(n, norm(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
