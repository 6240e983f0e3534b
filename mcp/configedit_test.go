package mcp

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// handFormatted is a config written by a person: four-space indents, its
// own key order, other keys around mcpServers.
const handFormatted = `{
    "model": "openai/gpt-5",
    "mcpServers": {
        "zeta": {"command": "z", "args": ["1"]},
        "alpha": {
            "url": "https://a.example/mcp"
        }
    },
    "permissions": {"allow": ["zeta:read"]}
}
`

func TestSetServerEntryAddsLastKeepingEveryOtherByte(t *testing.T) {
	out, err := SetServerEntry("c.json", []byte(handFormatted), "mid", []byte(`{"command":"m","args":["-v"]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `{
    "model": "openai/gpt-5",
    "mcpServers": {
        "zeta": {"command": "z", "args": ["1"]},
        "alpha": {
            "url": "https://a.example/mcp"
        },
        "mid": {
            "command": "m",
            "args": [
                "-v"
            ]
        }
    },
    "permissions": {"allow": ["zeta:read"]}
}
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestSetServerEntryReplacesAnEntryWhereItStands(t *testing.T) {
	out, err := SetServerEntry("c.json", []byte(handFormatted), "zeta", []byte(`{"command":"z2"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(handFormatted, `{"command": "z", "args": ["1"]}`, "{\n            \"command\": \"z2\"\n        }", 1)
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

func TestRemoveServerEntryTakesOnlyThatEntryAndItsComma(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"zeta", strings.Replace(handFormatted, "\"zeta\": {\"command\": \"z\", \"args\": [\"1\"]},\n        ", "", 1)},
		{"alpha", strings.Replace(handFormatted, ",\n        \"alpha\": {\n            \"url\": \"https://a.example/mcp\"\n        }", "", 1)},
	} {
		out, err := RemoveServerEntry("c.json", []byte(handFormatted), c.name)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != c.want {
			t.Errorf("removing %s: got\n%s\nwant\n%s", c.name, out, c.want)
		}
	}
	one := `{"mcpServers": {"only": {"command": "x"}}, "model": "a/b"}`
	out, err := RemoveServerEntry("c.json", []byte(one), "only")
	if err != nil || string(out) != `{"mcpServers": {}, "model": "a/b"}` {
		t.Errorf("removing the last entry: %s %v", out, err)
	}
	if _, err := RemoveServerEntry("c.json", []byte(one), "nope"); err == nil || !strings.Contains(err.Error(), "no such server") {
		t.Errorf("removing a missing entry must say so: %v", err)
	}
}

func TestSetServerEntryOnACompactFileStaysCompact(t *testing.T) {
	out, err := SetServerEntry("c.json", []byte(`{"mcpServers":{"a":{"command":"x"}}}`), "b", []byte(`{"url": "http://h/mcp"}`))
	if err != nil || string(out) != `{"mcpServers":{"a":{"command":"x"},"b":{"url":"http://h/mcp"}}}` {
		t.Errorf("got %s %v", out, err)
	}
}

func TestSetServerEntryStartsANewFileAndAddsMcpServersWhenMissing(t *testing.T) {
	out, err := SetServerEntry("c.json", nil, "a", []byte(`{"command":"x"}`))
	if err != nil || string(out) != "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n" {
		t.Errorf("new file: %q %v", out, err)
	}
	out, err = SetServerEntry("c.json", []byte("{\n  \"model\": \"a/b\"\n}\n"), "a", []byte(`{"command":"x"}`))
	if err != nil || string(out) != "{\n  \"model\": \"a/b\",\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\"\n    }\n  }\n}\n" {
		t.Errorf("no mcpServers: %q %v", out, err)
	}
}

func TestSetServerEntryRefusesAnEntryThatWouldNotLoad(t *testing.T) {
	_, err := SetServerEntry("c.json", []byte(handFormatted), "bad", []byte(`{"comand":"x"}`))
	if err == nil || !strings.Contains(err.Error(), "left as it was") || !strings.Contains(err.Error(), `did you mean "command"`) {
		t.Errorf("err = %v", err)
	}
}

func TestEditConfigFileWritesThroughASymlinkAndKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "howl.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte(handFormatted), 0o640)
	link := filepath.Join(dir, "mcp.json")
	symlinkOrSkip(t, real, link)
	err := EditConfigFile(link, func(old []byte) ([]byte, error) { return RemoveServerEntry(link, old, "alpha") })
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link must stay a link: %v", err)
	}
	data, _ := os.ReadFile(real)
	if strings.Contains(string(data), "alpha") || !strings.Contains(string(data), `"zeta"`) {
		t.Errorf("the edit must land in the real file: %s", data)
	}
	if st, _ := os.Stat(real); st.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640", st.Mode().Perm())
	}
}

func TestEditConfigFileLeavesTheOldFileWhenTheEditFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mcp.json")
	os.WriteFile(path, []byte(handFormatted), 0o600)
	boom := errors.New("boom")
	if err := EditConfigFile(path, func([]byte) ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	err := EditConfigFile(path, func(old []byte) ([]byte, error) {
		return SetServerEntry(path, old, "x", []byte(`{"command": "x", "url": "http://h/"}`))
	})
	if err == nil {
		t.Fatal("an entry that does not load must not be written")
	}
	if data, _ := os.ReadFile(path); !bytes.Equal(data, []byte(handFormatted)) {
		t.Errorf("the file changed:\n%s", data)
	}
}
