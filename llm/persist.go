package llm

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/howl-mcp/howl/mcp"
)

// PersistAllow adds rule ("server:tool") to the top-level
// "permissions.allow" of the person's own JSON config at path, keeping
// every other key, their order and formatting, and the file's mode
// (mcp.EditConfigFile: a symlinked config is written through the link, to
// the file it points at; a temporary file is renamed over it, so a failed
// write leaves the config as it was).
//
// Only the person's own config is ever written (mcp.Config.UserFile): a
// project's file is someone else's.
func PersistAllow(path, rule string) error {
	return mcp.EditConfigFile(path, func(data []byte) ([]byte, error) {
		var top map[string]json.RawMessage
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, fmt.Errorf("%s is not a JSON object: %w", path, err)
		}
		perms := map[string]json.RawMessage{}
		if raw, ok := top["permissions"]; ok {
			if err := json.Unmarshal(raw, &perms); err != nil {
				return nil, fmt.Errorf("%s: permissions is not an object: %w", path, err)
			}
		}
		var allow []string
		if raw, ok := perms["allow"]; ok {
			if err := json.Unmarshal(raw, &allow); err != nil {
				return nil, fmt.Errorf("%s: permissions.allow is not a list of strings: %w", path, err)
			}
		}
		if slices.Contains(allow, rule) {
			return data, nil
		}
		allow = append(allow, rule)
		var err error
		if perms["allow"], err = json.Marshal(allow); err != nil {
			return nil, err
		}
		value, err := json.Marshal(perms)
		if err != nil {
			return nil, err
		}
		return mcp.SetTopLevel(path, data, "permissions", value)
	})
}
