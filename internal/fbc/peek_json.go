package fbc

// The JSON peek: what a catalog value is, read without decoding it.

import (
	"bytes"
	"unicode/utf8"
)

// peekJSON reads the top-level string members schema, package, name, kind
// and apiVersion of a JSON object.
func peekJSON(d []byte) peekResult {
	var p peekResult
	var seen uint8
	ok := scanJSONObject(d, 0, func(key []byte, d []byte, i int) (int, bool) {
		bit, dst := p.field(key)
		if dst == nil {
			return skipJSONValue(d, i)
		}
		val, j, ok := jsonSimpleString(d, i)
		if !ok || seen&bit != 0 {
			return 0, false
		}
		seen |= bit
		*dst = string(val)
		return j, true
	})
	if !ok {
		return peekResult{}
	}
	p.ok = p.schema != "" || p.kind != ""
	if p.schema == schemaPackage {
		p.pkg = p.name
	}
	return p
}

func skipJSONSpace(d []byte, i int) int {
	for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n') {
		i++
	}
	return i
}

// jsonSimpleString reads a string without escapes at d[i].
func jsonSimpleString(d []byte, i int) ([]byte, int, bool) {
	if i >= len(d) || d[i] != '"' {
		return nil, i, false
	}
	j := bytes.IndexAny(d[i+1:], "\"\\")
	if j < 0 || d[i+1+j] != '"' || !utf8.Valid(d[i+1:i+1+j]) {
		return nil, i, false
	}
	return d[i+1 : i+1+j], i + j + 2, true
}

// skipJSONValue skips the value at d[i], checking only its nesting.
func skipJSONValue(d []byte, i int) (int, bool) {
	if i >= len(d) {
		return i, false
	}
	switch d[i] {
	case '"':
		return skipJSONString(d, i)
	case '{', '[':
		depth := 0
		for i < len(d) {
			switch d[i] {
			case '"':
				j, ok := skipJSONString(d, i)
				if !ok {
					return j, false
				}
				i = j
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	}
	for i < len(d) {
		switch d[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i, true
		}
		i++
	}
	return i, true
}

func skipJSONString(d []byte, i int) (int, bool) {
	for i++; i < len(d); i++ {
		switch d[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return i, false
}

// peekObjectHead reads the apiVersion, kind and metadata.name of a JSON manifest without
// decoding the rest (a bundle's CRDs are most of an older catalog's bytes). ok is false
// for anything it does not follow; the caller then decodes.
func peekObjectHead(d []byte) (objectHead, bool) {
	var h objectHead
	ok := scanJSONObject(d, 0, func(key []byte, d []byte, i int) (int, bool) {
		switch string(key) {
		case "apiVersion", "kind":
			val, j, ok := jsonSimpleString(d, i)
			if !ok {
				return 0, false
			}
			if string(key) == "kind" {
				h.Kind = string(val)
			} else {
				h.APIVersion = string(val)
			}
			return j, true
		case "metadata":
			end, ok := skipJSONValue(d, i)
			if !ok {
				return 0, false
			}
			if !scanJSONObject(d[:end], i, func(key []byte, d []byte, i int) (int, bool) {
				if string(key) == "name" {
					val, j, ok := jsonSimpleString(d, i)
					h.Metadata.Name = string(val)
					return j, ok
				}
				return skipJSONValue(d, i)
			}) {
				return 0, false
			}
			return end, true
		}
		return skipJSONValue(d, i)
	})
	return h, ok
}

// scanJSONObject walks the members of the object at d[i:], calling member with each key
// and the index of its value; member returns the index after the value.
func scanJSONObject(d []byte, i int, member func(key []byte, d []byte, i int) (int, bool)) bool {
	i = skipJSONSpace(d, i)
	if i >= len(d) || d[i] != '{' {
		return false
	}
	i++
	for {
		i = skipJSONSpace(d, i)
		if i < len(d) && d[i] == '}' {
			return true
		}
		key, j, ok := jsonSimpleString(d, i)
		if !ok {
			return false
		}
		i = skipJSONSpace(d, j)
		if i >= len(d) || d[i] != ':' {
			return false
		}
		if i, ok = member(key, d, skipJSONSpace(d, i+1)); !ok {
			return false
		}
		i = skipJSONSpace(d, i)
		switch {
		case i < len(d) && d[i] == ',':
			i++
		case i < len(d) && d[i] == '}':
		default:
			return false
		}
	}
}
