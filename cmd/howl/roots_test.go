package main

import (
	"encoding/json"
	"os"
	"slices"
	"testing"

	"github.com/howl-mcp/howl/mcp"
)

func TestRootsAreTheWorkingDirectoryUnlessTheConfigListsThem(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		extra map[string]json.RawMessage
		want  []string
	}{
		{"no roots key: the working directory", nil, []string{wd}},
		{"listed", map[string]json.RawMessage{"roots": json.RawMessage(`["/srv/a","/srv/b"]`)}, []string{"/srv/a", "/srv/b"}},
		{"empty list: none (server-filesystem keeps its own)", map[string]json.RawMessage{"roots": json.RawMessage(`[]`)}, []string{}},
		{"malformed: none", map[string]json.RawMessage{"roots": json.RawMessage(`"/srv"`)}, nil},
	}
	for _, c := range cases {
		got := configRoots(&mcp.Config{Extra: c.extra})
		if !slices.Equal(got, c.want) || (c.want == nil) != (got == nil) {
			t.Errorf("%s: roots %q, want %q", c.name, got, c.want)
		}
	}
}
