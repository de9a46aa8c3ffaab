package manifest

import "strings"

// plainWord reports a word the fast decoder (fastdecode.go) may read as that string, as a
// key or a value: a letter, then letters, digits, '-', '.', '_' and '/', at most 64 bytes,
// and not a word YAML 1.1 or 1.2 reads as something else, in any case.
func plainWord(s string) bool { return len(s) <= 64 && plainScalar(s, false) }

// plainScalar reports a letter, then letters, digits, '-', '.', '_', '/' (and spaces when
// spaces is true), that is not one of the words YAML reads as a boolean, null or number.
func plainScalar(s string, spaces bool) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '/' || spaces && c == ' ') {
			return false
		}
	}
	if len(s) <= 5 {
		switch strings.ToLower(s) {
		case "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf":
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
