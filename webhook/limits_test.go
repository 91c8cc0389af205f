package webhook

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// repeatReader yields n copies of b without holding them in memory.
func repeatReader(b byte, n int64) io.Reader {
	return io.LimitReader(byteReader(b), n)
}

type byteReader byte

func (r byteReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

func TestHostileInput(t *testing.T) {
	const huge = 64<<20 + 1
	convertReview := conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1", fixture(t, "v1alpha3"))
	handlers := map[string]http.Handler{
		"convert":  newTestConvertHandler(fakeConvert),
		"validate": newTestValidateHandler(allowAll),
	}
	tests := map[string]struct {
		method      string
		contentType string
		body        func() io.Reader
		length      int64 // 0: known from body; -1: chunked
		want        int
		// admission, if not 0, is /validate's status: 200 for a denial of
		// a review that names its uid (TestUndecodableReviewIsDenied).
		admission int
	}{
		"get":              {method: http.MethodGet, body: func() io.Reader { return nil }, want: 405},
		"put":              {method: http.MethodPut, body: func() io.Reader { return bytes.NewReader(convertReview) }, want: 405},
		"no-content-type":  {contentType: "-", body: func() io.Reader { return bytes.NewReader(convertReview) }, want: 415},
		"yaml":             {contentType: "application/yaml", body: func() io.Reader { return bytes.NewReader(convertReview) }, want: 415},
		"cbor":             {contentType: "application/cbor", body: func() io.Reader { return bytes.NewReader(convertReview) }, want: 415},
		"empty":            {body: func() io.Reader { return http.NoBody }, want: 400},
		"garbage":          {body: func() io.Reader { return strings.NewReader("\x00\xff not json {{") }, want: 400},
		"json-string":      {body: func() io.Reader { return strings.NewReader(`"hello"`) }, want: 400},
		"trailing-garbage": {body: func() io.Reader { return strings.NewReader(`{"apiVersion":"x"} trailing`) }, want: 400},
		"empty-object":     {body: func() io.Reader { return strings.NewReader(`{}`) }, want: 400},
		"unknown-review": {body: func() io.Reader {
			return strings.NewReader(`{"apiVersion":"apiextensions.k8s.io/v2","kind":"ConversionReview","request":{"uid":"u"}}`)
		}, want: 400},
		"unknown-admission": {body: func() io.Reader {
			return strings.NewReader(`{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{"uid":"u"}}`)
		}, want: 400},
		"wrong-type":    {body: func() io.Reader { return strings.NewReader(`{"apiVersion":"v1","kind":"Pod"}`) }, want: 400},
		"huge-declared": {body: func() io.Reader { return repeatReader(' ', huge) }, length: huge, want: 413},
		"huge-chunked":  {body: func() io.Reader { return repeatReader(' ', huge) }, length: -1, want: 413},
		// A review announced over the cap: /validate denies it from its
		// head (the uid), never reading the rest.
		"huge-declared-review": {body: func() io.Reader {
			return io.MultiReader(strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":"`), repeatReader('x', huge))
		}, length: huge, want: 413, admission: 200},
		"deep-array":  {body: func() io.Reader { return repeatReader('[', 5<<20) }, want: 400},
		"deep-object": {body: func() io.Reader { return strings.NewReader(strings.Repeat(`{"a":`, 100000)) }, want: 400},
		"deep-in-object": {body: func() io.Reader {
			return strings.NewReader(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","object":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`)
		}, want: 400, admission: 200},
	}
	for hname, h := range handlers {
		for name, tc := range tests {
			t.Run(hname+"/"+name, func(t *testing.T) {
				method := tc.method
				if method == "" {
					method = http.MethodPost
				}
				req := httptest.NewRequest(method, "/", tc.body())
				switch tc.length {
				case 0:
				case -1:
					req.ContentLength = -1
				default:
					req.ContentLength = tc.length
				}
				switch tc.contentType {
				case "":
					req.Header.Set("Content-Type", "application/json")
				case "-":
				default:
					req.Header.Set("Content-Type", tc.contentType)
				}
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				want := tc.want
				if _, ok := h.(*admissionHandler); ok && tc.admission != 0 {
					want = tc.admission
				}
				if rec.Code != want {
					t.Errorf("status %d, want %d: %s", rec.Code, want, rec.Body)
				}
			})
		}
	}
}

func TestMissingUID(t *testing.T) {
	rec := post(newTestConvertHandler(fakeConvert), conversionReview("apiextensions.k8s.io/v1", "", api.Group+"/v1alpha1"))
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "no uid") {
		t.Errorf("convert: %d %s", rec.Code, rec.Body)
	}
	req := claimRequest(t, "CREATE", "v1alpha3", "")
	req.UID = ""
	rec = post(newTestValidateHandler(allowAll), admissionReview("admission.k8s.io/v1", req))
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "no uid") {
		t.Errorf("validate: %d %s", rec.Code, rec.Body)
	}
	for _, body := range []string{`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`, `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`} {
		for _, h := range []http.Handler{newTestConvertHandler(fakeConvert), newTestValidateHandler(allowAll)} {
			if rec := post(h, []byte(body)); rec.Code != 400 {
				t.Errorf("%s: %d", body, rec.Code)
			}
		}
	}
	// Without a request, the review is refused for that, not for its uid.
	for body, h := range map[string]http.Handler{
		`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview"}`: newTestConvertHandler(fakeConvert),
		`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`:      newTestValidateHandler(allowAll),
	} {
		if rec := post(h, []byte(body)); rec.Code != 400 || !strings.Contains(rec.Body.String(), "Review has no request") {
			t.Errorf("%s: %d %s", body, rec.Code, rec.Body)
		}
	}
}

