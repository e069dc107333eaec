package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// sortDiagnostics sorts the findings by file, line, column, analyzer and
// message.
func sortDiagnostics(diags []diagnostic) {
	slices.SortFunc(diags, compareDiagnostics)
}

func compareDiagnostics(a, b diagnostic) int {
	return cmp.Or(
		cmp.Compare(a.file, b.file),
		cmp.Compare(a.line, b.line),
		cmp.Compare(a.col, b.col),
		cmp.Compare(a.Analyzer, b.Analyzer),
		cmp.Compare(a.Message, b.Message))
}

// printText writes one line per finding, "file:line:col: analyzer:
// message", with context lines of source around it if context >= 0.
func printText(w io.Writer, diags []diagnostic, context int) error {
	for _, d := range diags {
		if _, err := fmt.Fprintf(w, "%s: %s: %s\n", d.Posn, d.Analyzer, d.Message); err != nil {
			return err
		}
		if context >= 0 {
			if err := printContext(w, d, context); err != nil {
				return err
			}
		}
	}
	return nil
}

// printContext writes the source lines around a finding, as go vet -c does.
func printContext(w io.Writer, d diagnostic, context int) error {
	data, err := os.ReadFile(d.file)
	if err != nil {
		return nil // a position in no file of ours
	}
	lines := strings.Split(string(data), "\n")
	for i := max(d.line-context, 1); i <= min(d.line+context, len(lines)); i++ {
		if _, err := fmt.Fprintf(w, "%d\t%s\n", i, lines[i-1]); err != nil {
			return err
		}
	}
	return nil
}

// printJSON writes the findings and analyzer errors as one JSON tree, in
// go vet's -json format: {"package ID": {"analyzer": [diagnostics] or
// {"error": "..."}}}.
func printJSON(w io.Writer, diags []diagnostic, errs []analyzerError) error {
	tree := make(map[string]map[string]any)
	at := func(pkg string) map[string]any {
		if tree[pkg] == nil {
			tree[pkg] = make(map[string]any)
		}
		return tree[pkg]
	}
	for _, d := range diags {
		byAnalyzer := at(d.Package)
		list, _ := byAnalyzer[d.Analyzer].([]json.RawMessage)
		byAnalyzer[d.Analyzer] = append(list, d.Raw)
	}
	for _, e := range errs {
		at(e.Package)[e.Analyzer] = map[string]string{"error": e.Err}
	}
	data, err := json.MarshalIndent(tree, "", "\t")
	if err != nil {
		return err
	}
	_, err = w.Write(append(bytes.TrimSpace(data), '\n'))
	return err
}
