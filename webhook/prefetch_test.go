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

// TestPrefetchedBodyWhole: readReview takes the body read ahead as it is
// only when it was read to its end, within the cap (which it may fill), and
// not yet read from; once taken, the body yields nothing more.
func TestPrefetchedBodyWhole(t *testing.T) {
	for _, tc := range []struct {
		name     string
		body     string
		maxBytes int64
		readFrom int   // bytes read before
		err      error // the read-ahead's
		want     bool
	}{
		{name: "within the cap", body: "{}", maxBytes: 3, want: true},
		{name: "filling the cap", body: "{}", maxBytes: 2, want: true},
		{name: "over the cap", body: "{}", maxBytes: 1},
		{name: "read from", body: "{}", maxBytes: 3, readFrom: 1},
		{name: "not read to its end", body: "{}", maxBytes: 3, err: io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &prefetchedBody{data: []byte(tc.body), err: tc.err, rest: bytes.NewReader([]byte(tc.body))}
			if _, err := p.Read(make([]byte, tc.readFrom)); err != nil {
				t.Fatal(err)
			}
			got, ok := p.whole(tc.maxBytes)
			if ok != tc.want || ok && string(got) != tc.body {
				t.Fatalf("whole = %q, %v; want %v", got, ok, tc.want)
			}
			if !ok {
				return
			}
			if n, err := p.Read(make([]byte, 8)); n != 0 || err != io.EOF {
				t.Errorf("read after whole: %d bytes, %v; want 0, EOF", n, err)
			}
		})
	}
}

// TestPrefetchBody: a body announced at most the cap, or not announced, is
// read ahead; one announced longer is left to its handler, which refuses
// it by its headers. A body read ahead yields its bytes, then the read's
// error in place of the end.
func TestPrefetchBody(t *testing.T) {
	for _, tc := range []struct {
		name      string
		announced int64
		want      bool
	}{
		{name: "below the cap", announced: 99, want: true},
		{name: "at the cap", announced: 100, want: true},
		{name: "not announced", announced: -1, want: true},
		{name: "over the cap", announced: 101},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/convert", strings.NewReader(strings.Repeat(" ", 100)))
			r.ContentLength = tc.announced
			prefetchBody(r, 100, time.Now())
			if _, got := r.Body.(*prefetchedBody); got != tc.want {
				t.Errorf("read ahead: %v, want %v", got, tc.want)
			}
		})
	}

	p := &prefetchedBody{data: []byte("abc"), err: io.ErrUnexpectedEOF, rest: bytes.NewReader([]byte("abc"))}
	for _, want := range []struct {
		data string
		err  error
	}{{"ab", nil}, {"c", nil}, {"", io.ErrUnexpectedEOF}} {
		b := make([]byte, 2)
		n, err := p.Read(b)
		if string(b[:n]) != want.data || err != want.err {
			t.Errorf("Read = %q, %v; want %q, %v", b[:n], err, want.data, want.err)
		}
	}
}
