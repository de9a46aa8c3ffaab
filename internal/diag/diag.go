// Package diag owns the one diagnostic type of the project: a Result with a severity, a
// message, the object and field it is about, and the file and line the object came from.
// Every front door prints Results in its own idiom (KRM results, "file:line: ..." lines).
//
// Messages must never contain a Secret's value: callers pass names and paths, not data.
package diag

import (
	"fmt"
	"sort"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
	"github.com/odlm-render/odlm-render/internal/textsafe"
)

// Severity of a Result, with the KRM function specification's names.
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
)

// Result is one diagnostic.
type Result struct {
	Severity Severity
	Message  string
	// Object is the object the result is about (nil for a result about the whole run).
	Object *manifest.Ref
	// Field is the field path inside Object (dotted keys, [i] indices).
	Field string
	// File, Index and Line locate Object's source; empty for generated objects.
	File  string
	Index int
	Line  int
	// At is what File and Line point at when that is not Object's Field: a result about an
	// object the render emitted is placed at the OperandConfig field it comes from. A front
	// door that finds lines itself (the KRM function) looks At up.
	At *Anchor
}

// Anchor is a field of an input object.
type Anchor struct {
	Object manifest.Ref
	Field  string
}

// About builds a result for a field of an input object, locating it in its source.
func About(sev Severity, obj *manifest.Object, field, format string, args ...any) Result {
	r := Result{Severity: sev, Message: fmt.Sprintf(format, args...), Field: field}
	if obj != nil {
		ref := obj.Ref()
		r.Object = &ref
		r.File = obj.Source.File
		r.Index = obj.Source.Index
		r.Line = obj.Source.LineOf(field)
	}
	return r
}

// Errorf is About with severity error.
func Errorf(obj *manifest.Object, field, format string, args ...any) Result {
	return About(Error, obj, field, format, args...)
}

// Warnf is About with severity warning.
func Warnf(obj *manifest.Object, field, format string, args ...any) Result {
	return About(Warning, obj, field, format, args...)
}

// Infof is About with severity info.
func Infof(obj *manifest.Object, field, format string, args ...any) Result {
	return About(Info, obj, field, format, args...)
}

// String prints "file:line: severity: Kind ns/name: field: message", leaving out what is
// unknown.
func (r Result) String() string {
	var parts []string
	if r.File != "" {
		loc := r.File
		if r.Line > 0 {
			loc = fmt.Sprintf("%s:%d", r.File, r.Line)
		}
		parts = append(parts, loc)
	}
	if r.Severity != Error {
		parts = append(parts, string(r.Severity))
	}
	if r.Object != nil {
		parts = append(parts, r.Object.String())
	}
	if r.Field != "" {
		parts = append(parts, r.Field)
	}
	parts = append(parts, r.Message)
	// one line, with no control character a terminal would act on: messages quote catalogs,
	// bundles and cluster objects
	return textsafe.Line(strings.Join(parts, ": "))
}

func (r Result) Error() string { return r.String() }

// Results is a list of diagnostics.
type Results []Result

// HasErrors reports whether any result has severity error.
func (rs Results) HasErrors() bool {
	for _, r := range rs {
		if r.Severity == Error {
			return true
		}
	}
	return false
}

// Errors returns only the results of severity error.
func (rs Results) Errors() Results {
	var out Results
	for _, r := range rs {
		if r.Severity == Error {
			out = append(out, r)
		}
	}
	return out
}

var severityRank = map[Severity]int{Error: 0, Warning: 1, Info: 2}

// Sort orders results by severity, file, line, object and message, and drops exact
// duplicates (the same problem found through two requests is reported once).
func (rs Results) Sort() Results {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if severityRank[a.Severity] != severityRank[b.Severity] {
			return severityRank[a.Severity] < severityRank[b.Severity]
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Index != b.Index {
			return a.Index < b.Index
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.String() < b.String()
	})
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.String() == out[n-1].String() && r.Index == out[n-1].Index {
			continue
		}
		out = append(out, r)
	}
	return out
}
