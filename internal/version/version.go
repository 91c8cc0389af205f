// Package version says which build of claimbridge is running: the version
// a release build sets with the linker, else the one the go command
// stamped from the module or the repository, and the commit it was built
// from.
package version

import (
	"cmp"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// version is set by release builds (hack/release.sh VERSION=…, the
// Makefile's VERSION):
//
//	-ldflags "-X github.com/claimbridge/claimbridge/internal/version.version=v0.6.0"
//
// A version given without its "v" (0.6.0) is reported with it, as the go
// command reports a module's version, so that a release build and
// `go install …@v0.6.0` print the same string.
var version string

// Devel is the version of a build that has none: built without the linker
// flag from outside a repository (a source tree without .git, or
// -buildvcs=false), or by go run.
const Devel = "(devel)"

// Info describes the running build.
type Info struct {
	// Version is the release version, else the main module's version as
	// the go command stamped it (a tag, or a pseudo-version from the
	// repository's commit; "+dirty" with local changes), else Devel.
	Version string `json:"version"`
	// Revision is the commit the binary was built from, when the go
	// command could read the repository; Modified says whether the tree had
	// changes not committed.
	Revision string `json:"revision,omitempty"`
	Modified bool   `json:"modified,omitempty"`
	// CommitTime is the revision's commit time (RFC 3339).
	CommitTime string `json:"commitTime,omitempty"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

// Get returns the running build's Info.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return get(version, bi)
}

func get(linked string, bi *debug.BuildInfo) Info {
	linked = strings.TrimSpace(linked)
	if linked != "" && linked[0] >= '0' && linked[0] <= '9' {
		linked = "v" + linked
	}
	info := Info{Version: linked, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi != nil {
		info.Version = cmp.Or(info.Version, bi.Main.Version)
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Revision = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			case "vcs.time":
				info.CommitTime = s.Value
			}
		}
	}
	info.Version = cmp.Or(info.Version, Devel)
	return info
}

// String is the one-line form `claimbridge version` prints:
// "claimbridge v0.4.0 (revision 0123abc, modified; go1.26.8 linux/amd64)".
func (i Info) String() string {
	var details []string
	if i.Revision != "" {
		rev := "revision " + i.Revision
		if i.Modified {
			rev += ", modified"
		}
		details = append(details, rev)
	}
	details = append(details, i.GoVersion+" "+i.Platform)
	return fmt.Sprintf("claimbridge %s (%s)", i.Version, strings.Join(details, "; "))
}
