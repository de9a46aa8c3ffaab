package merge

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// DeepCopy returns a copy of v in which every map[string]any and []any is
// copied recursively. Other values (strings, numbers, bools, nil) are
// immutable and returned as they are.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopy(e)
		}
		return out
	default:
		return v
	}
}

// Equal reports whether a and b are the same JSON value, the way ODLM's
// reflect.DeepEqual over json.Unmarshal'ed values sees them: numbers are
// compared by their float64 value (json.Number("1") equals
// json.Number("1.0"); numbers beyond the float64 range, which ODLM cannot
// decode at all, are compared exactly as decimals), everything else
// structurally. A nil map or
// slice counts as JSON null. Types outside the JSON model fall back to
// reflect.DeepEqual.
func Equal(a, b any) bool {
	if isNull(a) || isNull(b) {
		return isNull(a) && isNull(b)
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		return ok && mapsEqual(av, bv)
	case []any:
		bv, ok := b.([]any)
		return ok && listsEqual(av, bv)
	case string:
		bv, ok := b.(string)
		return ok && av == bv
	case bool:
		bv, ok := b.(bool)
		return ok && av == bv
	}
	if an, ok := numberText(a); ok {
		bn, ok := numberText(b)
		return ok && numbersEqual(an, bn)
	}
	return reflect.DeepEqual(a, b)
}

func mapsEqual(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, av := range a {
		bv, ok := b[k]
		if !ok || !Equal(av, bv) {
			return false
		}
	}
	return true
}

func listsEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// isNull reports whether v is JSON null: nil, or a nil map or slice
// (which encoding/json also writes as null).
func isNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		return t == nil
	case []any:
		return t == nil
	default:
		return false
	}
}

// numberText returns the decimal text of a number value.
func numberText(v any) (string, bool) {
	switch t := v.(type) {
	case json.Number:
		return string(t), true
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(t), 'g', -1, 32), true
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return fmt.Sprint(t), true
	default:
		return "", false
	}
}

func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	if errA == nil && errB == nil {
		return fa == fb
	}
	da, okA := parseDecimal(a)
	db, okB := parseDecimal(b)
	return okA && okB && da == db
}

// decimal is a number in canonical form: (-1)^neg × 0.digits × 10^exp,
// with no leading or trailing zero in digits; zero has empty digits.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// parseDecimal reads JSON number text (used for numbers outside the
// float64 range, which it compares exactly, in time linear in the text).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && s[i] == '-' {
		d.neg = true
		i++
	}
	intPart, i := digitRun(s, i)
	if intPart == "" {
		return decimal{}, false
	}
	fracPart := ""
	if i < len(s) && s[i] == '.' {
		if fracPart, i = digitRun(s, i+1); fracPart == "" {
			return decimal{}, false
		}
	}
	var e int64
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		var err error
		if e, err = strconv.ParseInt(s[i+1:], 10, 64); err != nil || e > 1<<62 || e < -(1<<62) {
			return decimal{}, false
		}
		i = len(s)
	}
	if i != len(s) {
		return decimal{}, false
	}
	mant := intPart + fracPart
	trimmed := strings.TrimLeft(mant, "0")
	d.exp = e + int64(len(intPart)) - int64(len(mant)-len(trimmed))
	d.digits = strings.TrimRight(trimmed, "0")
	if d.digits == "" {
		return decimal{}, true
	}
	return d, true
}

// digitRun returns the run of ASCII digits starting at s[i] and the index
// after it.
func digitRun(s string, i int) (string, int) {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return s[i:j], j
}
