package webhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
)

// TestPrefetchedBodyHeldOnce: a review read ahead by the slot gate is the
// body the handler gets, not a copy of it, and it is read into one buffer
// of the announced length: a large review costs its size once (it cost
// about three times, ReadAll's growth and a copy, before).
func TestPrefetchedBodyHeldOnce(t *testing.T) {
	const size = 8 << 20
	body := []byte(`{"a":"` + strings.Repeat("x", size-8) + `"}`)
	r := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	prefetchBody(r, 64<<20)
	got, herr := readReview(w, r, 64<<20, 0)
	runtime.ReadMemStats(&after)
	if herr != nil {
		t.Fatal(herr)
	}
	if !bytes.Equal(got, body) {
		t.Fatal("the body read is not the body sent")
	}
	if allocated := after.TotalAlloc - before.TotalAlloc; allocated > size*3/2 {
		t.Errorf("reading an %d-byte body allocated %d bytes; want it held once", size, allocated)
	}
}

// TestPrefetchedBodyOverTheCap: a body over the cap that announced no
// length (chunked) is still refused with 413 after being read ahead.
func TestPrefetchedBodyOverTheCap(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(strings.Repeat(" ", 101)))
	r.ContentLength = -1
	r.Header.Set("Content-Type", "application/json")
	prefetchBody(r, 100)
	if _, herr := readReview(httptest.NewRecorder(), r, 100, 0); herr == nil || herr.code != http.StatusRequestEntityTooLarge {
		t.Errorf("got %v, want 413", herr)
	}
}
