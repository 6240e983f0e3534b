package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// TokenLockTimeout bounds how long a token write waits for another howl
// process holding the token file's lock.
const TokenLockTimeout = 30 * time.Second

// lockFile takes the exclusive cross-process lock of path: a lock file
// beside it (path + ".lock", created 0600; its directory 0700). Waiting
// for another holder is bounded by timeout; unlock releases the lock.
func lockFile(path string, timeout time.Duration) (unlock func(), err error) {
	name := path + ".lock"
	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return nil, err
	}
	f, err := openLockFile(name)
	if err != nil {
		return nil, fmt.Errorf("opening the lock file %s: %w", name, err)
	}
	deadline := time.Now().Add(timeout)
	for wait := time.Millisecond; ; wait = min(2*wait, 20*time.Millisecond) {
		ok, err := tryLockFile(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", name, err)
		}
		if ok {
			return func() { f.Close() }, nil // closing releases the lock
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another howl process has held %s for over %s (TokenLockTimeout): let it finish, or end it, then try again", name, timeout)
		}
		time.Sleep(wait)
	}
}
