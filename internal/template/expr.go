package template

import (
	"errors"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// expr evaluates a condition (docs/semantics.md, Templating: expressions): the first present operator wins in the order equal,
// notEqual, greaterThan, lessThan, and, or, not, value.
func (e *evaluator) expr(x *expression) (bool, error) {
	if x == nil {
		return false, e.fail("expression is nil")
	}
	e.exprDepth++
	defer func() { e.exprDepth-- }()
	if e.exprDepth > MaxExpressionDepth {
		return false, e.fail("expression nested deeper than %d levels (and/or/not)", MaxExpressionDepth)
	}
	cmp := func(c *comparison) (int, bool, error) {
		l, _, err := e.source(c.Left)
		if err != nil {
			return 0, false, err
		}
		r, _, err := e.source(c.Right)
		if err != nil {
			return 0, false, err
		}
		o, ok := Compare(l, r)
		return o, ok, nil
	}
	switch {
	case x.Equal != nil:
		o, ok, err := cmp(x.Equal)
		return ok && o == 0, err
	case x.NotEqual != nil:
		o, ok, err := cmp(x.NotEqual)
		return !(ok && o == 0), err
	case x.GreaterThan != nil:
		o, ok, err := cmp(x.GreaterThan)
		return ok && o > 0, err
	case x.LessThan != nil:
		o, ok, err := cmp(x.LessThan)
		return ok && o < 0, err
	case len(x.And) > 0:
		for _, sub := range x.And {
			ok, err := e.expr(sub)
			if err != nil || !ok {
				return false, err
			}
		}
		return true, nil
	case len(x.Or) > 0:
		for _, sub := range x.Or {
			ok, err := e.expr(sub)
			if err != nil || ok {
				return ok && err == nil, err
			}
		}
		return false, nil
	case x.Not != nil:
		ok, err := e.expr(x.Not)
		return !ok && err == nil, err
	case x.Value != nil:
		v, _, err := e.source(x.Value)
		if err != nil {
			return false, err
		}
		return Truthy(v), nil
	}
	return false, &Error{Path: e.path, Msg: "invalid expression format", Cause: errors.New("invalid expression format")}
}

// Compare orders two resolved strings the way ODLM's comparison operators do: when both
// (whitespace-trimmed) parse as Kubernetes quantities they compare as quantities; else when
// both parse as float64 they compare numerically; else the untrimmed strings compare byte-wise.
// ok=false when the values are unordered (a NaN): then they are neither equal, greater nor
// less.
func Compare(left, right string) (order int, ok bool) {
	lt, rt := strings.TrimSpace(left), strings.TrimSpace(right)
	if lq, err := resource.ParseQuantity(lt); err == nil {
		if rq, err := resource.ParseQuantity(rt); err == nil {
			return lq.Cmp(rq), true
		}
	}
	lf, lerr := strconv.ParseFloat(lt, 64)
	rf, rerr := strconv.ParseFloat(rt, 64)
	if lerr == nil && rerr == nil {
		switch {
		case lf < rf:
			return -1, true
		case lf > rf:
			return 1, true
		case lf == rf:
			return 0, true
		}
		return 0, false
	}
	return strings.Compare(left, right), true
}

// Truthy is the truth of a `value` expression: lower-cased "true"/"1" are true,
// "false"/"0"/"" false, any other non-empty string true.
func Truthy(v string) bool {
	switch strings.ToLower(v) {
	case "false", "0", "":
		return false
	}
	return true
}
