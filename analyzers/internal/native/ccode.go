package native

import (
	"go/ast"
	"go/token"
	"regexp"
	"strings"
)

// A CLine is one line of C code, with its comments blanked out: the rules
// read C code and cgo directives, never comments.
type CLine struct {
	Pos  token.Pos // the start of the line
	Text string
}

// PreambleLines returns the lines of a cgo preamble: the C code that the
// comment group holds once the Go comment markers are taken off, with the
// C comments in it blanked out, also those that span several lines.
func PreambleLines(group *ast.CommentGroup) []CLine {
	var (
		src    strings.Builder
		starts []token.Pos
	)
	for _, c := range group.List {
		body, pos := c.Text[2:], c.Pos()+2
		if strings.HasPrefix(c.Text, "/*") {
			body = strings.TrimSuffix(body, "*/")
		}
		for _, line := range strings.SplitAfter(body, "\n") {
			starts = append(starts, pos)
			src.WriteString(strings.TrimSuffix(line, "\n") + "\n")
			pos += token.Pos(len(line))
		}
	}
	lines := strings.Split(StripCComments(src.String()), "\n")
	out := make([]CLine, len(starts))
	for i, pos := range starts {
		out[i] = CLine{Pos: pos, Text: lines[i]}
	}
	return out
}

// FileLines returns the lines of a C, C++, header or assembly file, added
// to the file set so that findings can point into it, with the comments
// blanked out (C's, which the C preprocessor and Go's assembler share).
func FileLines(fset *token.FileSet, name string, data []byte) []CLine {
	tf := AddFile(fset, name, data)
	lines := strings.Split(StripCComments(string(data)), "\n")
	out := make([]CLine, 0, len(lines))
	for i, line := range lines {
		if i < tf.LineCount() {
			out = append(out, CLine{Pos: tf.LineStart(i + 1), Text: line})
		}
	}
	return out
}

// StripCComments returns C source with its /* */ and // comments replaced
// by spaces, keeping newlines (and so line numbers) and the contents of
// string and character literals.
func StripCComments(src string) string {
	b := []byte(src)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"' || b[i] == '\'':
			quote := b[i]
			for i++; i < len(b) && b[i] != quote && b[i] != '\n'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case b[i] == '/' && i+1 < len(b) && b[i+1] == '*':
			end := strings.Index(string(b[i+2:]), "*/")
			stop := len(b)
			if end >= 0 {
				stop = i + 2 + end + 2
			}
			for ; i < stop; i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			i--
		}
	}
	return string(b)
}

// A CFunc is a function that C code defines, with its body.
type CFunc struct {
	Name string
	Body string
}

var cFuncHead = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*\{`)

// CDefinitions returns the functions, macros, typedefs and tagged types
// that C code (without comments) defines, each with the text that defines
// it: a function's body, a macro's replacement, a typedef's declaration,
// a struct's members.
func CDefinitions(code string) []CFunc {
	var out []CFunc
	for _, m := range cFuncHead.FindAllStringSubmatchIndex(code, -1) {
		name := code[m[2]:m[3]]
		if isCKeyword(name) {
			continue
		}
		body, ok := braced(code[m[1]-1:])
		if ok {
			out = append(out, CFunc{Name: name, Body: body})
		}
	}
	for _, m := range cDefine.FindAllStringSubmatch(code, -1) {
		out = append(out, CFunc{Name: m[1], Body: m[2]})
	}
	for _, m := range cTypedef.FindAllStringSubmatch(code, -1) {
		out = append(out, CFunc{Name: m[2], Body: m[1]})
	}
	for _, m := range cTagged.FindAllStringSubmatchIndex(code, -1) {
		if body, ok := braced(code[m[1]-1:]); ok {
			out = append(out, CFunc{Name: code[m[2]:m[3]], Body: body})
		}
	}
	return out
}

var (
	cDefine  = regexp.MustCompile(`(?m)^\s*#\s*define\s+([A-Za-z_]\w*)(.*)$`)
	cTypedef = regexp.MustCompile(`\btypedef\b([^;]*?)\b([A-Za-z_]\w*)\s*;`)
	cTagged  = regexp.MustCompile(`\b(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{`)
)

// braced returns the text of the block that s starts with, "{" to its
// matching "}".
func braced(s string) (string, bool) {
	depth := 0
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[:i+1], true
			}
		}
	}
	return "", false
}

func isCKeyword(name string) bool {
	switch name {
	case "if", "for", "while", "switch", "return", "sizeof", "do", "else":
		return true
	}
	return false
}

var cCall = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*\(`)

// CCalls returns the names that C code calls, or uses like a call (a
// function-like macro).
func CCalls(code string) []string {
	var out []string
	for _, m := range cCall.FindAllStringSubmatch(code, -1) {
		if !isCKeyword(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}
