package main

import (
	"regexp"
	"strings"
)

// One scope notation everywhere: the CLI reads and prints a tenant scope
// as TENANT:ORG. The packages below render a scope as TENANT/ORG in their
// errors and progress lines; oneNotation rewrites those as the CLI prints
// them, and -scope takes TENANT/ORG too, as pasted from such a message.

// slashScope is a scope as TENANT/ORG: two UUIDs and a slash.
var slashScope = regexp.MustCompile(`\b([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\b`)

// oneNotation rewrites every TENANT/ORG scope in s as TENANT:ORG.
func oneNotation(s string) string {
	if !strings.Contains(s, "/") {
		return s
	}
	return slashScope.ReplaceAllString(s, "$1:$2")
}

// scopeArg is -scope as the CLI resolves it: TENANT/ORG read as
// TENANT:ORG; a name or TENANT:ORG as given.
func scopeArg(s string) string {
	if m := slashScope.FindStringSubmatch(s); m != nil && m[0] == s {
		return m[1] + ":" + m[2]
	}
	return s
}
