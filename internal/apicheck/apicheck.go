// Package apicheck owns the record of the public API (api/pkg.txt at the root of the module):
// it describes every exported name of the module's pkg/ packages, with its full signature, as
// one canonical line each (fields of exported structs and methods too, also of the internal
// types pkg/ aliases), and it finds the types that API reaches but a program outside the
// module cannot name: a type of internal/ without an alias in pkg/, or an unexported type.
//
// It reads the packages as the compiler wrote them (`go list -export`: the export data a
// build of the module holds), with go/types; it runs no code of theirs. Its test compares the
// description with the record; `make api` (go test ./internal/apicheck -update) rewrites it.
package apicheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
)

// API is the description of the public packages.
type API struct {
	// Lines are the canonical lines, sorted: "NAME KIND DETAIL", NAME a dotted name
	// (render.Options, render.Options.KeepInputs, catalog.Bundle.Examples).
	Lines []string
	// Unnameable says, for each type the API reaches that a program outside the module
	// cannot name, what it is and the first exported name through which it is reached.
	Unnameable []string
}

// Load describes the packages matching patterns (such as "./pkg/..."), run with the go
// command in dir, a folder of the module.
func Load(dir string, patterns ...string) (*API, error) {
	pkgs, module, err := load(dir, patterns)
	if err != nil {
		return nil, err
	}
	return Describe(module, pkgs), nil
}

// listed is what `go list -json` says of a package.
type listed struct {
	ImportPath string
	Export     string
	Module     *struct{ Path string }
	DepOnly    bool
	Error      *struct{ Err string }
}

