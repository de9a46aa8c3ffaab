package fbc

import (
	"errors"
	"fmt"
	"strings"
)

// Source tells where a blob came from.
type Source struct {
	// File is the path of the catalog file (or any name the caller of
	// Builder.AddBlob chose, for blobs that do not come from a file).
	File string
	// Index is the 0-based index of the document (YAML document or JSON
	// value) in the file. A negative Index means "not about one document".
	Index int
	// Line is the 1-based line where the blob starts, 0 when unknown.
	Line int
}

// String renders the source as "file:line (document N)", leaving out what is
// unknown.
func (s Source) String() string {
	if s.File == "" && s.Line == 0 && s.Index <= 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(s.File)
	switch {
	case s.Line > 0 && s.File != "":
		fmt.Fprintf(&b, ":%d", s.Line)
	case s.Line > 0:
		fmt.Fprintf(&b, "line %d", s.Line)
	}
	if s.Index >= 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(document %d)", s.Index)
	}
	return b.String()
}

// fileSource is the Source of an error about a whole file.
func fileSource(file string) Source { return Source{File: file, Index: -1} }

// Error is the error type returned for problems in catalog data. It carries
// the context callers need to point a user at the faulty data; Err is the
// bare cause (it may wrap ErrNoChannelHead and friends).
type Error struct {
	Source  Source
	Package string
	Channel string
	Bundle  string
	Err     error
}

func (e *Error) Error() string {
	var b strings.Builder
	if s := e.Source.String(); s != "" {
		b.WriteString(s)
		b.WriteString(": ")
	}
	if e.Package != "" {
		fmt.Fprintf(&b, "package %q: ", e.Package)
	}
	if e.Channel != "" {
		fmt.Fprintf(&b, "channel %q: ", e.Channel)
	}
	if e.Bundle != "" {
		fmt.Fprintf(&b, "bundle %q: ", e.Bundle)
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString("invalid catalog data")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Sentinel causes, for errors.Is.
var (
	// ErrNoChannelHead: every entry of the channel is replaced or skipped by another.
	ErrNoChannelHead = errors.New("no channel head found")
	// ErrMultipleChannelHeads: more than one entry is neither replaced nor skipped.
	ErrMultipleChannelHeads = errors.New("multiple channel heads found")
	// ErrDuplicate: a package, channel, bundle or deprecations blob is defined twice.
	ErrDuplicate = errors.New("defined twice")
)

// errf builds an *Error; a small helper so that call sites stay one line.
func errf(src Source, pkg, ch, bundle, format string, args ...any) *Error {
	return &Error{Source: src, Package: pkg, Channel: ch, Bundle: bundle, Err: fmt.Errorf(format, args...)}
}
