package conversion_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// digestFileEnv names the file TestConversionIsDeterministic, run in a child
// process, writes its digest to.
const digestFileEnv = "CLAIMBRIDGE_CONVERSION_DIGEST_FILE"

// TestConversionIsDeterministic: the same object converts to the same bytes
// (restore annotations and warnings included) however often it is
// converted, with Convert, ConvertShared and ConvertWithWarnings, and in
// another process with another GOMAXPROCS. Go randomises the order of every
// map iteration, so an order taken from a map (annotations, unknown fields,
// parameters) would show as differing bytes. kube-apiserver converts on
// every read and write, and several webhook replicas answer: bytes that
// differed for the same object would show to watch caches and clients as
// changes nobody made, and make unchanged updates write.
func TestConversionIsDeterministic(t *testing.T) {
	corpus := append(servedCorpus(t), manyKeysCorpus(t, 100)...)
	corpus = append(corpus, fileCorpus(t, "testdata/before-defaults/*.yaml", "testdata/before-defaults/golden/*.yaml", "../test/manifests/exports/*/*.yaml", "../test/manifests/exports/*/*.json")...)
	var digest strings.Builder
	for _, c := range corpus {
		group, _, _, err := conversion.Identify(c.obj)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		targets := api.ServedVersions
		if group == api.UpstreamGroup {
			targets = api.ConversionVersions
		}
		for _, to := range targets {
			first, ok := convertedBytes(t, c.obj, to, 0)
			if !ok {
				fmt.Fprintf(&digest, "%s to %s: refused\n", c.name, to)
				continue
			}
			for i := 1; i < 9; i++ {
				if again, _ := convertedBytes(t, c.obj, to, i); !bytes.Equal(again, first) {
					t.Fatalf("%s to %s: conversion %d differs from the first:\n%s\n%s", c.name, to, i, first, again)
				}
			}
			fmt.Fprintf(&digest, "%s to %s: %x\n", c.name, to, sha256.Sum256(first))
		}
	}
	if path := os.Getenv(digestFileEnv); path != "" {
		if err := os.WriteFile(path, []byte(digest.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}

	// The same conversions in another process, on one CPU.
	path := filepath.Join(t.TempDir(), "digest")
	cmd := exec.Command(os.Args[0], "-test.run=^TestConversionIsDeterministic$", "-test.count=1")
	cmd.Env = append(os.Environ(), digestFileEnv+"="+path, "GOMAXPROCS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child process: %v\n%s", err, out)
	}
	other, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, got := strings.Split(digest.String(), "\n"), strings.Split(string(other), "\n")
	if len(want) != len(got) {
		t.Fatalf("the child process converted %d objects, this one %d", len(got), len(want))
	}
	differ := 0
	for i := range want {
		if want[i] != got[i] {
			if differ++; differ > 5 {
				t.Fatalf("and more")
			}
			t.Errorf("another process converts differently:\n this %s\nother %s", want[i], got[i])
		}
	}
}

// convertedBytes returns the JSON of obj converted to version and of the
// warnings, by the entry point i selects, and false when it is refused.
func convertedBytes(t *testing.T, obj map[string]interface{}, to string, i int) ([]byte, bool) {
	t.Helper()
	var out map[string]interface{}
	var warnings []conversion.Warning
	var err error
	switch i % 3 {
	case 0:
		out, warnings, err = conversion.ConvertWithWarnings(obj, to)
	case 1:
		out, err = conversion.Convert(obj, to)
		if err == nil {
			_, warnings, err = conversion.ConvertWithWarnings(obj, to)
		}
	default:
		out, err = conversion.ConvertShared(obj, to)
		if err == nil {
			_, warnings, err = conversion.ConvertWithWarnings(obj, to)
		}
	}
	if err != nil {
		return nil, false
	}
	data, err := json.Marshal([]interface{}{out, warnings})
	if err != nil {
		t.Fatal(err)
	}
	return data, true
}
