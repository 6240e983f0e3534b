package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// maxFunctionName is the providers' limit on a function name
// (^[a-zA-Z0-9_-]{1,64}$); the longest meta-function prefix is
// "mcp_describe_" (13 bytes), which leaves 51 for the server suffix.
const (
	maxFunctionName = 64
	maxSuffix       = maxFunctionName - len("mcp_describe_")
)

// FunctionSuffix maps a server name to the suffix of its meta-function
// names. A name already made of [a-zA-Z0-9_-] and short enough is used as
// is. Any other name is sanitized (other characters become _) and gets an
// 8-hex-digit hash of the original, so the suffix is stable across runs and
// two names that sanitize alike ("my.srv" and "my srv") stay distinct. A
// name that already ends like a hashed suffix ("caf_1a2b3c4d") is hashed
// too: used as is, a project's server could take the suffix of the
// person's own "café" and its calls.
func FunctionSuffix(server string) string {
	clean := !looksHashed(server)
	for i := 0; clean && i < len(server); i++ {
		clean = functionNameByte(server[i])
	}
	if clean && server != "" && len(server) <= maxSuffix {
		return server
	}
	var b strings.Builder
	for i := 0; i < len(server); i++ {
		c := server[i]
		if functionNameByte(c) {
			b.WriteByte(c)
		} else if c < 0x80 || c >= 0xC0 { // one _ per rune, not per byte
			b.WriteByte('_')
		}
	}
	sum := sha256.Sum256([]byte(server))
	hash := hex.EncodeToString(sum[:4])
	base := strings.Trim(b.String(), "_")
	if max := maxSuffix - len(hash) - 1; len(base) > max {
		base = base[:max]
	}
	if base == "" {
		return "s_" + hash
	}
	return base + "_" + hash
}

// looksHashed reports whether s ends as FunctionSuffix's hashed suffixes
// do: "_" and 8 lowercase hex digits.
func looksHashed(s string) bool {
	if len(s) < 9 || s[len(s)-9] != '_' {
		return false
	}
	for _, c := range []byte(s[len(s)-8:]) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func functionNameByte(c byte) bool {
	return c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
