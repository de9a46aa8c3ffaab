// Command codemetrics prints the size figures issue 23 sets limits on: methods and fields per
// type, function lengths (count over 60 and 100 lines, mean), for every non-test, non-generated
// Go file below the given roots (default: the module's pkg, internal, cmd and fn).
//
//	go run ./hack/codemetrics [-v] [roots...]
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type funcLen struct {
	name  string
	lines int
}

func main() {
	verbose := flag.Bool("v", false, "list every function over 60 lines and the ten largest types")
	flag.Parse()
	roots := flag.Args()
	if len(roots) == 0 {
		roots = []string{"pkg", "internal", "cmd", "fn"}
	}
	fset := token.NewFileSet()
	methods := map[string]int{}
	fields := map[string]int{}
	var funcs []funcLen
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			file, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			if ast.IsGenerated(file) {
				return nil
			}
			pkg := filepath.Dir(path)
			for _, decl := range file.Decls {
				switch decl := decl.(type) {
				case *ast.FuncDecl:
					name := decl.Name.Name
					if decl.Recv != nil && len(decl.Recv.List) == 1 {
						recv := receiverName(decl.Recv.List[0].Type)
						methods[pkg+"."+recv]++
						name = recv + "." + name
					}
					if decl.Body == nil {
						continue
					}
					lines := fset.Position(decl.End()).Line - fset.Position(decl.Pos()).Line + 1
					funcs = append(funcs, funcLen{name: path + ": " + name, lines: lines})
				case *ast.GenDecl:
					for _, spec := range decl.Specs {
						ts, ok := spec.(*ast.TypeSpec)
						if !ok {
							continue
						}
						if st, ok := ts.Type.(*ast.StructType); ok {
							n := 0
							for _, f := range st.Fields.List {
								if len(f.Names) == 0 {
									n++
								}
								n += len(f.Names)
							}
							fields[pkg+"."+ts.Name.Name] = n
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	total, over60, over100 := 0, 0, 0
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].lines > funcs[j].lines })
	for _, f := range funcs {
		total += f.lines
		if f.lines > 60 {
			over60++
		}
		if f.lines > 100 {
			over100++
		}
	}
	fmt.Printf("functions: %d, mean %.1f lines, %d over 60, %d over 100\n", len(funcs), float64(total)/float64(max(1, len(funcs))), over60, over100)
	printTop("methods", methods, *verbose)
	printTop("fields", fields, *verbose)
	if *verbose {
		for _, f := range funcs {
			if f.lines <= 60 {
				break
			}
			fmt.Printf("  %4d  %s\n", f.lines, f.name)
		}
	}
}

func printTop(what string, counts map[string]int, verbose bool) {
	type kv struct {
		k string
		v int
	}
	var all []kv
	for k, v := range counts {
		all = append(all, kv{k, v})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].v > all[j].v || all[i].v == all[j].v && all[i].k < all[j].k })
	if len(all) == 0 {
		return
	}
	fmt.Printf("most %s: %d (%s)\n", what, all[0].v, all[0].k)
	if verbose {
		for _, e := range all[:min(10, len(all))] {
			fmt.Printf("  %4d  %s\n", e.v, e.k)
		}
	}
}

func receiverName(expr ast.Expr) string {
	switch e := expr.(type) {
	case *ast.StarExpr:
		return receiverName(e.X)
	case *ast.IndexExpr:
		return receiverName(e.X)
	case *ast.IndexListExpr:
		return receiverName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}
