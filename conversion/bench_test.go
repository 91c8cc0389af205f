package conversion_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/manifest"
)

// BenchmarkConvert converts each example claim to every other version: the
// per-object work of the conversion webhook, without JSON decoding.
func BenchmarkConvert(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("..", "examples", "claim-*.yaml"))
	if len(files) == 0 {
		b.Fatal("no examples")
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		docs, err := manifest.Parse(file, data)
		if err != nil {
			b.Fatal(err)
		}
		obj := docs[0].Object
		_, from, _, _ := conversion.Identify(obj)
		for _, to := range api.ServedVersions {
			if to == from {
				continue
			}
			b.Run(from+"-to-"+to, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := conversion.Convert(obj, to); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
