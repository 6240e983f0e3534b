package mcp

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tokenWriterKeys is how many distinct keys each token-writer process puts.
const tokenWriterKeys = 50

// writeTokensFixture is the "token-writer" fixture: a separate howl-like
// process that waits for its stdin to close (the start signal shared by
// every writer), then puts tokenWriterKeys keys of its own into the token
// file named by HOWL_TEST_TOKEN_FILE, one Put at a time.
func writeTokensFixture() int {
	_, _ = io.Copy(io.Discard, os.Stdin)
	s := NewTokenStore(os.Getenv("HOWL_TEST_TOKEN_FILE"))
	for i := range tokenWriterKeys {
		key := fmt.Sprintf("https://%s-%d.example/mcp", os.Getenv("HOWL_TEST_TOKEN_PREFIX"), i)
		if err := s.Put(key, StoredToken{AccessToken: key}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// TestTokenStoreKeepsEveryKeyWhenProcessesWriteAtOnce: eight real
// processes put 50 distinct keys each into one token file at the same
// time; every one of the 400 survives (without a lock across processes,
// read-modify-write races kept about half).
func TestTokenStoreKeepsEveryKeyWhenProcessesWriteAtOnce(t *testing.T) {
	const writers = 8
	path := filepath.Join(t.TempDir(), "config", "tokens.json")
	var cmds []*exec.Cmd
	var gates []io.WriteCloser
	for w := range writers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), fixtureEnv+"=token-writer", "HOWL_TEST_TOKEN_FILE="+path, fmt.Sprintf("HOWL_TEST_TOKEN_PREFIX=w%d", w))
		cmd.Stderr = os.Stderr
		gate, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, gates = append(cmds, cmd), append(gates, gate)
	}
	for _, g := range gates {
		g.Close() // every writer starts now
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("a writer failed: %v", err)
		}
	}
	s := NewTokenStore(path)
	missing := 0
	for w := range writers {
		for i := range tokenWriterKeys {
			key := fmt.Sprintf("https://w%d-%d.example/mcp", w, i)
			if tok, ok, err := s.Get(key); err != nil || !ok || tok.AccessToken != key {
				missing++
			}
		}
	}
	if missing > 0 {
		t.Fatalf("%d of %d keys were lost by writers racing on the token file", missing, writers*tokenWriterKeys)
	}
	if fi, err := os.Stat(path); err != nil || modesApply && fi.Mode().Perm() != TokenFileMode {
		t.Fatalf("token file after the race: %v %v", fi, err)
	}
}
