//go:build windows

package main

import "errors"

// sessionDir: sessions are not offered on Windows. A session is guarded by
// a Unix socket in a directory only its owner may enter; a named pipe would
// need its own security descriptor (ACL) checked and set, which howl does
// not do yet. Run the verbs without --session.
func sessionDir() (string, error) {
	return "", errors.New("howl serve-session and --session are not supported on Windows: a session is guarded by a directory only its owner may enter (a Unix socket under the runtime dir), and howl does not yet set and check a named pipe's ACL to the same effect; run the verbs without --session")
}
