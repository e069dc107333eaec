package storage

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// api is the exported surface of this package that the layout table must
// cover, read from the package's source with go/parser, so that the
// completeness tests check the table against the code rather than against
// a hand list.
type api struct {
	// keys maps each key constructor ("NodeVersionKey",
	// "SystemScope.JobKey") to the setter its body calls ("SetNodeVersion"),
	// or to "" when its body is not exactly `k.SetX(its parameters); return k`.
	keys map[string]string
	// setters are the exported methods of *Key named Set*.
	setters []string
	// decoders are the exported Decode* functions that return a *Parts type.
	decoders []string
	// decodeCalls are the decoders that Decode dispatches to.
	decodeCalls map[string]bool
	// ranges are the exported functions and methods that return a
	// ScanRange: "NodeHistory", "SystemScope.FullFamily", "ScanRange.After".
	ranges []string
}

var readAPIOnce = sync.OnceValues(readAPI)

// packageAPI returns the package's exported surface, failing t if the
// source does not parse.
func packageAPI(t testing.TB) api {
	t.Helper()
	a, err := readAPIOnce()
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func readAPI() (api, error) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		return api{}, err
	}
	a := api{keys: map[string]string{}, decodeCalls: map[string]bool{}}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return api{}, err
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok {
				a.add(fd)
			}
		}
	}
	slices.Sort(a.setters)
	slices.Sort(a.decoders)
	slices.Sort(a.ranges)
	return a, nil
}

func (a *api) add(fd *ast.FuncDecl) {
	name := fd.Name.Name
	if name == "Decode" {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && strings.HasPrefix(id.Name, "Decode") {
				a.decodeCalls[id.Name] = true
			}
			return true
		})
	}
	if !fd.Name.IsExported() {
		return
	}
	recv, pointer := receiver(fd)
	results := resultTypes(fd)
	switch {
	case recv == "Key" && pointer && strings.HasPrefix(name, "Set"):
		a.setters = append(a.setters, name)
	case recv == "" && strings.HasPrefix(name, "Decode") && len(results) == 2 && strings.HasSuffix(results[0], "Parts"):
		a.decoders = append(a.decoders, name)
	case (recv == "" || recv == "SystemScope") && !pointer && slices.Equal(results, []string{"Key"}):
		a.keys[qualified(recv, name)] = calledSetter(fd)
	case (recv == "" || recv == "SystemScope" || recv == "ScanRange") && !pointer && len(results) > 0 && results[0] == "ScanRange":
		a.ranges = append(a.ranges, qualified(recv, name))
	}
}

func qualified(recv, name string) string {
	if recv == "" {
		return name
	}
	return recv + "." + name
}

// receiver returns the name of fd's receiver type and whether it is a
// pointer; "" for a function.
func receiver(fd *ast.FuncDecl) (string, bool) {
	if fd.Recv == nil {
		return "", false
	}
	switch t := fd.Recv.List[0].Type.(type) {
	case *ast.Ident:
		return t.Name, false
	case *ast.StarExpr:
		if id, ok := t.X.(*ast.Ident); ok {
			return id.Name, true
		}
	}
	return "?", false
}

// resultTypes names fd's result types, one per result.
func resultTypes(fd *ast.FuncDecl) []string {
	var out []string
	if fd.Type.Results == nil {
		return nil
	}
	for _, f := range fd.Type.Results.List {
		name := "?"
		if id, ok := f.Type.(*ast.Ident); ok {
			name = id.Name
		}
		for range max(len(f.Names), 1) {
			out = append(out, name)
		}
	}
	return out
}

// calledSetter returns the setter that the key constructor fd is a
// function form of: its body must be exactly `k.SetX(params); return k`,
// with k its named result and params its receiver and parameters, in
// order. It returns "" otherwise.
func calledSetter(fd *ast.FuncDecl) string {
	var params []string
	if fd.Recv != nil {
		params = append(params, fieldNames(fd.Recv)...)
	}
	params = append(params, fieldNames(fd.Type.Params)...)
	result := fieldNames(fd.Type.Results)
	if len(result) != 1 || len(fd.Body.List) != 2 {
		return ""
	}
	call, ok := fd.Body.List[0].(*ast.ExprStmt)
	ret, ok2 := fd.Body.List[1].(*ast.ReturnStmt)
	if !ok || !ok2 || len(ret.Results) != 1 || !isIdent(ret.Results[0], result[0]) {
		return ""
	}
	ce, ok := call.X.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := ce.Fun.(*ast.SelectorExpr)
	if !ok || !isIdent(sel.X, result[0]) || !strings.HasPrefix(sel.Sel.Name, "Set") || len(ce.Args) != len(params) {
		return ""
	}
	for i, arg := range ce.Args {
		if !isIdent(arg, params[i]) {
			return ""
		}
	}
	return sel.Sel.Name
}

func fieldNames(fl *ast.FieldList) []string {
	var out []string
	if fl == nil {
		return nil
	}
	for _, f := range fl.List {
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
	}
	return out
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// tableProblems checks the layout table against the package's exported
// surface and returns what is missing or wrong, one line each. derived are
// the key constructors that compute a field from their arguments,
// special the range constructors that are not prefix scans, and decoders
// the decoders the tests run; all three are listed in the tests.
func tableProblems(a api, table []Layout, derived, special, decoders []string) []string {
	var out []string
	problem := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }

	keys := map[string]int{}
	for _, name := range derived {
		keys[name]++
	}
	scans := map[string]int{}
	for _, name := range special {
		scans[name]++
	}
	families := map[ColumnFamily]bool{}
	for _, l := range table {
		families[l.Family] = true
		if len(l.keys) == 0 {
			problem("layout %s: no key constructor", l.title())
		}
		for _, k := range l.keys {
			keys[funcName(k)]++
			out = append(out, signatureProblems(l, k)...)
		}
		for _, s := range l.scans {
			scans[s.Name()]++
			out = append(out, scanProblems(l, s)...)
		}
	}
	for _, cf := range Families() {
		if !families[cf] {
			problem("family %s: no layout in the table", cf)
		}
	}
	for name, setter := range a.keys {
		switch {
		case keys[name] == 0:
			problem("%s: key constructor missing from the layout table (or from the derived constructors of the tests)", name)
		case setter == "":
			problem("%s: not a function form: its body must be `k.SetX(its parameters); return k`", name)
		}
	}
	for name, n := range keys {
		if _, ok := a.keys[name]; !ok {
			problem("%s: in the layout table but not an exported key constructor of the package", name)
		} else if n > 1 {
			problem("%s: in the layout table %d times", name, n)
		}
	}
	for _, setter := range a.setters {
		n := 0
		for _, called := range a.keys {
			if called == setter {
				n++
			}
		}
		if n != 1 {
			problem("(*Key).%s: the setter of %d key constructors, want exactly one function form", setter, n)
		}
	}
	for _, name := range a.ranges {
		if scans[name] == 0 {
			problem("%s: range constructor missing from the layout table's scans (or from the special ranges of the tests)", name)
		}
	}
	for name, n := range scans {
		if !slices.Contains(a.ranges, name) {
			problem("%s: in the tables but not an exported range constructor of the package", name)
		} else if n > 1 {
			problem("%s: in the tables %d times", name, n)
		}
	}
	for _, name := range a.decoders {
		if !a.decodeCalls[name] {
			problem("%s: decoder that Decode does not dispatch to", name)
		}
		if !slices.Contains(decoders, name) {
			problem("%s: decoder missing from the decoders the tests run", name)
		}
	}
	return out
}
