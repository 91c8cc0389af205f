//go:build corpus

package manifest

import (
	"os"
	"testing"

	"github.com/claimbridge/claimbridge/test/testcorpus"
)

// The tests of this file read the real-world corpus, manifests that DRA
// drivers, Kubernetes and its documentation published (not kept in this
// repository), from the directory named by CLAIMBRIDGE_CORPUS:
//
//	CLAIMBRIDGE_CORPUS=../shared/corpus/realworld go test -tags corpus ./manifest/ -run Corpus
//
// They fail when it is not set.

// TestCorpusParseEach: for every file of the corpus, ParseEach gives the
// objects (or the error) that reading each document whole gives, as
// FuzzParseEach checks of its seeds.
func TestCorpusParseEach(t *testing.T) {
	for _, file := range testcorpus.Files(t) {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			checkParseEach(t, data)
		})
	}
}

// TestCorpusListByItems: every YAML document of the corpus that is a List
// frame is, read item by item, what it is read whole, as FuzzListByItems
// checks of its seeds.
func TestCorpusListByItems(t *testing.T) {
	lists := 0
	for _, file := range testcorpus.Files(t) {
		t.Run(testcorpus.Name(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range split(data) {
				if c.err == nil && !c.json && isListFrame(c.data) {
					lists++
					checkListByItems(t, c.data, nil)
				}
			}
		})
	}
	t.Logf("%d List documents in the corpus", lists)
}
