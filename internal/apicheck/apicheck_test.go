package apicheck_test

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/odlm-render/odlm-render/internal/apicheck"
)

var update = flag.Bool("update", false, "record the live public API in api/pkg.txt")

// record is the recorded public API, relative to this package.
var record = filepath.Join("..", "..", "api", "pkg.txt")

const header = `# The public API of odlm-render: every exported name of pkg/..., one line each
# ("NAME KIND DETAIL"), written by internal/apicheck. Do not edit: after changing the API on
# purpose, run make api and commit this file with the change (docs/testing.md).
`

// TestPublicAPIIsRecorded fails when the exported API of pkg/... differs from api/pkg.txt,
// naming the lines added, removed and changed, and when the API reaches a type a program
// outside the module cannot name (a type of internal/ without an alias in pkg/).
func TestPublicAPIIsRecorded(t *testing.T) {
	api, err := apicheck.Load(filepath.Join("..", ".."), "./pkg/...")
	require.NoError(t, err)
	if len(api.Unnameable) > 0 {
		t.Errorf("the public API reaches types a program outside the module cannot name: alias them in pkg/ (as pkg/render/api.go does) or keep them out of the API:\n  %s",
			strings.Join(api.Unnameable, "\n  "))
	}
	live := header + strings.Join(api.Lines, "\n") + "\n"
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(record), 0o755))
		require.NoError(t, os.WriteFile(record, []byte(live), 0o644))
		return
	}
	data, err := os.ReadFile(record)
	require.NoError(t, err, "record the API with make api")
	if string(data) == live {
		return
	}
	var recorded []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(l, "#") {
			recorded = append(recorded, l)
		}
	}
	added, removed, changed := apicheck.Diff(recorded, api.Lines)
	var msg strings.Builder
	msg.WriteString("the public API (pkg/...) differs from api/pkg.txt; if the change is meant, record it with make api and commit api/pkg.txt with it\n")
	for _, part := range []struct {
		what  string
		lines []string
	}{{"added", added}, {"removed", removed}, {"changed", changed}} {
		if len(part.lines) > 0 {
			msg.WriteString(part.what + ":\n  " + strings.Join(part.lines, "\n  ") + "\n")
		}
	}
	if len(added)+len(removed)+len(changed) == 0 {
		msg.WriteString("(only the header or the order of lines differs)\n")
	}
	t.Error(msg.String())
}

// TestDiff: a changed signature is one changed line, not a removal and an addition.
func TestDiff(t *testing.T) {
	added, removed, changed := apicheck.Diff(
		[]string{"p.A func () int", "p.B var int", "p.C const int = 1"},
		[]string{"p.A func () string", "p.C const int = 1", "p.D type struct"})
	require.Equal(t, []string{"p.D type struct"}, added)
	require.Equal(t, []string{"p.B var int"}, removed)
	require.Equal(t, []string{"p.A func () int\n    -> p.A func () string"}, changed)
}

// TestDescribe: an alias of an internal type is described as if declared in pkg/, its
// methods' types by their public names; an internal type without an alias, and an unexported
// type, are reported with the name that reaches them.
func TestDescribe(t *testing.T) {
	fset := token.NewFileSet()
	checked := map[string]*types.Package{}
	check := func(path, src string) *types.Package {
		f, err := parser.ParseFile(fset, path+".go", src, 0)
		require.NoError(t, err)
		conf := types.Config{Importer: importerFunc(func(p string) (*types.Package, error) { return checked[p], nil })}
		pkg, err := conf.Check(path, fset, []*ast.File{f}, nil)
		require.NoError(t, err)
		checked[path] = pkg
		return pkg
	}
	check("m/internal/x", `package x
type Object struct{ Name string; Src Source; hidden int }
func (o *Object) Ref() Ref { return Ref{} }
type Ref struct{ Kind string }
type Source struct{ File string }`)
	p := check("m/pkg/p", `package p
import "m/internal/x"
type Object = x.Object
type Ref = x.Ref
type options struct{ A int }
func Decode(data []byte) ([]*Object, error) { return nil, nil }
func Defaults() options { return options{} }
const Max = 3`)
	api := apicheck.Describe("m", []*types.Package{p})
	require.Equal(t, []string{
		"p.Decode func ([]byte) ([]*p.Object, error)",
		"p.Defaults func () m/pkg/p.options",
		"p.Max const untyped int = 3",
		"p.Object alias struct",
		"p.Object.Name field string",
		"p.Object.Ref method (*p.Object) () p.Ref",
		"p.Object.Src field m/internal/x.Source",
		"p.Ref alias struct",
		"p.Ref.Kind field string",
	}, api.Lines)
	require.Equal(t, []string{
		"m/internal/x.Source: a type of an internal package without an alias in pkg/ (reached from p.Object.Src)",
		"m/pkg/p.options: an unexported type (reached from p.Defaults)",
	}, api.Unnameable)
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
