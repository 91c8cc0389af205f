package manifest

import (
	"os"
	"testing"

	"github.com/claimbridge/claimbridge/test/fuzztest"
)

// TestMain bounds how long the fuzzing engine minimises a new input (see
// package fuzztest).
func TestMain(m *testing.M) { os.Exit(fuzztest.Main(m)) }
