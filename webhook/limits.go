package webhook

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
)

// httpError is a failure to read a review, answered with a plain HTTP status.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

func errorf(code int, format string, args ...any) *httpError {
	return &httpError{code: code, msg: fmt.Sprintf(format, args...)}
}

// readReview enforces method, content type, body cap and nesting depth and
// returns the body. Every check runs before anything is decoded. The cap is
// checked against Content-Length up front and enforced while reading by
// http.MaxBytesReader, which also closes the connection after an oversized
// body; such a body (sent chunked) comes back with the 413 as far as it was
// read, for the answer to echo its uid.
func readReview(w http.ResponseWriter, r *http.Request, maxBytes int64, maxDepth int) ([]byte, *httpError) {
	if herr := headerError(r, maxBytes); herr != nil {
		if herr.code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", http.MethodPost) // RFC 9110, 15.5.6: a 405 names the allowed methods
		}
		return nil, herr
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, errorf(http.StatusBadRequest, "request body is empty")
	}
	var body []byte
	var err error
	if p, ok := r.Body.(*prefetchedBody); ok {
		body, ok = p.whole(maxBytes) // read ahead by the slot gate
		if !ok {
			body, err = readBody(http.MaxBytesReader(w, r.Body, maxBytes), r.ContentLength)
		}
	} else {
		body, err = readBody(http.MaxBytesReader(w, r.Body, maxBytes), r.ContentLength)
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			// What was read, up to the cap, for the answer's head
			// (tooLargeHead): a chunked body announces no length.
			return body, errorf(http.StatusRequestEntityTooLarge, "request body exceeds the limit of %d bytes", maxBytes)
		}
		return nil, errorf(http.StatusBadRequest, "reading request body: %v", err)
	}
	if len(body) == 0 {
		return nil, errorf(http.StatusBadRequest, "request body is empty")
	}
	if maxDepth > 0 {
		if herr := checkBodyDepth(body, maxDepth); herr != nil {
			return nil, herr
		}
	}
	return body, nil
}

// unreadResult is the result label of a review readReview refused:
// "refused" for a method or content type (or encoding) that kube-apiserver
// never sends, which only a misdirected client does (a prober's GET), kept
// out of the error-rate alerts; "bad_request" for everything else.
func unreadResult(herr *httpError) string {
	if herr.code == http.StatusMethodNotAllowed || herr.code == http.StatusUnsupportedMediaType {
		return "refused"
	}
	return "bad_request"
}

// headerError is what readReview refuses a request for by its headers
// alone: the method, the content type, an announced body over the cap.
func headerError(r *http.Request, maxBytes int64) *httpError {
	if r.Method != http.MethodPost {
		return errorf(http.StatusMethodNotAllowed, "method %s not allowed, use POST", r.Method)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" { // as kube-apiserver sends it: no parsing
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return errorf(http.StatusUnsupportedMediaType, "content type %q not supported, use application/json", ct)
		}
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		return errorf(http.StatusUnsupportedMediaType, "content encoding %q not supported, send the body uncompressed", ce)
	}
	if r.ContentLength > maxBytes {
		return errorf(http.StatusRequestEntityTooLarge, "request body of %d bytes exceeds the limit of %d bytes", r.ContentLength, maxBytes)
	}
	return nil
}

// decodeChecked is the slow path of the one-pass review decoders: the
// nesting check readReview skipped, then decode.
func decodeChecked(body []byte, maxDepth int, decode func([]byte) *httpError) *httpError {
	if herr := checkBodyDepth(body, maxDepth); herr != nil {
		return herr
	}
	return decode(body)
}

// checkBodyDepth is readReview's nesting check, for handlers that read with
// maxDepth 0 and check the depth only when their one-pass decoding (which
// enforces the same limit) did not accept the body.
func checkBodyDepth(body []byte, maxDepth int) *httpError {
	if err := checkDepth(body, maxDepth); err != nil {
		return errorf(http.StatusBadRequest, "%v", err)
	}
	return nil
}

// reviewNesting is how deep a ConversionReview nests its objects
// ({"request":{"objects":[ … ]}}); an AdmissionReview nests them less deep.
const reviewNesting = 3

