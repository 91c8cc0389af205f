package version

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestGet(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	stamped := &debug.BuildInfo{
		Main: debug.Module{Path: "github.com/claimbridge/claimbridge", Version: "v0.0.0-20261124170000-0123456789ab+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-11-24T17:00:00Z"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name   string
		linked string
		bi     *debug.BuildInfo
		want   Info
		line   string
	}{
		{"release build: the linker's version wins", "v0.4.0", stamped,
			Info{Version: "v0.4.0", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true, CommitTime: "2026-11-24T17:00:00Z", GoVersion: runtime.Version(), Platform: platform},
			"claimbridge v0.4.0 (revision 0123456789abcdef0123456789abcdef01234567, modified; " + runtime.Version() + " " + platform + ")"},
		{"release build without the v: the module's form", "0.6.0", nil,
			Info{Version: "v0.6.0", GoVersion: runtime.Version(), Platform: platform},
			"claimbridge v0.6.0 (" + runtime.Version() + " " + platform + ")"},
		{"release build (-buildvcs=false) and go install module@version print the same line", "v0.6.0", &debug.BuildInfo{Main: debug.Module{Path: "github.com/claimbridge/claimbridge", Version: "(devel)"}},
			Info{Version: "v0.6.0", GoVersion: runtime.Version(), Platform: platform},
			"claimbridge v0.6.0 (" + runtime.Version() + " " + platform + ")"},
		{"go build in a repository", "", stamped,
			Info{Version: "v0.0.0-20261124170000-0123456789ab+dirty", Revision: "0123456789abcdef0123456789abcdef01234567", Modified: true, CommitTime: "2026-11-24T17:00:00Z", GoVersion: runtime.Version(), Platform: platform},
			"claimbridge v0.0.0-20261124170000-0123456789ab+dirty (revision 0123456789abcdef0123456789abcdef01234567, modified; " + runtime.Version() + " " + platform + ")"},
		{"go install module@version: the module's version", "", &debug.BuildInfo{Main: debug.Module{Path: "github.com/claimbridge/claimbridge", Version: "v0.6.0", Sum: "h1:0123456789abcdefghijklmnopqrstuvwxyzABCDEFG="}},
			Info{Version: "v0.6.0", GoVersion: runtime.Version(), Platform: platform},
			"claimbridge v0.6.0 (" + runtime.Version() + " " + platform + ")"},
		{"go build without a repository", "", &debug.BuildInfo{Main: debug.Module{Path: "github.com/claimbridge/claimbridge", Version: "(devel)"}},
			Info{Version: Devel, GoVersion: runtime.Version(), Platform: platform},
			"claimbridge (devel) (" + runtime.Version() + " " + platform + ")"},
		{"no build information", "", nil,
			Info{Version: Devel, GoVersion: runtime.Version(), Platform: platform},
			"claimbridge (devel) (" + runtime.Version() + " " + platform + ")"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := get(tc.linked, tc.bi)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("get (-want +got):\n%s", diff)
			}
			if s := got.String(); s != tc.line {
				t.Errorf("String() = %q, want %q", s, tc.line)
			}
		})
	}
}
