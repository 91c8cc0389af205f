package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// TestDocsReleaseTables: the manual's releases are api's tables: the table
// of --to in docs/cli.md, the range the README names, and the versions a
// DeviceTaintRule is written in. A release added to the tables fails here
// until the manual names it.
func TestDocsReleaseTables(t *testing.T) {
	rs := api.Releases
	want := []string{"| `--to` | writes | judged by the rules of |", "| --- | --- | --- |"}
	for i := 0; i < len(rs); {
		j := i
		for j+1 < len(rs) && rs[j+1].Version == rs[i].Version {
			j++
		}
		row := fmt.Sprintf("| `%s` | `%s` | %s |", rs[i], rs[i].Version, rs[i])
		if j > i {
			row = fmt.Sprintf("| `%s` … `%s` | `%s` | that release |", rs[i], rs[j], rs[i].Version)
		}
		want = append(want, row)
		i = j + 1
	}
	last, next, _ := api.ParseNext("")
	want = append(want, fmt.Sprintf("| `1.%d` | `%s` | %s, and the versions upstream stops serving in 1.%d |", next, last.Version, last, next))
	older := api.ConversionVersions[:len(api.ConversionVersions)-1]
	var names, judges []string
	for _, v := range older {
		r, _ := api.Judge(v)
		names, judges = append(names, "`"+v+"`"), append(judges, r.String())
	}
	newest := api.ConversionVersions[len(api.ConversionVersions)-1]
	judge, _ := api.Judge(newest)
	want = append(want,
		fmt.Sprintf("| %s | that version | the newest release serving it (%s) |", strings.Join(names, ", "), strings.Join(judges, ", ")),
		fmt.Sprintf("| `%s` | `%s` | %s |", newest, newest, judge))

	lines := strings.Split(readDoc(t, "docs/cli.md"), "\n")
	at := slices.Index(lines, want[0])
	if at < 0 {
		t.Fatalf("docs/cli.md has no table %q", want[0])
	}
	got := lines[at:min(len(lines), at+len(want))]
	if !slices.Equal(got, want) {
		t.Errorf("docs/cli.md's table of --to is not api.Releases:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	span := fmt.Sprintf("(`%s` … `%s`)", rs[0], rs[len(rs)-1])
	if !strings.Contains(readDoc(t, "README.md"), span) {
		t.Errorf("README.md does not name the releases of api.Releases as %s", span)
	}

	// The versions a DeviceTaintRule is created in, by release.
	var runs []string
	for i := 0; i < len(rs); {
		version, j := api.CreatedIn("DeviceTaintRule", rs[i].Minor), i
		for j+1 < len(rs) && api.CreatedIn("DeviceTaintRule", rs[j+1].Minor) == version {
			j++
		}
		if version != "" {
			run := version + " on " + rs[i].String()
			if j > i {
				run += "–" + rs[j].String()
			}
			runs = append(runs, run)
		}
		i = j + 1
	}
	taintRule := strings.Join(runs, ", ") + ")"
	for _, doc := range []string{"docs/cli.md", "docs/conversion.md"} {
		if !strings.Contains(readDoc(t, doc), taintRule) {
			t.Errorf("%s does not name the versions of a DeviceTaintRule as api.CreatedIn does: …%s", doc, taintRule)
		}
	}
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
