package naming

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// canonicalJSON appends to b the bytes encoding/json's Marshal writes for v once every
// json.Number in it is converted to float64 (map keys sorted, HTML characters escaped,
// floats in Marshal's format), without building the converted copy. Values other than the
// ones a decoded manifest holds (maps, lists, strings, numbers, booleans, null) are encoded
// by json.Marshal itself. An error is a *valueError whose path is built as it returns.
func canonicalJSON(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case string:
		return appendJSONString(b, t), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil || !json.Valid([]byte(t)) {
			return nil, &valueError{msg: fmt.Sprintf("number %q is not a float64", string(t))}
		}
		return appendJSONFloat(b, f), nil
	case float64:
		if math.IsInf(t, 0) || math.IsNaN(t) {
			return nil, &valueError{msg: fmt.Sprintf("number %v is not JSON", t)}
		}
		return appendJSONFloat(b, t), nil
	case map[string]any:
		return canonicalMap(b, t)
	case []any:
		return canonicalList(b, t)
	default:
		data, err := json.Marshal(v)
		if err != nil {
			return nil, &valueError{msg: "encoding data to hash", err: err}
		}
		return append(b, data...), nil
	}
}

// valueError is a value canonicalJSON cannot encode, at path (empty for the top).
type valueError struct {
	path, msg string
	err       error
}

func (e *valueError) Error() string {
	if e.err != nil {
		return atPath(e.path) + e.msg + ": " + e.err.Error()
	}
	return atPath(e.path) + e.msg
}

func (e *valueError) Unwrap() error { return e.err }

// under prefixes err's path with a map key or list index (segment) as it returns.
func under(err error, segment string) error {
	var ve *valueError
	if errors.As(err, &ve) {
		switch {
		case ve.path == "":
			ve.path = segment
		case ve.path[0] == '[':
			ve.path = segment + ve.path
		default:
			ve.path = segment + "." + ve.path
		}
	}
	return err
}

func canonicalMap(b []byte, m map[string]any) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var err error
		if b, err = canonicalJSON(b, m[k]); err != nil {
			return nil, under(err, k)
		}
	}
	return append(b, '}'), nil
}

func canonicalList(b []byte, l []any) ([]byte, error) {
	if l == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, e := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = canonicalJSON(b, e); err != nil {
			return nil, under(err, "["+strconv.Itoa(i)+"]")
		}
	}
	return append(b, ']'), nil
}

// appendJSONFloat writes f as encoding/json does: plain decimal notation, except exponent
// notation below 1e-6 and from 1e21 up, with a single-digit negative exponent not padded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString writes s quoted as encoding/json does with HTML escaping: ", \ and
// control characters escaped (\b \f \n \r \t short), <, > and & as \u003c-style escapes,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	plain := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[plain:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			plain = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[plain:i]...)
			b = append(b, `\ufffd`...)
			i += size
			plain = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[plain:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			plain = i
			continue
		}
		i += size
	}
	b = append(b, s[plain:]...)
	return append(b, '"')
}
