// Package suggest finds the word a likely typo meant: the closest candidate within a small
// edit distance (insertions, deletions, substitutions and swaps of adjacent letters), compared
// without case. It owns nothing else: callers decide what counts as a typo and what to say.
package suggest

import (
	"fmt"
	"strings"
)

// MaxEdits is the distance up to which a word counts as a typo of a candidate.
const MaxEdits = 2

// Closest returns the candidate nearest to word within MaxEdits (case-insensitive), the
// first in candidate order on ties; ok is false when none is that close or word is itself a
// candidate. Words shorter than four letters only match with one edit, so that short keys
// do not suggest unrelated ones.
func Closest(word string, candidates []string) (best string, ok bool) {
	limit := MaxEdits
	if len([]rune(word)) < 4 {
		limit = 1
	}
	bestDist := limit + 1
	for _, c := range candidates {
		if c == word {
			return "", false
		}
		if d := Distance(strings.ToLower(word), strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, bestDist <= limit
}

// DidYouMean is the phrase results append: ` (did you mean "x"?)`, or "" without a match.
func DidYouMean(word string, candidates []string) string {
	if c, ok := Closest(word, candidates); ok {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// Distance is the optimal-string-alignment distance between a and b, by runes.
func Distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
