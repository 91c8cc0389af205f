// Package recorded keeps what the real kube-apiserver, or the upstream
// validation oracle, of an old Kubernetes release answered the tests, so
// that `make test` checks claimbridge against those answers without
// building and running that release.
//
// A Book is one release's answers, in a file beside the suite that asks:
// JSON lines, gzipped when the file name ends in .gz.
// `make record` (CLAIMBRIDGE_RECORD=1) runs the suites against the real
// programs and rewrites every book. Otherwise each question is answered
// from the book; a question it has no answer for fails the test ("run
// `make record`"): a changed input or a changed claimbridge output is a
// new question. A book records the version of the program that answered;
// a book of another version than the one hack/ pins is stale, and so is
// a book with answers that a whole run of its suite never asked for.
//
// A question is asked again with the same answer; a question asked several
// times with different answers (a create, then the same create refused as
// a duplicate) gets them in the order they were given.
package recorded

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Recording is true under `make record`: the suites ask the real programs
// and write their books.
var Recording = os.Getenv("CLAIMBRIDGE_RECORD") != ""

// Book is the answers of one program of one release.
type Book struct {
	path    string
	header  header
	mu      sync.Mutex
	entries map[string]*entry
}

type header struct {
	// Release is the Kubernetes release ("1.32"), Version the program's
	// exact version ("v1.32.13"): the one hack/ pins when recorded.
	Release string `json:"release"`
	Version string `json:"version"`
}

type entry struct {
	Key      string            `json:"key"`
	Question string            `json:"question"`
	Answers  []json.RawMessage `json:"answers"`
	asked    int
}

// Open reads the book at path, which must have been recorded from
// version (the version hack/ pins today) of release. Under `make record`
// it starts an empty book instead, written by Close.
func Open(path, release, version string) (*Book, error) {
	b := &Book{path: path, header: header{Release: release, Version: version}, entries: map[string]*entry{}}
	if Recording {
		return b, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the recorded answers of Kubernetes %s: %w (run `make record`)", release, err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	if !sc.Scan() {
		return nil, fmt.Errorf("%s: empty (run `make record`)", path)
	}
	var h header
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	if h != b.header {
		return nil, fmt.Errorf("%s is stale: recorded from Kubernetes %s %s, hack/ pins %s %s (run `make record`)",
			path, h.Release, h.Version, release, version)
	}
	for sc.Scan() {
		e := &entry{}
		if err := json.Unmarshal(sc.Bytes(), e); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		b.entries[e.Key] = e
	}
	return b, sc.Err()
}

// Ask answers question (described for people by what) into out: from the
// book, or under `make record` from ask, whose answer it records.
func (b *Book) Ask(question []byte, what string, out any, ask func() (any, error)) error {
	sum := sha256.Sum256(question)
	key := hex.EncodeToString(sum[:16])
	if Recording {
		v, err := ask()
		if err != nil {
			return err
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return err
		}
		b.mu.Lock()
		e := b.entries[key]
		if e == nil {
			e = &entry{Key: key, Question: what}
			b.entries[key] = e
		}
		e.Answers = append(e.Answers, raw)
		b.mu.Unlock()
		return json.Unmarshal(raw, out)
	}
	b.mu.Lock()
	e := b.entries[key]
	var raw json.RawMessage
	if e != nil {
		raw = e.Answers[e.asked%len(e.Answers)]
		e.asked++
	}
	b.mu.Unlock()
	if e == nil {
		return fmt.Errorf("the recorded Kubernetes %s was never asked %s with this input (%s): run `make record`", b.header.Release, what, b.path)
	}
	return json.Unmarshal(raw, out)
}

