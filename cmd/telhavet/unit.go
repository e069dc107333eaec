package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"telha.dev/analyzers/inventory"
)

// unitArgs returns the arguments with which the unit checker analyzes a
// package for go vet. Driven by telhavet (with -telhainventory.report), a
// package of a workspace module that go vet analyzes only for the facts
// its importers need (VetxOnly) is analyzed in full instead, and its
// findings are written out as for any package: go vet caches the result
// of a package without telling which way it was analyzed, so a package
// first analyzed as a dependency would otherwise replay no findings when
// later analyzed in its own right, and the driver learns in one go vet run
// what the packages that ./... skips (testdata, "_" directories) hold when
// real code imports them. Packages of the standard library and of modules
// from the module cache (with a version) stay analyzed for facts only.
func unitArgs(args []string) []string {
	if len(args) == 0 || !slices.Contains(args, "-"+inventory.Name+".report") {
		return args
	}
	name := args[len(args)-1]
	data, err := os.ReadFile(name)
	if err != nil {
		return args // the unit checker reports it
	}
	var cfg map[string]any
	if json.Unmarshal(data, &cfg) != nil {
		return args
	}
	vetxOnly, _ := cfg["VetxOnly"].(bool)
	modulePath, _ := cfg["ModulePath"].(string)
	moduleVersion, _ := cfg["ModuleVersion"].(string)
	if !vetxOnly || modulePath == "" || moduleVersion != "" {
		return args
	}
	cfg["VetxOnly"] = false
	data, err = json.Marshal(cfg)
	if err != nil {
		return args
	}
	full := filepath.Join(filepath.Dir(name), strings.TrimSuffix(filepath.Base(name), ".cfg")+".full.cfg")
	if os.WriteFile(full, data, 0o644) != nil {
		return args
	}
	return append(slices.Clip(args[:len(args)-1]), full)
}
