package webhook

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestPrefetchedBodyHeldOnce: a review read ahead by the slot gate is the
// body the handler gets, not a copy of it, and its buffer grows fourfold up
// to the announced length: a large review costs about 1.6 times its size in
// allocations (about three times, ReadAll's growth and a copy, before).
func TestPrefetchedBodyHeldOnce(t *testing.T) {
	const size = 8 << 20
	body := []byte(`{"a":"` + strings.Repeat("x", size-8) + `"}`)
	r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	prefetchBody(r, 64<<20, time.Now())
	got, herr := readReview(w, r, 64<<20, 0)
	runtime.ReadMemStats(&after)
	if herr != nil {
		t.Fatal(herr)
	}
	if !bytes.Equal(got, body) {
		t.Fatal("the body read is not the body sent")
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > size*7/4 {
		t.Errorf("reading an %d-byte body allocated %d bytes; want it held once", size, allocated)
	}
}

// TestPrefetchedBodyOverTheCap: a body over the cap that announced no
// length (chunked) is still refused with 413 after being read ahead.
func TestPrefetchedBodyOverTheCap(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(strings.Repeat(" ", 101)))
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	prefetchBody(r, 100, time.Now())
	if _, herr := readReview(httptest.NewRecorder(), r, 100, 0); herr == nil || herr.code != http.StatusRequestEntityTooLarge {
		t.Errorf("got %v, want 413", herr)
	}
}

// TestAnnouncedLengthHoldsNoMemory: a client that announces the cap and
// sends a few bytes (or none, holding its connection) makes the server hold
// what arrived, not what it announced: /convert needs no client
// certificate, so any client that reaches the port could otherwise make
// every connection hold the 64 MiB cap.
func TestAnnouncedLengthHoldsNoMemory(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(`{"a":1}`))
	r.ContentLength = 64 << 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	prefetchBody(r, 64<<20, time.Now())
	runtime.ReadMemStats(&after)
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > 1<<20 {
		t.Errorf("a body announcing 64 MiB and sending 7 bytes allocated %d bytes; want about the bytes that arrived", allocated)
	}
	got, _ := io.ReadAll(r.Body)
	if string(got) != `{"a":1}` {
		t.Errorf("body %q", got)
	}
}