// load type-checks the packages from their export data.
func load(dir string, patterns []string) ([]*types.Package, string, error) {
	args := append([]string{"list", "-export", "-deps", "-json=ImportPath,Export,Module,DepOnly,Error"}, patterns...)
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, "", fmt.Errorf("go list: %w: %s", err, stderr.String())
	}
	exports := map[string]string{}
	var roots []string
	module := ""
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, "", err
		}
		if p.Error != nil {
			return nil, "", fmt.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			roots = append(roots, p.ImportPath)
			if p.Module != nil {
				module = p.Module.Path
			}
		}
	}
	if len(roots) == 0 || module == "" {
		return nil, "", fmt.Errorf("go list %s: no package of a module", strings.Join(patterns, " "))
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file, ok := exports[path]
		if !ok || file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	var pkgs []*types.Package
	for _, path := range roots {
		p, err := imp.Import(path)
		if err != nil {
			return nil, "", err
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, module, nil
}

// describer builds the description of the public packages of one module.
type describer struct {
	module string
	public map[*types.Package]bool
	// names are the public names of named types: their own in a public package, or the
	// first alias a public package declares for them
	names map[*types.TypeName]string
	lines []string
	// described are the types whose members are listed; queue those still to list
	queue      []described
	described  map[*types.TypeName]bool
	unnameable map[string]string
	// from is the exported name whose description is being written
	from string
}

type described struct {
	name string // the public name
	t    *types.Named
}

// Describe describes pkgs, the public packages of module.
func Describe(module string, pkgs []*types.Package) *API {
	d := &describer{module: module, public: map[*types.Package]bool{}, names: map[*types.TypeName]string{},
		described: map[*types.TypeName]bool{}, unnameable: map[string]string{}}
	slices.SortFunc(pkgs, func(a, b *types.Package) int { return strings.Compare(a.Path(), b.Path()) })
	for _, p := range pkgs {
		d.public[p] = true
	}
	// public names first: a type is printed by its public name wherever it appears
	for _, p := range pkgs {
		for _, name := range p.Scope().Names() {
			tn, ok := p.Scope().Lookup(name).(*types.TypeName)
			if !ok || !tn.Exported() {
				continue
			}
			public := p.Name() + "." + name
			if !tn.IsAlias() {
				d.names[tn] = public
				continue
			}
			if n, ok := types.Unalias(tn.Type()).(*types.Named); ok && d.internal(n.Obj().Pkg()) {
				if _, seen := d.names[n.Obj()]; !seen {
					d.names[n.Obj()] = public
				}
			}
		}
	}
	for _, p := range pkgs {
		for _, name := range p.Scope().Names() {
			obj := p.Scope().Lookup(name)
			if obj.Exported() {
				d.object(p.Name()+"."+name, obj)
			}
		}
	}
	for len(d.queue) > 0 {
		q := d.queue[0]
		d.queue = d.queue[1:]
		d.members(q.name, q.t)
	}
	sort.Strings(d.lines)
	api := &API{Lines: slices.Compact(d.lines)}
	for what, from := range d.unnameable {
		api.Unnameable = append(api.Unnameable, what+" (reached from "+from+")")
	}
	sort.Strings(api.Unnameable)
	return api
}

// internal says whether p is a package of the module outside pkg/: a program outside the
// module cannot import it.
func (d *describer) internal(p *types.Package) bool {
	if p == nil || d.public[p] {
		return false
	}
	return p.Path() == d.module || strings.HasPrefix(p.Path(), d.module+"/")
}

func (d *describer) add(name, kind, detail string) {
	d.lines = append(d.lines, strings.TrimSpace(name+" "+kind+" "+detail))
}

// object describes one exported name of a public package.
func (d *describer) object(name string, obj types.Object) {
	d.from = name
	switch o := obj.(type) {
	case *types.Const:
		d.add(name, "const", d.typ(o.Type())+" = "+o.Val().ExactString())
	case *types.Var:
		d.add(name, "var", d.typ(o.Type()))
	case *types.Func:
		d.add(name, "func", d.signature(o.Type().(*types.Signature)))
	case *types.TypeName:
		if o.IsAlias() {
			d.alias(name, o)
			return
		}
		n := o.Type().(*types.Named)
		d.add(name, "type", d.typeParams(n.TypeParams())+d.underlying(n))
		d.enqueue(name, n)
	}
}

// alias describes an alias a public package declares: of an internal type, it is described
// as if declared here; of another type, by that type's name.
func (d *describer) alias(name string, o *types.TypeName) {
	n, ok := types.Unalias(o.Type()).(*types.Named)
	if !ok || !d.internal(n.Obj().Pkg()) {
		d.add(name, "alias", d.typ(types.Unalias(o.Type())))
		return
	}
	if public := d.names[n.Obj()]; public != name {
		d.add(name, "alias", public)
		return
	}
	d.add(name, "alias", d.typeParams(n.TypeParams())+d.underlying(n))
	d.enqueue(name, n)
}

func (d *describer) enqueue(name string, n *types.Named) {
	if d.described[n.Obj()] {
		return
	}
	d.described[n.Obj()] = true
	d.queue = append(d.queue, described{name, n.Origin()})
}

// underlying is the kind of a named type ("struct", "interface") or its underlying type.
func (d *describer) underlying(n *types.Named) string {
	switch n.Underlying().(type) {
	case *types.Struct:
		return "struct"
	case *types.Interface:
		return "interface"
	}
	return d.typ(n.Underlying())
}

// members describes the exported fields and methods of a named type.
func (d *describer) members(name string, n *types.Named) {
	d.from = name
	switch u := n.Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			f := u.Field(i)
			if !f.Exported() {
				continue
			}
			kind := "field"
			if f.Embedded() {
				kind = "embedded"
			}
			d.from = name + "." + f.Name()
			d.add(name+"."+f.Name(), kind, d.typ(f.Type()))
		}
	case *types.Interface:
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				d.from = name + "." + m.Name()
				d.add(name+"."+m.Name(), "method", d.signature(m.Type().(*types.Signature)))
			}
		}
		return
	}
	recvName := name
	if tp := n.TypeParams(); tp.Len() > 0 {
		var s []string
		for i := range tp.Len() {
			s = append(s, tp.At(i).Obj().Name())
		}
		recvName += "[" + strings.Join(s, ", ") + "]"
	}
	value := types.NewMethodSet(n)
	all := types.NewMethodSet(types.NewPointer(n))
	for i := range all.Len() {
		m := all.At(i).Obj()
		if !m.Exported() {
			continue
		}
		recv := "(*" + recvName + ")"
		if value.Lookup(m.Pkg(), m.Name()) != nil {
			recv = "(" + recvName + ")"
		}
		d.from = name + "." + m.Name()
		d.add(name+"."+m.Name(), "method", recv+" "+d.signature(m.Type().(*types.Signature)))
	}
}

// named is the name of a named type as a program outside the module writes it, noting the
// types it cannot name and queueing the internal types whose members are part of the API.
func (d *describer) named(n *types.Named) string {
	obj := n.Obj()
	args := ""
	if ta := n.TypeArgs(); ta.Len() > 0 {
		var s []string
		for i := range ta.Len() {
			s = append(s, d.typ(ta.At(i)))
		}
		args = "[" + strings.Join(s, ", ") + "]"
	}
	if obj.Pkg() == nil { // error, comparable
		return obj.Name() + args
	}
	if public, ok := d.names[n.Origin().Obj()]; ok {
		if d.internal(obj.Pkg()) {
			d.enqueue(public, n)
		}
		return public + args
	}
	full := obj.Pkg().Path() + "." + obj.Name()
	switch {
	case d.internal(obj.Pkg()):
		d.note(full, "a type of an internal package without an alias in pkg/")
	case !obj.Exported():
		d.note(full, "an unexported type")
	}
	return full + args
}

