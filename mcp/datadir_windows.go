package mcp

import (
	"fmt"
	"os"
	"path/filepath"
)

// defaultDataDir is %AppData%\howl, beside the config and the tokens: the
// user's own profile, whose ACLs keep other users out (Windows has no
// 0700). The cache is apart, in %LocalAppData%\howl (os.UserCacheDir).
func defaultDataDir() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no profile directory for howl's data (%v): set HOWL_DATA_DIR to a directory of yours", err)
	}
	return filepath.Join(d, "howl"), nil
}
