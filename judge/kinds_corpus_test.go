//go:build corpus

package judge

import (
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/test/testcorpus"
)

// TestCheckKindCorpus judges every DeviceClass, ResourceSlice and
// DeviceTaintRule of the real-world corpus (see cli/corpus_test.go) for
// each release: a release that does not serve its version gives that one
// error, and the release judging its version does not find a field the
// version lacks (the corpus is what drivers published for those releases).
//
//	CLAIMBRIDGE_CORPUS=../shared/corpus/realworld go test -tags corpus ./judge/ -run Corpus
func TestCheckKindCorpus(t *testing.T) {
	judged := 0
	for _, file := range testcorpus.Files(t) {
		docs, err := manifest.ReadAll([]string{file}, nil)
		if err != nil {
			continue // not YAML: the commands' corpus tests cover it
		}
		for _, doc := range docs {
			version, kind := KindOf(doc.Object)
			if version == "" {
				continue
			}
			judged++
			for release := 26; release <= Newest(); release++ {
				errs, _ := CheckKind(doc.Object, withBetas(release), kind)
				if api.CreatedIn(kind, release) != version {
					if len(errs) != 1 || !strings.HasSuffix(errs[0], "its apiserver rejects this object") {
						t.Errorf("%s %s, 1.%d: %q, want one not-served error", testcorpus.Name(file), doc.Position(), release, errs)
					}
					continue
				}
				for _, e := range errs {
					if release == KindRelease(version, kind) && strings.Contains(e, "unknown field") {
						t.Errorf("%s %s, 1.%d: %s", testcorpus.Name(file), doc.Position(), release, e)
					}
				}
			}
		}
	}
	t.Logf("%d objects judged", judged)
}
