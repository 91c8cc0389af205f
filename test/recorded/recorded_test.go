package recorded

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// record runs f with Recording set, as `make record` does.
func record(t *testing.T, f func()) {
	t.Helper()
	saved := Recording
	Recording = true
	defer func() { Recording = saved }()
	f()
}

func TestBookRecordsAndAnswers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.jsonl")
	asked := 0
	record(t, func() {
		b, err := Open(path, "1.31", "v1.31.14")
		if err != nil {
			t.Fatal(err)
		}
		for _, answer := range []string{"created", "already exists"} {
			var got string
			if err := b.Ask([]byte("create x"), "create x", &got, func() (any, error) { asked++; return answer, nil }); err != nil || got != answer {
				t.Fatalf("Ask = %q, %v; want %q", got, err, answer)
			}
		}
		if err := b.Close(true); err != nil {
			t.Fatal(err)
		}
	})
	if asked != 2 {
		t.Fatalf("the live program was asked %d times, want 2", asked)
	}

	b, err := Open(path, "1.31", "v1.31.14")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"created", "already exists", "created"} {
		var got string
		if err := b.Ask([]byte("create x"), "create x", &got, nil); err != nil || got != want {
			t.Fatalf("Ask = %q, %v; want %q from the book", got, err, want)
		}
	}
	var got string
	err = b.Ask([]byte("create y"), "create y", &got, nil)
	if err == nil || !strings.Contains(err.Error(), "never asked create y") || !strings.Contains(err.Error(), "make record") {
		t.Fatalf("a question never recorded: %v", err)
	}
	if err := b.Close(true); err != nil {
		t.Fatal(err)
	}
}

func TestBookStale(t *testing.T) {
	path := filepath.Join(t.TempDir(), "book.jsonl")
	record(t, func() {
		b, _ := Open(path, "1.32", "v1.32.13")
		var s string
		for _, q := range []string{"a", "b"} {
			if err := b.Ask([]byte(q), q, &s, func() (any, error) { return q, nil }); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Close(true); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := Open(path, "1.32", "v1.32.14"); err == nil || !strings.Contains(err.Error(), "is stale: recorded from Kubernetes 1.32 v1.32.13, hack/ pins 1.32 v1.32.14") {
		t.Errorf("another pinned version: %v", err)
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.jsonl"), "1.32", "v1.32.13"); err == nil || !strings.Contains(err.Error(), "make record") {
		t.Errorf("no book: %v", err)
	}
	b, err := Open(path, "1.32", "v1.32.13")
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := b.Ask([]byte("a"), "a", &s, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(false); err != nil {
		t.Errorf("a partial run: %v", err)
	}
	if err := b.Close(true); err == nil || !strings.Contains(err.Error(), "no test asked 1 of its questions, e.g. b") {
		t.Errorf("a whole run that left an answer unasked: %v", err)
	}
}

func TestTransport(t *testing.T) {
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"method": "`+r.Method+`", "body": `+string(body)+`}`)
	}))
	defer server.Close()
	path := filepath.Join(t.TempDir(), "book.jsonl")
	post := func(c *http.Client) (int, string) {
		resp, err := c.Post(server.URL+"/apis/x?dryRun=All", "application/json", strings.NewReader(`{"a": 1}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	record(t, func() {
		b, _ := Open(path, "1.26", "v1.26.15")
		if code, body := post(&http.Client{Transport: b.Transport(http.DefaultTransport)}); code != 201 || body != `{"method":"POST","body":{"a":1}}` {
			t.Fatalf("recording: %d %s", code, body)
		}
		if err := b.Close(true); err != nil {
			t.Fatal(err)
		}
	})
	server.Close() // the book answers now
	b, err := Open(path, "1.26", "v1.26.15")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := post(&http.Client{Transport: b.Transport(nil)}); code != 201 || body != `{"method":"POST","body":{"a":1}}` {
		t.Fatalf("replay: %d %s", code, body)
	}
}

func TestPinned(t *testing.T) {
	got, err := Pinned(filepath.Join("..", "..", "hack", "tools", "kube-apiserver-1.31", "go.mod"))
	if err != nil || !strings.HasPrefix(got, "v1.31.") {
		t.Errorf("Pinned = %q, %v", got, err)
	}
}
