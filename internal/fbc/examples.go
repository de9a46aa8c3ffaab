package fbc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/odlm-render/odlm-render/internal/manifest"
)

// almExamples is the CSV annotation holding example custom resources.
const almExamples = "alm-examples"

// Examples parses the alm-examples annotation, which must be a JSON array of
// JSON objects. A missing (or blank) annotation gives (nil, nil). Numbers
// are decoded exactly (json.Number), so values are trees of map[string]any,
// []any, string, bool, nil and json.Number. Each call parses anew and
// returns values the caller may modify.
func (b *Bundle) Examples() ([]map[string]any, error) {
	text, ok := b.Annotations[almExamples]
	if !ok || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	fail := func(err error) error {
		return &Error{Source: b.Source, Package: b.Package, Bundle: b.Name, Err: fmt.Errorf("annotation alm-examples: %w", err)}
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fail(fmt.Errorf("invalid JSON at %s: %w", position(text, se.Offset), err))
		}
		return nil, fail(fmt.Errorf("invalid JSON: %w", err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fail(fmt.Errorf("unexpected data after the JSON array at %s", position(text, dec.InputOffset())))
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fail(fmt.Errorf("expected a JSON array of objects (a list of mappings), got %s", manifest.Describe(v)))
	}
	out := make([]map[string]any, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fail(fmt.Errorf("element %d: expected a JSON object (a mapping), got %s", i, manifest.Describe(e)))
		}
		out = append(out, m)
	}
	return out, nil
}

// position renders a byte offset of text as "line L, column C" (1-based).
func position(text string, off int64) string {
	off = min(max(off, 0), int64(len(text)))
	before := text[:off]
	line := strings.Count(before, "\n") + 1
	col := int(off) - strings.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}