// Close writes the book under `make record`. Otherwise, when complete is
// true (the suite ran every test once), it fails on answers no test asked
// for: the book is stale.
func (b *Book) Close(complete bool) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !Recording {
		var unused []string
		for _, e := range b.entries {
			if e.asked == 0 {
				unused = append(unused, e.Question)
			}
		}
		if complete && len(unused) > 0 {
			sort.Strings(unused)
			return fmt.Errorf("%s is stale: no test asked %d of its questions, e.g. %s (run `make record`)", b.path, len(unused), unused[0])
		}
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(b.header); err != nil {
		return err
	}
	keys := make([]string, 0, len(b.entries))
	for k := range b.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := enc.Encode(b.entries[k]); err != nil {
			return err
		}
	}
	data := buf.Bytes()
	if strings.HasSuffix(b.path, ".gz") {
		var z bytes.Buffer
		w, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		if _, err := w.Write(data); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		data = z.Bytes()
	}
	if err := os.MkdirAll(filepath.Dir(b.path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(b.path, data, 0o644)
}

// exchange is an HTTP answer.
type exchange struct {
	Status      int             `json:"status"`
	ContentType string          `json:"contentType,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"`  // a JSON body as it is
	Bytes       []byte          `json:"bytes,omitempty"` // any other body
}

// Transport returns an http.RoundTripper for client-go's
// rest.Config.WrapTransport: under `make record` it sends each request
// through live and records the answer; otherwise it answers from the book
// and live is never used (it may be nil). The question is the method, the
// path with its query, and the body.
func (b *Book) Transport(live http.RoundTripper) http.RoundTripper {
	return roundTripper{b, live}
}

type roundTripper struct {
	book *Book
	live http.RoundTripper
}

func (rt roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		var err error
		if body, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	question := req.Method + " " + req.URL.RequestURI() + "\n" + string(body)
	what := req.Method + " " + req.URL.Path
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name, GenerateName string
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) == nil && obj.Kind != "" {
		what += " of " + obj.Kind + " " + obj.Metadata.Name + obj.Metadata.GenerateName
	}
	var ex exchange
	err := rt.book.Ask([]byte(question), what, &ex, func() (any, error) {
		resp, err := rt.live.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			return nil, err
		}
		ex := exchange{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type")}
		if strings.HasPrefix(ex.ContentType, "application/json") && json.Valid(data) {
			ex.Body = compact(data)
		} else {
			ex.Bytes = data
		}
		return ex, nil
	})
	if err != nil {
		return nil, err
	}
	data := ex.Bytes
	if ex.Body != nil {
		data = ex.Body
	}
	return &http.Response{
		Status: http.StatusText(ex.Status), StatusCode: ex.Status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{"Content-Type": []string{ex.ContentType}},
		Body:   io.NopCloser(bytes.NewReader(data)), ContentLength: int64(len(data)), Request: req,
	}, nil
}

func compact(data []byte) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return data
	}
	return buf.Bytes()
}

// Pinned is the k8s.io/kubernetes version that the go.mod at path requires
// (hack/tools/kube-apiserver-1.31/go.mod, hack/oracle/k8s-1.31/go.mod).
func Pinned(gomod string) (string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require "))
		if len(f) >= 2 && f[0] == "k8s.io/kubernetes" {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s requires no k8s.io/kubernetes", gomod)
}

// Complete reports whether this run of a test binary runs all of its tests
// (no -run or -skip), so that an answer no test asked for means a stale book.
func Complete() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return false
		}
	}
	return true
}

// File is the recording at path: under `make record`, what record
// returns, written there as indented JSON; otherwise what the file holds,
// which must have been recorded with what pinned names (pins of it: the
// versions and sources of what answered).
func File[T any](t testing.TB, path string, pinned map[string]string, pins func(T) map[string]string, record func() T) T {
	t.Helper()
	if Recording {
		b := record()
		data, err := json.MarshalIndent(b, "", "  ")
		if err == nil {
			err = os.WriteFile(path, append(data, '\n'), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	var b T
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run `make record`", err)
	}
	if err := json.Unmarshal(data, &b); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if d := cmp.Diff(pinned, pins(b)); d != "" {
		t.Fatalf("%s was recorded with other versions or sources than this tree pins: run `make record` (-pinned +recorded):\n%s", path, d)
	}
	return b
}
