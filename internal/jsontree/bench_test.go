package jsontree

import (
	"os"
	"path/filepath"
	"testing"
)

// benchDocs are a v1alpha3 claim and the v1alpha1 claim conversion makes of
// it (its restore annotations are long strings full of quotes).
func benchDocs(b *testing.B) map[string][]byte {
	docs := map[string][]byte{}
	for name, file := range map[string]string{
		"claim-v1alpha3":           filepath.Join("..", "..", "webhook", "testdata", "claim-v1alpha3.json"),
		"converted-v1alpha3-to-v1": filepath.Join("testdata", "converted-v1alpha3-to-v1alpha1.json"),
	} {
		data, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		docs[name] = data
	}
	return docs
}

func BenchmarkUnmarshal(b *testing.B) {
	for name, data := range benchDocs(b) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Unmarshal(data, 100); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkAppend(b *testing.B) {
	for name, data := range benchDocs(b) {
		v, err := Unmarshal(data, 100)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			buf := make([]byte, 0, 2*len(data))
			for b.Loop() {
				if buf, err = Append(buf[:0], v, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
