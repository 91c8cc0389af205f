package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func TestStepProfileOff(t *testing.T) {
	t.Setenv("LOADTEST_PROFILE_DIR", "")
	if args := profileArgs(); args != nil {
		t.Errorf("profileArgs() = %v with profiling off, want none", args)
	}
	if p := startStepProfile("http://127.0.0.1:1", "http://127.0.0.1:1/metrics", time.Second); p != nil {
		t.Error("startStepProfile started with profiling off")
	}
	var p *stepProfiler
	p.stop() // a nil profiler's stop does nothing
}

// TestStepProfileSavesMetricsAndProfiles checks what the overload step's
// profiler saves from a server that serves the health listener's pprof
// handlers and /metrics: the metrics before and after, the server's CPU
// profile over the middle of the step, its heap and goroutines, and a CPU
// profile of the generator itself.
func TestStepProfileSavesMetricsAndProfiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof")
	t.Setenv("LOADTEST_PROFILE_DIR", dir)
	if args := profileArgs(); len(args) != 1 || args[0] != "--profiling" {
		t.Fatalf("profileArgs() = %v, want [--profiling]", args)
	}
	var mu sync.Mutex
	scrapes := 0
	var seconds string
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", func(w http.ResponseWriter, _ *http.Request) {
		mu.Lock()
		scrapes++
		n := scrapes
		mu.Unlock()
		if n == 1 {
			w.Write([]byte("before\n"))
			return
		}
		w.Write([]byte("after\n"))
	})
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seconds = r.URL.Query().Get("seconds")
		mu.Unlock()
		w.Write([]byte("cpu"))
	})
	mux.HandleFunc("/debug/pprof/heap", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("heap")) })
	mux.HandleFunc("/debug/pprof/goroutine", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("debug") != "1" {
			http.Error(w, "want debug=1", http.StatusBadRequest)
			return
		}
		w.Write([]byte("goroutines"))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	p := startStepProfile(healthBase(srv.URL+"/healthz"), srv.URL+"/metrics", 2*time.Second)
	if p == nil {
		t.Fatal("startStepProfile returned nil with profiling on")
	}
	time.Sleep(2 * time.Second) // the step
	p.stop()

	for name, want := range map[string]string{
		"metrics-before.txt": "before\n",
		"metrics-after.txt":  "after\n",
		"cpu.pprof":          "cpu",
		"heap.pprof":         "heap",
		"goroutine.txt":      "goroutines",
	} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, "generator-cpu.pprof")); err != nil || fi.Size() == 0 {
		t.Errorf("generator-cpu.pprof: %v, want a profile", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if seconds != "1" {
		t.Errorf("CPU profile of %q seconds for a 2 s step, want 1 (its middle half)", seconds)
	}
}

func TestHealthBase(t *testing.T) {
	if got := healthBase("http://127.0.0.1:8081/healthz"); got != "http://127.0.0.1:8081" {
		t.Errorf("healthBase = %q", got)
	}
}
