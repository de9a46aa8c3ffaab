// Package output owns how the front doors write a render's answer: results one a line (info
// ones only when asked for), and, only when no result is an error, the objects as one YAML
// stream or one JSON List, encoded whole before the first byte is written, so that a failure
// leaves stdout empty. The CLI's commands write through it; the golden harness and the KRM
// function take the same rule for what is written (Written).
package output

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Format is how objects are written.
type Format string

// The formats.
const (
	// YAML is one "---" separated stream.
	YAML Format = "yaml"
	// JSON is one kind: List document, as kubectl prints lists.
	JSON Format = "json"
)

// ParseFormat is the format an -o flag names.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case YAML, JSON:
		return f, nil
	}
	return "", fmt.Errorf("-o must be yaml or json, not %q", s)
}

// Encode is objs in format f.
func Encode(f Format, objs []*manifest.Object) ([]byte, error) {
	var buf bytes.Buffer
	var err error
	if f == JSON {
		err = manifest.WriteJSONList(&buf, objs)
	} else {
		err = manifest.WriteYAML(&buf, objs)
	}
	return buf.Bytes(), err
}

// Written are the objects a front door writes for an answer: none when a result is an error
// (never a partial output).
func Written(objs []*manifest.Object, rs diag.Results) []*manifest.Object {
	if rs.HasErrors() {
		return nil
	}
	return objs
}

// ErrReported is what Stream.Write returns when a result was an error: the results said it
// already.
var ErrReported = errors.New("errors were reported")

// Stream writes answers on a program's stdout (objects) and stderr (results).
type Stream struct {
	Stdout, Stderr io.Writer
	Format         Format
	// Verbose also writes info results.
	Verbose bool
}

// Write writes the results, then the objects, or returns ErrReported when a result is an
// error.
func (s Stream) Write(objs []*manifest.Object, rs diag.Results) error {
	if s.Results(rs) {
		return ErrReported
	}
	return s.Objects(objs)
}

// Results writes the results on stderr and reports whether one is an error.
func (s Stream) Results(rs diag.Results) (failed bool) {
	WriteResults(s.Stderr, rs, s.Verbose)
	return rs.HasErrors()
}

// Objects writes the objects on stdout, encoded whole first.
func (s Stream) Objects(objs []*manifest.Object) error {
	b, err := Encode(s.Format, objs)
	if err != nil {
		return err
	}
	_, err = s.Stdout.Write(b)
	return err
}

// WriteResults writes results one a line, info ones only when verbose.
func WriteResults(w io.Writer, rs diag.Results, verbose bool) {
	for _, r := range rs {
		if r.Severity == diag.Info && !verbose {
			continue
		}
		fmt.Fprintln(w, r.String())
	}
}
