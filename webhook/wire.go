package webhook

// The wire of a review: what kube-apiserver sends is checked and read here,
// before any decoder runs.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"time"

	"github.com/claimbridge/claimbridge/api"
)

// httpError is a review refused before it was decoded.
type httpError struct {
	code int
	msg  string
}

func errorf(code int, format string, args ...any) *httpError {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// checkHeaders refuses what kube-apiserver never sends: no verified client
// certificate when one is required, another method or content type, a
// compressed body, or one announced over maxBytes.
func checkHeaders(w http.ResponseWriter, r *http.Request, maxBytes int64, requireCert bool) *httpError {
	if requireCert && (r.TLS == nil || len(r.TLS.VerifiedChains) == 0) {
		return errorf(http.StatusUnauthorized, "a verified client certificate is required")
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		return errorf(http.StatusMethodNotAllowed, "method %s not allowed, use POST", r.Method)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return errorf(http.StatusUnsupportedMediaType, "content type %q not supported, use application/json", r.Header.Get("Content-Type"))
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return errorf(http.StatusUnsupportedMediaType, "content encoding %q not supported, send the body uncompressed", ce)
	}
	if r.ContentLength > maxBytes {
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, maxBytes)
	}
	return nil
}

// readBody reads at most maxBytes of the body. Over the cap, it returns
// what it read with the 413: the answer echoes its uid.
func readBody(w http.ResponseWriter, r *http.Request, maxBytes int64) ([]byte, *httpError) {
	buf := bytes.NewBuffer(make([]byte, 0, min(max(r.ContentLength, 0), maxBytes)+bytes.MinRead)) // ReadFrom keeps MinRead free
	_, err := buf.ReadFrom(http.MaxBytesReader(w, r.Body, maxBytes))
	body := buf.Bytes()
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return body, errorf(http.StatusRequestEntityTooLarge, "request body exceeds the limit of %d bytes", maxBytes)
	}
	if err != nil {
		return nil, errorf(http.StatusBadRequest, "reading request body: %v", err)
	}
	if len(body) == 0 {
		return nil, errorf(http.StatusBadRequest, "request body is empty")
	}
	return body, nil
}

// deadline is the review's context: RequestTimeout from its arrival, or
// the apiserver's ?timeout= (its webhook's timeoutSeconds) when shorter.
func (s *Server) deadline(r *http.Request, start time.Time) (context.Context, context.CancelFunc) {
	timeout := s.cfg.RequestTimeout
	if t, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && t > 0 && t < timeout {
		timeout = t
	}
	return context.WithDeadline(r.Context(), start.Add(timeout))
}

// reviewNesting is how deep a ConversionReview nests its objects
// ({"request":{"objects":[…]}}); an AdmissionReview nests one level less.
const reviewNesting = 3

// convertedDepth is how deep a converted object may nest to fit in a
// review within maxDepth; 0 for no limit.
func convertedDepth(maxDepth int) int {
	if maxDepth <= 0 {
		return 0
	}
	return max(1, maxDepth-reviewNesting)
}

// checkDepth fails, before any decoder runs, once data nests deeper than
// maxDepth (0: no limit).
func checkDepth(data []byte, maxDepth int) error {
	if maxDepth > 0 && api.JSONNestsDeeper(data, maxDepth) {
		return fmt.Errorf("JSON nesting exceeds the maximum depth of %d", maxDepth)
	}
	return nil
}

// reviewHead reads kind, apiVersion and request.uid, for the answer to
// echo, from a body that may be cut short or nest too deep to decode. It
// stops at the uid; kube-apiserver writes it before the objects.
func reviewHead(data []byte) (kind, apiVersion, uid string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	str := func() (s string) { _ = dec.Decode(&s); return s } // "" unless a string
	skip := func() bool { var v json.RawMessage; return dec.Decode(&v) == nil }
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", "", ""
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return kind, apiVersion, ""
		}
		switch k, _ := key.(string); {
		case strings.EqualFold(k, "kind"):
			kind = str()
		case strings.EqualFold(k, "apiVersion"):
			apiVersion = str()
		case strings.EqualFold(k, "request"):
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return kind, apiVersion, ""
			}
			for dec.More() {
				if key, err := dec.Token(); err != nil {
					return kind, apiVersion, ""
				} else if k, _ := key.(string); strings.EqualFold(k, "uid") {
					return kind, apiVersion, str()
				}
				if !skip() {
					return kind, apiVersion, ""
				}
			}
			return kind, apiVersion, ""
		default:
			if !skip() {
				return kind, apiVersion, ""
			}
		}
	}
	return kind, apiVersion, ""
}