func (d *describer) note(full, why string) {
	what := full + ": " + why
	if _, seen := d.unnameable[what]; !seen {
		d.unnameable[what] = d.from
	}
}

// typ writes a type as a program outside the module names it.
func (d *describer) typ(t types.Type) string {
	switch t := t.(type) {
	case *types.Alias:
		// an alias a public package declares is written by its name there
		if obj := t.Obj(); obj.Exported() && d.public[obj.Pkg()] {
			return obj.Pkg().Name() + "." + obj.Name()
		}
		return d.typ(types.Unalias(t))
	case *types.Named:
		return d.named(t)
	case *types.Basic:
		return t.Name()
	case *types.Pointer:
		return "*" + d.typ(t.Elem())
	case *types.Slice:
		return "[]" + d.typ(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), d.typ(t.Elem()))
	case *types.Map:
		return "map[" + d.typ(t.Key()) + "]" + d.typ(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + d.typ(t.Elem())
		case types.RecvOnly:
			return "<-chan " + d.typ(t.Elem())
		}
		return "chan " + d.typ(t.Elem())
	case *types.Signature:
		return "func" + d.signature(t)
	case *types.Struct:
		var fields []string
		for i := range t.NumFields() {
			f := t.Field(i)
			s := d.typ(f.Type())
			if !f.Embedded() {
				s = f.Name() + " " + s
			}
			fields = append(fields, s)
		}
		return "struct{" + strings.Join(fields, "; ") + "}"
	case *types.Interface:
		if t.Empty() {
			return "any"
		}
		var elems []string
		for i := range t.NumEmbeddeds() {
			elems = append(elems, d.typ(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			elems = append(elems, m.Name()+d.signature(m.Type().(*types.Signature)))
		}
		return "interface{" + strings.Join(elems, "; ") + "}"
	case *types.Union:
		var terms []string
		for i := range t.Len() {
			term := t.Term(i)
			s := d.typ(term.Type())
			if term.Tilde() {
				s = "~" + s
			}
			terms = append(terms, s)
		}
		return strings.Join(terms, " | ")
	case *types.TypeParam:
		return t.Obj().Name()
	}
	return t.String()
}

func (d *describer) typeParams(tp *types.TypeParamList) string {
	if tp.Len() == 0 {
		return ""
	}
	var s []string
	for i := range tp.Len() {
		p := tp.At(i)
		s = append(s, p.Obj().Name()+" "+d.typ(p.Constraint()))
	}
	return "[" + strings.Join(s, ", ") + "] "
}

// signature writes a function's type parameters, parameters and results, without names.
func (d *describer) signature(sig *types.Signature) string {
	s := ""
	if tp := sig.TypeParams(); tp.Len() > 0 {
		s = strings.TrimSuffix(d.typeParams(tp), " ")
	}
	var params []string
	for i := range sig.Params().Len() {
		t := d.typ(sig.Params().At(i).Type())
		if sig.Variadic() && i == sig.Params().Len()-1 {
			t = "..." + strings.TrimPrefix(t, "[]")
		}
		params = append(params, t)
	}
	s += "(" + strings.Join(params, ", ") + ")"
	var results []string
	for i := range sig.Results().Len() {
		results = append(results, d.typ(sig.Results().At(i).Type()))
	}
	switch len(results) {
	case 0:
	case 1:
		s += " " + results[0]
	default:
		s += " (" + strings.Join(results, ", ") + ")"
	}
	return s
}

// Diff compares the recorded lines with the live ones: the lines only the live API has, the
// recorded lines it lost, and the names whose line changed (as "old" -> "new"), each sorted.
func Diff(recorded, live []string) (added, removed, changed []string) {
	key := func(line string) string { k, _, _ := strings.Cut(line, " "); return k }
	old := map[string]string{}
	for _, l := range recorded {
		old[key(l)] = l
	}
	now := map[string]string{}
	for _, l := range live {
		now[key(l)] = l
	}
	for k, l := range now {
		switch o, ok := old[k]; {
		case !ok:
			added = append(added, l)
		case o != l:
			changed = append(changed, o+"\n    -> "+l)
		}
	}
	for k, l := range old {
		if _, ok := now[k]; !ok {
			removed = append(removed, l)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	sort.Strings(changed)
	return added, removed, changed
}
