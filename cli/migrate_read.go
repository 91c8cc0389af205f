package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
	"github.com/claimbridge/claimbridge/migrate"
	"github.com/claimbridge/claimbridge/report"
)

// storedDocuments are the objects of migrate's input as compact JSON, to be
// decoded again one at a time: a claim needs the 1.30 parameters and classes
// of the whole input, which may come after it (kubectl get lists claims
// before their parameters), and an object held as JSON is about a fifth of
// the object decoded.
type storedDocuments struct {
	docs []manifest.Document // without their Object
	ends []int               // where each document's JSON ends in data
	data bytes.Buffer
}

func (d *storedDocuments) add(doc manifest.Document) error {
	enc := json.NewEncoder(&d.data)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc.Object); err != nil {
		return fmt.Errorf("%s: %w", doc.Position(), err)
	}
	doc.Object = nil
	d.docs, d.ends = append(d.docs, doc), append(d.ends, d.data.Len())
	return nil
}

// all decodes the documents again, in order: each as it was read (objects
// read from YAML or JSON hold only what JSON holds, numbers as
// json.Number, so the round trip is exact).
func (d *storedDocuments) all() iter.Seq2[manifest.Document, error] {
	return func(yield func(manifest.Document, error) bool) {
		start := 0
		for i, doc := range d.docs {
			err := api.DecodeJSON(d.data.Bytes()[start:d.ends[i]], &doc.Object)
			start = d.ends[i]
			if !yield(doc, err) || err != nil {
				return
			}
		}
	}
}

// readForMigrate reads migrate's input: every object, stored, and the index
// of its 1.30 parameters and classes. The parameter kinds are read (claims
// translated from them) or rewritten, so a malformed one is refused, as a
// malformed claim: r holds such refusals (said once the whole input has
// been read: a document that cannot be read, err, is then all that is said).
// With recursive, directories are read with their subdirectories (-R).
func readForMigrate(sources []string, recursive bool, s streams, r *report.Report) (docs *storedDocuments, idx *migrate.Index, err error) {
	docs, idx = &storedDocuments{}, &migrate.Index{}
	visit := func(doc manifest.Document) error {
		defer documentDone()
		if err := conversion.CheckParametersShape(doc.Object); err != nil {
			r.Add(doc, refusedFor(err))
		} else {
			idx.Add(doc.Object) // keeps only the kinds it indexes
		}
		return docs.add(doc)
	}
	if err := manifest.EachIn(sources, recursive, s.in, visit); err != nil {
		return nil, nil, err
	}
	return docs, idx, nil
}
