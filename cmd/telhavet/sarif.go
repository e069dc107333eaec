package main

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
)

// The SARIF 2.1.0 log that -sarif writes, for code-scanning services: one
// run of the tool "telhavet", a rule per analyzer that reported something
// (the Telha rules always), and a result per finding with its position
// relative to the workspace root (%SRCROOT%). A Telha finding's fix advice,
// the text after "outside the key authority; ", is also its result's
// "advice" property.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool                `json:"tool"`
	OriginalURIBaseID map[string]sarifLocation `json:"originalUriBaseIds"`
	Results           []sarifResult            `json:"results"`
	Invocations       []sarifInvocation        `json:"invocations"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name  string      `json:"name"`
	Rules []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	ShortDescription sarifText `json:"shortDescription"`
	FullDescription  sarifText `json:"fullDescription"`
	HelpURI          string    `json:"helpUri,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string            `json:"ruleId"`
	RuleIndex  int               `json:"ruleIndex"`
	Level      string            `json:"level"`
	Message    sarifText         `json:"message"`
	Locations  []sarifLocation   `json:"locations"`
	Properties map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	URI              string         `json:"uri,omitempty"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

// printSARIF writes the findings, sorted, as a SARIF 2.1.0 log, with the
// failures of the run as notifications. Paths are relative to root.
func printSARIF(w io.Writer, root string, diags []diagnostic, analyzers []*analysis.Analyzer, failures []string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "telhavet"}},
		OriginalURIBaseID: map[string]sarifLocation{
			"%SRCROOT%": {URI: fileURI(root) + "/"},
		},
		Results:     []sarifResult{},
		Invocations: []sarifInvocation{{ExecutionSuccessful: len(failures) == 0}},
	}
	index := make(map[string]int)
	addRule := func(name string) int {
		if i, ok := index[name]; ok {
			return i
		}
		rule := sarifRule{ID: name, ShortDescription: sarifText{Text: name}, FullDescription: sarifText{Text: name}}
		for _, a := range analyzers {
			if a.Name == name {
				short, _, _ := strings.Cut(a.Doc, "\n")
				rule.ShortDescription.Text = short
				rule.FullDescription.Text = a.Doc
				rule.HelpURI = a.URL
			}
		}
		index[name] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, rule)
		return index[name]
	}
	for _, name := range telhaRules() {
		addRule(name)
	}
	for _, d := range diags {
		art := sarifArtifact{URI: fileURI(d.file)}
		if rel, err := filepath.Rel(root, d.file); err == nil && !strings.HasPrefix(rel, "..") {
			art = sarifArtifact{URI: (&url.URL{Path: filepath.ToSlash(rel)}).String(), URIBaseID: "%SRCROOT%"}
		}
		res := sarifResult{
			RuleID:    d.Analyzer,
			RuleIndex: addRule(d.Analyzer),
			Level:     "error",
			Message:   sarifText{Text: d.Message},
			Locations: []sarifLocation{{PhysicalLocation: &sarifPhysical{
				ArtifactLocation: art,
				Region:           sarifRegion{StartLine: max(d.line, 1), StartColumn: d.col},
			}}},
		}
		if _, advice, ok := strings.Cut(d.Message, "outside the key authority; "); ok && slices.Contains(telhaRules(), d.Analyzer) {
			res.Properties = map[string]string{"advice": advice}
		}
		run.Results = append(run.Results, res)
	}
	for _, f := range failures {
		run.Invocations[0].Notifications = append(run.Invocations[0].Notifications,
			sarifNotification{Level: "error", Message: sarifText{Text: f}})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
		Runs:    []sarifRun{run},
	})
}

// fileURI returns the file URI of an absolute path.
func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}
