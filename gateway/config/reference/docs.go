package reference

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/restgate/gateway/gateway/config"
)

// docs holds the doc comments of the fields of every config struct, read
// from the source of the packages that declare them.
type docs struct {
	// fields maps "pkgpath.Type.Field" to its comment.
	fields map[string]string
}

func (d docs) field(owner reflect.Type, name string) string {
	return d.fields[owner.PkgPath()+"."+owner.Name()+"."+name]
}

// readDocs parses the packages of the module that declare config types.
func readDocs(root string) (docs, error) {
	d := docs{fields: map[string]string{}}
	module, err := modulePath(root)
	if err != nil {
		return d, err
	}
	pkgs := map[string]bool{}
	for _, k := range config.Keys() {
		pkgs[k.Owner.PkgPath()] = true
	}
	for pkg := range pkgs {
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok {
			continue // a type of another module: no source here
		}
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimPrefix(rel, "/")))
		if err := d.parseDir(pkg, dir); err != nil {
			return d, err
		}
	}
	return d, nil
}

func (d docs) parseDir(pkg, dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return false
			}
			for _, field := range st.Fields.List {
				text := field.Doc.Text()
				if text == "" {
					text = field.Comment.Text()
				}
				for _, id := range field.Names {
					d.fields[pkg+"."+ts.Name.Name+"."+id.Name] = paragraph(text)
				}
			}
			return false
		})
	}
	return nil
}

// paragraph joins a comment's lines into one.
func paragraph(text string) string {
	return strings.Join(strings.Fields(text), " ")
}

func modulePath(root string) (string, error) {
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`), nil
		}
	}
	return "", fmt.Errorf("%s/go.mod names no module", root)
}