func TestContentTypeWithCharset(t *testing.T) {
	req := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(conversionReview("apiextensions.k8s.io/v1", "u", api.Group+"/v1alpha1")))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	rec := httptest.NewRecorder()
	newTestConvertHandler(fakeConvert).ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("status %d", rec.Code)
	}
}

func TestCheckDepth(t *testing.T) {
	for s, ok := range map[string]bool{
		`[[[]]]`:               true,
		`[[[[]]]]`:             false,
		`["[[[[[[[["]`:         true,
		`["\"[[[[[["]`:         true,
		`{"a":{"b":{}}}`:       true,
		`{"a":{"b":{"c":{}}}}`: false,
	} {
		if err := checkDepth([]byte(s), 3); (err == nil) != ok {
			t.Errorf("%s: err %v, want ok=%v", s, err, ok)
		}
	}
}

func TestRecoverPanics(t *testing.T) {
	m := newMetrics()
	h := recoverPanics("/x", m, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d", rec.Code)
	}
}

// TestReadBody reads bodies whose announced length is right, too short, too
// long or unknown, through a reader that returns a few bytes at a time.
func TestReadBody(t *testing.T) {
	body := strings.Repeat("0123456789", 100)
	for _, tc := range []struct {
		name   string
		length int64
	}{
		{"exact", int64(len(body))},
		{"announced shorter", 10},
		{"announced longer", int64(len(body)) * 2},
		{"unknown", -1},
		{"zero", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readBody(&chunkReader{r: strings.NewReader(body), n: 7}, tc.length)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != body {
				t.Errorf("read %d bytes, want the %d of the body", len(got), len(body))
			}
		})
	}
	t.Run("error", func(t *testing.T) {
		_, err := readBody(io.MultiReader(strings.NewReader("abc"), errReader{errors.New("broken")}), 3)
		if err == nil || err.Error() != "broken" {
			t.Errorf("err = %v, want broken", err)
		}
	})
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	r io.Reader
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	return c.r.Read(p)
}

// TestMethodNotAllowedNamesPOST: a 405 carries the Allow header that RFC
// 9110 (section 15.5.6) requires of it, for both endpoints.
func TestMethodNotAllowedNamesPOST(t *testing.T) {
	for name, h := range map[string]http.Handler{"convert": newTestConvertHandler(fakeConvert), "validate": newTestValidateHandler(allowAll)} {
		for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPut, http.MethodOptions} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(m, "/", nil))
			if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != http.MethodPost {
				t.Errorf("%s %s: status %d, Allow %q; want 405 with Allow: POST", name, m, rec.Code, rec.Header().Get("Allow"))
			}
		}
	}
}

// TestMayNestDeeper: only objects with restore data (or a depth limit too
// low for parsed handle data) have their converted result scanned.
func TestMayNestDeeper(t *testing.T) {
	withRestore := map[string]interface{}{"metadata": map[string]interface{}{"annotations": map[string]interface{}{"claimbridge.dev/restore-v1alpha1": "{}"}}}
	without := map[string]interface{}{"metadata": map[string]interface{}{"annotations": map[string]interface{}{"a": "b"}}}
	for _, tc := range []struct {
		name     string
		raw      []byte
		obj      map[string]interface{}
		maxDepth int
		want     bool
	}{
		{"decoded, restore data", nil, withRestore, 1000, true},
		{"decoded, none", nil, without, 1000, false},
		{"raw, restore data", []byte(`{"metadata":{"annotations":{"claimbridge.dev/restore-v1alpha2":"{}"}}}`), nil, 1000, true},
		{"raw, none", []byte(`{"metadata":{"annotations":{"a":"b"}}}`), nil, 1000, false},
		{"limit below parsed handle data", nil, without, handleDataNesting + reviewNesting - 1, true},
		{"no limit", nil, withRestore, 0, false},
	} {
		if got := mayNestDeeper(tc.raw, tc.obj, tc.maxDepth); got != tc.want {
			t.Errorf("%s: mayNestDeeper = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// errReader fails every read with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
