package render

import "strings"

// mimeExtensions is the fixed allowlist of spill file extensions. The MIME
// type is server-controlled, so an extension is never derived from it by
// substring: a type not listed here spills as ".bin".
var mimeExtensions = map[string]string{
	"image/png":                   "png",
	"image/apng":                  "apng",
	"image/jpeg":                  "jpg",
	"image/jpg":                   "jpg",
	"image/pjpeg":                 "jpg",
	"image/gif":                   "gif",
	"image/webp":                  "webp",
	"image/svg+xml":               "svg",
	"image/bmp":                   "bmp",
	"image/tiff":                  "tiff",
	"image/avif":                  "avif",
	"image/heic":                  "heic",
	"image/x-icon":                "ico",
	"image/vnd.microsoft.icon":    "ico",
	"application/pdf":             "pdf",
	"audio/wav":                   "wav",
	"audio/wave":                  "wav",
	"audio/x-wav":                 "wav",
	"audio/vnd.wave":              "wav",
	"audio/mpeg":                  "mp3",
	"audio/mp3":                   "mp3",
	"audio/ogg":                   "ogg",
	"audio/opus":                  "opus",
	"audio/flac":                  "flac",
	"audio/x-flac":                "flac",
	"audio/aac":                   "aac",
	"audio/mp4":                   "m4a",
	"audio/webm":                  "weba",
	"video/mp4":                   "mp4",
	"video/webm":                  "webm",
	"video/ogg":                   "ogv",
	"video/quicktime":             "mov",
	"application/zip":             "zip",
	"application/gzip":            "gz",
	"application/x-gzip":          "gz",
	"application/x-tar":           "tar",
	"application/x-bzip2":         "bz2",
	"application/x-xz":            "xz",
	"application/zstd":            "zst",
	"application/x-7z-compressed": "7z",
	"application/json":            "json",
	"application/xml":             "xml",
	"text/xml":                    "xml",
	"text/plain":                  "txt",
	"text/html":                   "html",
	"text/css":                    "css",
	"text/csv":                    "csv",
	"text/markdown":               "md",
	"text/javascript":             "js",
	"application/javascript":      "js",
	"application/yaml":            "yaml",
	"application/x-yaml":          "yaml",
	"application/wasm":            "wasm",
	"application/vnd.sqlite3":     "sqlite",
	"application/x-sqlite3":       "sqlite",
	"application/octet-stream":    "bin",
	"application/rtf":             "rtf",
	"application/epub+zip":        "epub",
	"application/msword":          "doc",
	"application/vnd.ms-excel":    "xls",
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   "docx",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "xlsx",
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
	"font/ttf":   "ttf",
	"font/otf":   "otf",
	"font/woff":  "woff",
	"font/woff2": "woff2",
}

// mimeExtension returns the spill file extension for a claimed MIME type:
// parameters (";charset=...") and surrounding spaces are dropped, case is
// ignored, and anything not in the allowlist, or not matching [a-z0-9]{1,8},
// becomes "bin".
func mimeExtension(mimeType string) string {
	if i := strings.IndexByte(mimeType, ';'); i >= 0 {
		mimeType = mimeType[:i]
	}
	mimeType = strings.TrimSpace(mimeType)
	if len(mimeType) > maxMimeLookup {
		return "bin"
	}
	ext, ok := mimeExtensions[asciiLower(mimeType)]
	if !ok || !safeExtension(ext) {
		return "bin"
	}
	return ext
}

// maxMimeLookup is longer than any allowlisted type; longer input is "bin"
// without further work.
const maxMimeLookup = 128

// asciiLower folds ASCII letters only, so no Unicode case mapping (such as
// the Kelvin sign folding to "k") can turn a crafted type into a listed one.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func safeExtension(ext string) bool {
	if len(ext) < 1 || len(ext) > 8 {
		return false
	}
	for i := 0; i < len(ext); i++ {
		if c := ext[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}
