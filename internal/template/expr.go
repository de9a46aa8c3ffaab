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
	for _, op := range comparisonOps {
		if c := op.of(x); c != nil {
			return e.compare(c, op.holds)
		}
	}
	switch {
	case len(x.And) > 0:
		return e.and(x.And)
	case len(x.Or) > 0:
		return e.or(x.Or)
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

// comparisonOp is one of ODLM's comparison operators: the field of an expression that holds
// it, and whether an order (Compare's) satisfies it.
type comparisonOp struct {
	of    func(*expression) *comparison
	holds func(order int, ok bool) bool
}

// comparisonOps are the comparison operators in the order expr tries them.
var comparisonOps = [...]comparisonOp{
	{func(x *expression) *comparison { return x.Equal }, func(o int, ok bool) bool { return ok && o == 0 }},
	{func(x *expression) *comparison { return x.NotEqual }, func(o int, ok bool) bool { return !(ok && o == 0) }},
	{func(x *expression) *comparison { return x.GreaterThan }, func(o int, ok bool) bool { return ok && o > 0 }},
	{func(x *expression) *comparison { return x.LessThan }, func(o int, ok bool) bool { return ok && o < 0 }},
}

// compare resolves both sides of a comparison and tells whether their order satisfies holds.
// With an error the bool is what holds makes of no order (callers read only the error).
func (e *evaluator) compare(c *comparison, holds func(order int, ok bool) bool) (bool, error) {
	l, _, err := e.source(c.Left)
	if err != nil {
		return holds(0, false), err
	}
	r, _, err := e.source(c.Right)
	if err != nil {
		return holds(0, false), err
	}
	return holds(Compare(l, r)), nil
}

// and is true when every sub-expression is, stopping at the first false one or error.
func (e *evaluator) and(subs []*expression) (bool, error) {
	for _, sub := range subs {
		ok, err := e.expr(sub)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// or is true at the first true sub-expression, and stops at an error.
func (e *evaluator) or(subs []*expression) (bool, error) {
	for _, sub := range subs {
		ok, err := e.expr(sub)
		if err != nil || ok {
			return ok && err == nil, err
		}
	}
	return false, nil
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