// checkConvertedDepth fails for a converted object (its JSON) that no review
// within maxDepth could carry: conversion can nest deeper than its input
// (1.30 handle data that is JSON text becomes the parameters object; restore
// data comes back), and such an object, once stored, could be read and
// written through no version. Refused here, the write that would store it
// fails instead. maxDepth 0: no limit.
func checkConvertedDepth(object []byte, maxDepth int) error {
	if maxDepth <= 0 {
		return nil
	}
	if err := checkDepth(object, convertedDepth(maxDepth)); err != nil {
		return fmt.Errorf("the result nests deeper than a review may carry (--max-json-depth %d, of which the review takes %d): %w", maxDepth, reviewNesting, err)
	}
	return nil
}

// convertedDepth is how deep a converted object may nest (arrays and
// objects) for checkConvertedDepth to let it through: maxDepth less what
// the review takes. /validate refuses a write that would make a view of
// the object deeper (validation.Request.MaxViewDepth), which, written
// through the storage version, reaches no conversion until it is read.
// 0 for maxDepth 0: no limit.
func convertedDepth(maxDepth int) int {
	if maxDepth <= 0 {
		return 0
	}
	return max(0, maxDepth-reviewNesting)
}

// mayNestDeeper reports whether converting an object (its bytes raw, or
// decoded obj) can nest it deeper than the review that carried it: only
// restore data (annotations claimbridge.dev/restore-…, whose values come
// back as objects) can, beyond 1.30 handle data parsed into parameters,
// which nests at most handleDataNesting deep where it lands. Objects
// without restore data (those written in the storage version, the hot path)
// skip the scan of their result.
func mayNestDeeper(raw []byte, obj map[string]interface{}, maxDepth int) bool {
	if maxDepth <= 0 {
		return false
	}
	if maxDepth-reviewNesting < handleDataNesting {
		return true
	}
	if obj == nil {
		return bytes.Contains(raw, restorePrefix)
	}
	return api.HasRestoreAnnotation(obj)
}

var restorePrefix = []byte(`"` + api.RestoreAnnotationPrefix)

// handleDataNesting bounds how deep 1.30 handle data parsed into opaque
// parameters nests a converted claim: its own depth and the path to
// status.allocation.devices.config[i].opaque.parameters.
const handleDataNesting = conversion.MaxHandleDataDepth + 8

// checkDepth scans data once and fails as soon as arrays and objects nest
// deeper than max, so that a hostile body costs at most max+1 bytes of work
// before the decoder ever sees it. Malformed JSON is left to the decoder.
func checkDepth(data []byte, max int) error {
	_, err := scanStructure(data, max)
	return err
}

// scanStructure walks the JSON structure of data outside its strings once:
// it counts the tokens '{', '[', ':' and ',' (decodedCost's measure) and
// fails as soon as arrays and objects nest deeper than maxDepth
// (math.MaxInt: no limit).
func scanStructure(data []byte, maxDepth int) (tokens int64, err error) {
	depth := 0
	inString, escaped := false, false
	for _, c := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{', '[':
			tokens++
			depth++
			if depth > maxDepth {
				return tokens, fmt.Errorf("JSON nesting exceeds the maximum depth of %d", maxDepth)
			}
		case ':', ',':
			tokens++
		case '}', ']':
			depth--
		}
	}
	return tokens, nil
}

// readBody reads all of body. With a known length (a Content-Length, as
// kube-apiserver sends) it ends with one buffer of that size plus one byte
// (to see the end without growing again), grown as below instead of from
// 512 bytes as io.ReadAll grows; a body longer than announced is still read
// whole (the caller's MaxBytesReader bounds it).
func readBody(body io.Reader, length int64) ([]byte, error) {
	if length <= 0 {
		return io.ReadAll(body)
	}
	// The buffer grows as the bytes arrive, never past the announced
	// length until it is reached, so that an announcement alone holds no
	// memory (a client announcing the cap and sending nothing holds
	// initialBodyBuffer); fourfold, so that a large body's buffers add up
	// to less than twice its size, the last one its size.
	buf := make([]byte, 0, min(length+1, initialBodyBuffer))
	for {
		if len(buf) == cap(buf) {
			next := min(int64(cap(buf))*4, length+1)
			if next <= int64(cap(buf)) { // longer than announced
				next = int64(cap(buf)) * 2
			}
			grown := make([]byte, len(buf), next)
			copy(grown, buf)
			buf = grown
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// initialBodyBuffer is the most readBody allocates before a body's bytes
// arrive.
const initialBodyBuffer = 64 << 10
