package metaop

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/odlm-render/odlm-render/internal/api"
	"github.com/odlm-render/odlm-render/internal/diag"
	"github.com/odlm-render/odlm-render/internal/manifest"
)

// Produced reports whether o is one of the ODLM objects the conversion made.
func (c *Conversion) Produced(o *manifest.Object) bool {
	p, ok := c.produced[o.Ref().Key()]
	if !ok {
		return false
	}
	switch p.kind {
	case api.KindOperandRegistry:
		return p.unit.Registry == o
	case api.KindOperandConfig:
		return p.unit.OperandConfig == o
	}
	return p.unit.Request == o
}

// UnitOf returns the unit a produced ODLM object belongs to, or nil.
func (c *Conversion) UnitOf(o *manifest.Object) *Unit {
	if !c.Produced(o) {
		return nil
	}
	return c.produced[o.Ref().Key()].unit
}

var (
	operatorField = regexp.MustCompile(`^spec\.operators\[(\d+)\](.*)$`)
	operandField  = regexp.MustCompile(`^spec\.requests\[0\]\.operands\[(\d+)\](.*)$`)
)

// MapResult rewrites a result about a produced ODLM object into one about the Meta object
// and field it came from (a registry entry's channel that the Set overrides points at the
// Set's service, a request operand at its Set service), and names Meta objects instead of
// the ODLM ones in every message.
func (c *Conversion) MapResult(r diag.Result) diag.Result {
	r.Message = c.metaNames(r.Message)
	if r.Object == nil {
		return r
	}
	p, ok := c.produced[r.Object.Key()]
	if !ok {
		return r
	}
	u := p.unit
	var obj *manifest.Object
	field := r.Field
	switch p.kind {
	case api.KindOperandRegistry:
		obj = u.Catalog
		if m := operatorField.FindStringSubmatch(field); m != nil {
			ri, _ := strconv.Atoi(m[1])
			if ri < len(u.regToCatalog) {
				field = manifest.Field("spec.operators", u.regToCatalog[ri]) + m[2]
				if sj, ok := u.channelFrom[ri]; ok && strings.HasPrefix(m[2], ".channel") {
					obj, field = u.Set, manifest.Field("spec.services", sj, "channel")
				}
			}
		}
	case api.KindOperandConfig:
		obj = u.Config
	default:
		obj = u.Set
		switch m := operandField.FindStringSubmatch(field); {
		case m != nil:
			oi, _ := strconv.Atoi(m[1])
			if oi < len(u.operandToSet) {
				field = manifest.Field("spec.services", u.operandToSet[oi]) + m[2]
			} else {
				field = "spec.services"
			}
		case strings.HasPrefix(field, "spec.requests"):
			field = "spec.services"
		}
	}
	mapped := diag.About(r.Severity, obj, field, "%s", r.Message)
	return mapped
}

// metaNames replaces "OperandRegistry ns/name" (and OperandConfig, OperandRequest) of the
// converted units by the Meta kinds they came from.
func (c *Conversion) metaNames(msg string) string {
	for _, u := range c.Units {
		for _, p := range []struct {
			odlm    *manifest.Object
			oldKind string
			newKind string
		}{
			{u.Registry, api.KindOperandRegistry, KindCatalog},
			{u.OperandConfig, api.KindOperandConfig, KindConfig},
			{u.Request, api.KindOperandRequest, KindSet},
		} {
			if p.odlm != nil && strings.Contains(msg, p.oldKind) {
				msg = replaceName(msg, p.oldKind+" "+u.key(), p.newKind+" "+u.key())
			}
		}
	}
	return msg
}

// replaceName replaces whole occurrences of old (not followed by a character that may
// continue a Kubernetes name).
func replaceName(s, old, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if continuesName(s[end:]) {
			b.WriteString(s[:end])
			s = s[end:]
			continue
		}
		b.WriteString(s[:i])
		b.WriteString(repl)
		s = s[end:]
	}
}

// continuesName reports text that continues a Kubernetes name: a lower-case letter, a
// digit or a dash, or a dot followed by one of those (a dot ending a sentence does not).
func continuesName(rest string) bool {
	alnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	switch {
	case rest == "":
		return false
	case alnum(rest[0]) || rest[0] == '-':
		return true
	case rest[0] == '.':
		return len(rest) > 1 && alnum(rest[1])
	}
	return false
}
