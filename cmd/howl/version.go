package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set by release builds (GoReleaser) with
// -ldflags "-X main.version=...". Otherwise the build info says it: the
// module version of `go install ...@v1.2.3`, or Go's pseudo-version of the
// commit a checkout was built from.
var version = ""

// buildVersion is howl's version in one word, as servers are told it.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return moduleVersion(bi, version)
}

func moduleVersion(bi *debug.BuildInfo, stamped string) string {
	if stamped != "" {
		return stamped
	}
	if bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// versionLine is what `howl --version` prints after "howl version ": the version,
// the VCS revision it was built from with its time, whether the tree had
// changes not committed ("modified") or not ("clean"), and the Go version
// and platform. A build without VCS information (`go install ...@v1.2.3`
// builds from the module zip) says so.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return describeBuild(bi, version, runtime.GOOS+"/"+runtime.GOARCH)
}

func describeBuild(bi *debug.BuildInfo, stamped, platform string) string {
	v := moduleVersion(bi, stamped)
	goVersion := runtime.Version()
	settings := map[string]string{}
	if bi != nil {
		goVersion = bi.GoVersion
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
	}
	var vcs []string
	if rev := settings["vcs.revision"]; rev != "" {
		vcs = append(vcs, "revision "+rev)
		if t := settings["vcs.time"]; t != "" {
			vcs = append(vcs, t)
		}
		switch settings["vcs.modified"] {
		case "true":
			vcs = append(vcs, "modified")
		case "false":
			vcs = append(vcs, "clean")
		}
	} else {
		vcs = append(vcs, "no VCS information")
	}
	return fmt.Sprintf("%s (%s) %s %s", v, strings.Join(vcs, ", "), goVersion, platform)
}
