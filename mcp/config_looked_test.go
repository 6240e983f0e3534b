package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// With no config file, the demo runs and the config says where howl
// looked, the user's own file first: the one a newcomer creates.
func TestTheDemoConfigSaysWhereHowlLooked(t *testing.T) {
	dir := t.TempDir()
	work, user := filepath.Join(dir, "work"), filepath.Join(dir, "user")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(LoadOptions{WorkDir: work, UserConfigDir: user, Getenv: env(nil), Demo: ServerConfig{Name: "demo", Command: "howl"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(user, "howl", "mcp.json"), filepath.Join(work, ".mcp.json")}
	if len(cfg.Looked) != 2 || cfg.Looked[0] != want[0] || cfg.Looked[1] != want[1] {
		t.Errorf("Looked = %q, want %q", cfg.Looked, want)
	}
	if err := os.WriteFile(filepath.Join(work, ".mcp.json"), []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := LoadConfig(LoadOptions{WorkDir: work, UserConfigDir: user, Getenv: env(nil), TrustProject: true}); err != nil || len(cfg.Looked) != 0 {
		t.Errorf("with a config file, Looked = %q (%v): it is for the demo only", cfg.Looked, err)
	}
}
