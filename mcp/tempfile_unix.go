//go:build unix

package mcp

import "os"

// createUnlinkedTemp creates a temp file in dir (named from pattern as
// os.CreateTemp names it, mode 0600) that no name outlives: here it is
// unlinked before it is returned, so the open file is all there is and it
// is gone when closed, or when howl ends however it ends (killed too).
func createUnlinkedTemp(dir, pattern string) (*os.File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
