// Package fuzztest bounds the fuzzing engine's minimisation. Each package
// with a fuzz target calls Main from its TestMain.
//
// The engine minimises each input that reaches new code before it fuzzes
// on: a search of the input's byte ranges that runs the target about n²/2
// times for n bytes (golang/go#48820). Under go test's default of 60 s
// (-fuzzminimizetime), a worker whose runs cost a millisecond spends the
// first minute on its first new input: a ConversionReview of the testdata
// claims (1.6 KB) would take a million runs, each of which also resets and
// copies the coverage counters of the whole test binary (about 400,000 for
// the webhook's). A time limit also races the worker: the engine stops a
// worker that has not answered when the limit passes, and starts it again.
package fuzztest

import (
	"flag"
	"testing"
)

// Minimize is the -fuzzminimizetime of the packages that call Main, unless
// the command line gives one: at most this many runs to minimise an input,
// new or failing. The worker then answers of itself, and fuzzes on. A
// failing input is minimised further by running it again with a larger
// -fuzzminimizetime.
const Minimize = "250x"

// Main runs m, with Minimize for -test.fuzzminimizetime unless the command
// line gives one. A package's TestMain calls it:
//
//	func TestMain(m *testing.M) { os.Exit(fuzztest.Main(m)) }
func Main(m *testing.M) int {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.fuzzminimizetime" })
	if !set {
		if err := flag.Set("test.fuzzminimizetime", Minimize); err != nil {
			panic(err)
		}
	}
	return m.Run()
}
