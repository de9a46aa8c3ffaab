package manifest

import (
	"bytes"
	"errors"
	"fmt"
)

// A Helm chart's templates/ folder, or any file a Go template generates, is easy to hand to
// the render by mistake (a folder given as input holds them next to plain manifests).
// yaml.v3 then answers with whatever its grammar trips over first ("mapping keys must be
// strings" for `replicas: {{ .Values.n }}`, "did not find expected key" for a name built from
// a template), which says nothing about the real cause. So when a file fails to decode and
// holds a template action where YAML cannot have one, the error says that instead.

// templateError returns err restated as "this is a template" when data holds a Go template
// action outside a quoted scalar; otherwise err unchanged. Only files that fail to decode
// are looked at: a valid manifest may carry "{{ … }}" in its strings.
func templateError(file string, data []byte, err error) error {
	line, action := templateAction(data)
	if line == 0 {
		return err
	}
	msg := err.Error()
	var se *SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
		if se.Line > 0 {
			msg = fmt.Sprintf("line %d: %s", se.Line, se.Msg)
		}
	}
	return &SyntaxError{File: file, Line: line, Msg: fmt.Sprintf(
		"this is a Helm or Go template, not YAML: %s is a template action; render the template first (helm template, or the tool that owns it) and give its output (the YAML parser says: %s)",
		action, msg)}
}

// maxActionText bounds how much of a template action a message quotes.
const maxActionText = 60

// templateAction finds the first line (1-based) holding "{{" that closes with "}}" on the same
// line, not inside a quoted scalar (an odd number of quotes before it), and the action's text.
func templateAction(data []byte) (int, string) {
	for i, l := range bytes.Split(data, []byte("\n")) {
		start := bytes.Index(l, []byte("{{"))
		if start < 0 {
			continue
		}
		end := bytes.Index(l[start:], []byte("}}"))
		if end < 0 {
			continue
		}
		before := l[:start]
		if bytes.Count(before, []byte(`"`))%2 == 1 || bytes.Count(before, []byte(`'`))%2 == 1 {
			continue
		}
		if c := bytes.IndexByte(before, '#'); c >= 0 && (c == 0 || before[c-1] == ' ' || before[c-1] == '\t') {
			continue // a comment
		}
		action := []rune(string(bytes.TrimSpace(l[start : start+end+2])))
		if len(action) > maxActionText {
			action = append(action[:maxActionText-3], []rune("…}}")...)
		}
		return i + 1, string(action)
	}
	return 0, ""
}
