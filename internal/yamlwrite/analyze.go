package yamlwrite

import "strings"

// analysis is what libyaml's emitter allows for a text (yaml_emitter_analyze_scalar in
// go.yaml.in/yaml/v3's emitterc.go, with unicode output on).
type analysis struct {
	multiline  bool // has a line break
	flowPlain  bool // may be plain inside {…} or […]
	blockPlain bool // may be plain in block context
	single     bool // may be single-quoted
	block      bool // may be a literal block
}

// scan is what analyze finds in one pass over a text.
type scan struct {
	blockIndicators, flowIndicators, lineBreaks, special, tabs       bool
	leadingSpace, leadingBreak, trailingSpace, trailingBreak         bool
	breakSpace, spaceBreak, previousSpace, previousBreak, precededWS bool
}

func analyze(s string) analysis {
	if s == "" {
		return analysis{blockPlain: true, single: true}
	}
	f := scan{precededWS: true}
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		f.blockIndicators, f.flowIndicators = true, true
	}
	for i, w := 0, 0; i < len(s); i += w {
		w = runeWidth(s[i])
		f.indicators(s, i, w)
		f.character(s, i, w)
		f.precededWS = isBlankAt(s, i) || isBreakAt(s, i) || s[i] == 0
	}
	return f.allowed()
}

// indicators notes characters that end or start YAML syntax at position i.
func (f *scan) indicators(s string, i, w int) {
	followedWS := i+w >= len(s) || s[i+w] == ' ' || s[i+w] == '\t'
	c := s[i]
	if i == 0 {
		switch c {
		case '#', ',', '[', ']', '{', '}', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
			f.flowIndicators, f.blockIndicators = true, true
		case '?', ':':
			f.flowIndicators = true
			f.blockIndicators = f.blockIndicators || followedWS
		case '-':
			if followedWS {
				f.flowIndicators, f.blockIndicators = true, true
			}
		}
		return
	}
	switch c {
	case ',', '?', '[', ']', '{', '}':
		f.flowIndicators = true
	case ':':
		f.flowIndicators = true
		f.blockIndicators = f.blockIndicators || followedWS
	case '#':
		if f.precededWS {
			f.flowIndicators, f.blockIndicators = true, true
		}
	}
}

// character notes spaces, breaks, tabs and characters that must be escaped.
func (f *scan) character(s string, i, w int) {
	if s[i] == '\t' {
		f.tabs = true
	} else if !isPrintableAt(s, i) {
		f.special = true
	}
	switch {
	case s[i] == ' ':
		f.leadingSpace = f.leadingSpace || i == 0
		f.trailingSpace = f.trailingSpace || i+w == len(s)
		f.breakSpace = f.breakSpace || f.previousBreak
		f.previousSpace, f.previousBreak = true, false
	case isBreakAt(s, i):
		f.lineBreaks = true
		f.leadingBreak = f.leadingBreak || i == 0
		f.trailingBreak = f.trailingBreak || i+w == len(s)
		f.spaceBreak = f.spaceBreak || f.previousSpace
		f.previousSpace, f.previousBreak = false, true
	default:
		f.previousSpace, f.previousBreak = false, false
	}
}

func (f *scan) allowed() analysis {
	a := analysis{multiline: f.lineBreaks, flowPlain: true, blockPlain: true, single: true, block: true}
	if f.leadingSpace || f.leadingBreak || f.trailingSpace || f.trailingBreak || f.lineBreaks {
		a.flowPlain, a.blockPlain = false, false
	}
	if f.trailingSpace || f.spaceBreak || f.special {
		a.block = false
	}
	if f.breakSpace || f.spaceBreak || f.tabs || f.special {
		a.flowPlain, a.blockPlain, a.single = false, false, false
	}
	if f.flowIndicators {
		a.flowPlain = false
	}
	if f.blockIndicators {
		a.blockPlain = false
	}
	return a
}

// runeWidth is the length of the UTF-8 sequence that starts with c (1 for a stray byte: the
// writer only analyses valid UTF-8).
func runeWidth(c byte) int {
	switch {
	case c&0xE0 == 0xC0:
		return 2
	case c&0xF0 == 0xE0:
		return 3
	case c&0xF8 == 0xF0:
		return 4
	}
	return 1
}

func isBlankAt(s string, i int) bool { return s[i] == ' ' || s[i] == '\t' }

// isBreakAt: CR, LF, NEL, LS or PS at i.
func isBreakAt(s string, i int) bool {
	switch s[i] {
	case '\r', '\n':
		return true
	case 0xC2:
		return i+1 < len(s) && s[i+1] == 0x85
	case 0xE2:
		return i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xA8 || s[i+2] == 0xA9)
	}
	return false
}

// isPrintableAt is libyaml's is_printable: LF, printable ASCII, and the UTF-8 sequences it
// counts as printable (not NEL, not U+FEFF, U+FFFE, U+FFFF, nor anything past U+FFFF).
func isPrintableAt(s string, i int) bool {
	c := s[i]
	next := func(k int) byte {
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	switch {
	case c == 0x0A, c >= 0x20 && c <= 0x7E:
		return true
	case c == 0xC2:
		return next(1) >= 0xA0
	case c > 0xC2 && c < 0xED, c == 0xEE:
		return true
	case c == 0xED:
		return next(1) < 0xA0
	case c == 0xEF:
		return !(next(1) == 0xBB && next(2) == 0xBF) && !(next(1) == 0xBF && (next(2) == 0xBE || next(2) == 0xBF))
	}
	return false
}
