package llm

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/howl-mcp/howl/mcp"
)

// PersistAllow adds rule ("server:tool") to the top-level
// "permissions.allow" of the person's own JSON config at path, keeping
// every other key and the file's mode. A symlinked config is written
// through the link, to the file it points at (the link stays a link). It
// writes a temporary file beside the real one and renames it over, so a
// failed write leaves the config as it was.
//
// Only the person's own config is ever written (mcp.Config.UserFile): a
// project's file is someone else's.
func PersistAllow(path, rule string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(real)
	if err != nil {
		return err
	}
	info, err := os.Stat(real)
	if err != nil {
		return err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return fmt.Errorf("%s is not a JSON object: %w", path, err)
	}
	if top == nil {
		top = map[string]json.RawMessage{}
	}
	perms := map[string]json.RawMessage{}
	if raw, ok := top["permissions"]; ok {
		if err := json.Unmarshal(raw, &perms); err != nil {
			return fmt.Errorf("%s: permissions is not an object: %w", path, err)
		}
	}
	var allow []string
	if raw, ok := perms["allow"]; ok {
		if err := json.Unmarshal(raw, &allow); err != nil {
			return fmt.Errorf("%s: permissions.allow is not a list of strings: %w", path, err)
		}
	}
	for _, a := range allow {
		if a == rule {
			return nil
		}
	}
	allow = append(allow, rule)
	if perms["allow"], err = json.Marshal(allow); err != nil {
		return err
	}
	if top["permissions"], err = json.Marshal(perms); err != nil {
		return err
	}
	out, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return err
	}
	return mcp.WriteFileAtomic(real, append(out, '\n'), info.Mode().Perm())
}
