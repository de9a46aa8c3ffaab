package yamlwrite

import (
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Style is how a string scalar is written.
type Style uint8

const (
	// Plain is the text as it is.
	Plain Style = iota
	// SingleQuoted is 'text' with each ' doubled.
	SingleQuoted
	// DoubleQuoted is "text" with escapes.
	DoubleQuoted
	// Literal is a literal block ("|", chomping and indentation indicators, then the lines).
	Literal
)

// Position is where a scalar is written.
type Position uint8

const (
	// InValue is a block value: after "key: ", after "- ", or a document of its own.
	InValue Position = iota
	// InKey is a key written "key:" (a simple key: one line, at most 128 bytes).
	InKey
	// InExplicitKey is a key written "? key" (longer than 128 bytes or on several lines).
	InExplicitKey
	// InFlow is a key or a value inside {…} or […].
	InFlow
)

// Choose is the one function deciding how a string is written at a position: what yaml.v3's
// encoder chooses for a value tree's strings, plus double quotes on values YAML 1.1 reads as
// booleans or sexagesimal numbers (kubectl and sigs.k8s.io/yaml read YAML 1.1). s must be
// valid UTF-8 (the writer replaces invalid bytes first).
func Choose(s string, at Position) Style {
	return chooseCompatible(s, at)
}

// chooseCompatible follows yaml.v3: the style its encoder asks for a !!str node (a literal
// block for text with a line feed, double quotes for text that would read as another type),
// then what libyaml's emitter allows for that text at that position
// (yaml_emitter_select_scalar_style in go.yaml.in/yaml/v3's emitterc.go).
func chooseCompatible(s string, at Position) Style {
	if (at == InValue || at == InKey) && plainWord(s) {
		return Plain // the common case, without the analysis
	}
	a := analyze(s)
	var style Style
	switch {
	case at == InValue && yaml11Special(s):
		style = DoubleQuoted
	case strings.Contains(s, "\n"):
		style = Literal
	case !resolvesToString(s), FloatSyntax(s), at != InValue && s == "<<":
		style = DoubleQuoted // yaml.v3 writes the key << plain, which reads back as a merge
	}
	flow, simpleKey := at == InFlow, at == InKey
	if simpleKey && a.multiline {
		style = DoubleQuoted
	}
	if style == Plain {
		if flow && !a.flowPlain || !flow && !a.blockPlain || s == "" && (flow || simpleKey) {
			style = SingleQuoted
		}
	}
	if style == SingleQuoted && !a.single {
		style = DoubleQuoted
	}
	if style == Literal && (!a.block || flow || simpleKey || s[0] == '\t' || blankLineWithTab(s) || strings.ContainsAny(s, "\u2028\u2029")) {
		style = DoubleQuoted // yaml.v3 writes blocks it cannot read back for the last three
	}
	return style
}

// blankLineWithTab reports text with a line of only blanks, one of them a tab (yaml.v3 reads
// the tab as indentation, as it does a tab that starts the first line). Text with U+2028 or U+2029 is not a literal block either: yaml.v3
// writes the separator as a line break, and no line break after it at the end.
func blankLineWithTab(s string) bool {
	for line := range strings.SplitSeq(s, "\n") {
		if strings.Trim(line, " \t") == "" && strings.Contains(line, "\t") {
			return true
		}
	}
	return false
}

// SimpleKey reports a key yaml.v3 writes as "key:" rather than "? key" (its
// yaml_emitter_check_simple_key: one line, at most 128 bytes).
func SimpleKey(s string) bool {
	if len(s) > 128 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if isBreakAt(s, i) {
			return false
		}
	}
	return true
}

// resolvesToString reports text that yaml.v3 reads as a string when it is plain. Its
// resolver (through yaml.Node.ShortTag) decides; text whose first byte starts no other
// type is a string without asking, as in yaml.v3's resolve (its resolveTable).
func resolvesToString(s string) bool {
	if s == "" {
		return false
	}
	if !strings.ContainsRune("+-0123456789yYnNtTfFoO~.", rune(s[0])) {
		return true
	}
	n := yaml.Node{Kind: yaml.ScalarNode, Value: s}
	return n.ShortTag() == "!!str"
}

// plainWord reports text every rule writes plain: a letter, then letters, digits, '-', '.',
// '_' and '/', at most 64 bytes, and not a word YAML 1.1 or 1.2 reads as something else.
func plainWord(s string) bool {
	if s == "" || len(s) > 64 || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '.' && c != '_' && c != '/' {
			return false
		}
	}
	return len(s) > 5 || !yaml11Words[s] && !yaml12Words[s]
}

// yaml11Words are the booleans of YAML 1.1 that YAML 1.2 (yaml.v3) reads as strings.
var yaml11Words = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "n": true, "N": true, "no": true, "No": true, "NO": true,
	"on": true, "On": true, "ON": true, "off": true, "Off": true, "OFF": true,
}

// yaml12Words are the booleans and nulls of YAML 1.2 (and 1.1).
var yaml12Words = map[string]bool{
	"true": true, "True": true, "TRUE": true, "false": true, "False": true, "FALSE": true,
	"null": true, "Null": true, "NULL": true,
}

var base60Re = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$`)

// FloatSyntax reports text in YAML 1.2's float syntax (core schema). yaml.v3 reads such text
// as a string when the number overflows a float64, and writes it plain; other readers (and
// internal/manifest) read it as a number, so the writer double-quotes it.
func FloatSyntax(s string) bool { return floatRe.MatchString(s) }

var floatRe = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// yaml11Special reports strings that YAML 1.1 readers (kubectl, sigs.k8s.io/yaml) would take
// for a boolean or a sexagesimal number, which yaml.v3 would write unquoted.
func yaml11Special(s string) bool {
	return yaml11Words[s] || strings.IndexByte(s, ':') > 0 && base60Re.MatchString(s)
}

// Printable is YAML's c-printable without line breaks, tab and U+FEFF (what a YAML reader
// takes as it is inside quotes).
func Printable(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF:
		return r != 0x2028 && r != 0x2029
	case r >= 0xE000 && r <= 0xFFFD:
		return r != 0xFEFF
	}
	return r >= 0x10000 && r <= 0x10FFFF
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
