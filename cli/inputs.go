package cli

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/report"
)

// addFilenameFlags adds -f and -R, as kubectl has them.
func addFilenameFlags(cmd *cobra.Command, filenames *[]string, recursive *bool) {
	cmd.Flags().StringArrayVarP(filenames, "filename", "f", nil, "file, directory or - for standard input (repeatable, required)")
	cmd.Flags().BoolVarP(recursive, "recursive", "R", false, "read the directories of -f with their subdirectories")
}

// deprecated is the warning on obj, judged by or written for release minor,
// when that release serves obj's resource.k8s.io version as deprecated;
// none for nil (an object not written).
func deprecated(obj map[string]interface{}, c api.Cluster) []report.Finding {
	_, group, version, kind, _ := api.TypeOf(obj)
	if msg := c.Deprecation(version, kind); msg != "" && group == api.UpstreamGroup {
		return []report.Finding{about(obj, report.Warning, msg)}
	}
	return nil
}

// sourcesSeen records the sources (files, standard input) that gave at
// least one object.
type sourcesSeen map[string]bool

func (s sourcesSeen) add(doc manifest.Document) { s[doc.Source] = true }

// noObjects is the error for the first -f argument that gave no object (an
// empty file, a file of comments, a directory of such files): whatever the
// user meant to convert, migrate or validate is not there. It is nil when
// every argument gave one.
func noObjects(filenames []string, seen sourcesSeen) error {
	for _, f := range filenames {
		// s is f, or a file under the directory f (also "."); "-" only itself.
		from := func(s string) bool {
			rel, err := filepath.Rel(f, s)
			return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
		}
		if !slices.ContainsFunc(slices.Collect(maps.Keys(seen)), from) {
			return fmt.Errorf("no objects in %s", manifest.DisplayName(f))
		}
	}
	return nil
}
