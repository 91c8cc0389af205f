package webhook

import (
	"bytes"
	"encoding/json"
	"io"
)

// Reading the head of a review that is shed before its body is read. Such
// a review (shed by the memory its announced length needs, or refused by
// it: wrap) must still be answered with a denial echoing its request.uid,
// but the point of shedding it early is not to hold its body: only a prefix
// of at most headPrefix bytes is read, and scanned by scanHead, which
// tolerates the cut. kube-apiserver writes an AdmissionReview as
// {"kind":…,"apiVersion":…,"request":{"uid":…,…}…}, so that the three come
// within its first few hundred bytes.

// headPrefix is the most readHead reads of a body.
const headPrefix = 16 << 10

// unreadBody marks a request body the slot gate has not read, for the shed
// answer to read no more than its head (readHead).
type unreadBody struct{ io.ReadCloser }

// readHead reads body up to headPrefix bytes, no further than it takes to
// find apiVersion, kind and request.uid (so that a client that sends the
// head and stalls is answered), and returns what scanHead found, and false
// when the prefix is not the start of a JSON object scanHead can follow or
// one of the three is present but not a string.
func readHead(body io.Reader) (reviewHead, bool) {
	buf := make([]byte, 0, headPrefix)
	var h headScan
	for {
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		h = scanHead(buf)
		if h.bad || h.ended || h.found == foundAll || err != nil || len(buf) == cap(buf) {
			return h.reviewHead, !h.bad
		}
	}
}

// What scanHead found (headScan.found).
const (
	foundAPIVersion = 1 << iota
	foundKind
	foundUID
	foundAll = foundAPIVersion | foundKind | foundUID
)

// headScan is what scanHead read of a prefix.
type headScan struct {
	reviewHead
	found int  // foundAPIVersion, foundKind, foundUID: each read whole
	ended bool // the object ended within the prefix
	bad   bool // not an object it can follow, or one of the three not a string
}

// headOf is what the first headPrefix bytes of body say of the review, and
// whether they name all three (apiVersion, kind, request.uid) as strings:
// for a body read whole that a recursive scan could not follow (nested
// deeper than --max-json-depth, or malformed further on).
func headOf(body []byte) (reviewHead, bool) {
	h := scanHead(body[:min(len(body), headPrefix)])
	return h.reviewHead, !h.bad && h.found == foundAll
}

// scanHead reads apiVersion, kind and request.uid from prefix, the start of
// a review body that may be cut anywhere: a value cut short is not taken,
// everything complete before it is. As reviewHead.scan (and encoding/json)
// it matches keys without regard to case, counts a repeated key with its
// last value within the prefix, adds a repeated request object to the one
// before and ends it with a null request; unlike it, a key written with
// escapes is decoded. Values other than the three are skipped without
// being checked (brackets are matched, strings followed).
func scanHead(prefix []byte) (h headScan) {
	p := headParser{b: prefix}
	defer func() {
		switch recover() {
		case nil:
		case errCut: // the prefix ends: keep what was complete
		case errBadJSON:
			h.bad = true
		default:
			panic("unreachable")
		}
	}()
	str := func(span []byte, into *string, bit int) {
		if err := json.Unmarshal(span, into); err != nil { // null leaves it as it is, as encoding/json does
			panic(errBadJSON)
		}
		h.found |= bit
	}
	p.object(func(key []byte) {
		switch {
		case bytes.EqualFold(key, []byte("apiVersion")):
			str(p.value(), &h.apiVersion, foundAPIVersion)
		case bytes.EqualFold(key, []byte("kind")):
			str(p.value(), &h.kind, foundKind)
		case bytes.EqualFold(key, []byte("request")):
			if p.peek() == 'n' {
				p.value()
				h.uid, h.found = "", h.found&^foundUID
				return
			}
			p.object(func(key []byte) {
				if bytes.EqualFold(key, []byte("uid")) {
					str(p.value(), &h.uid, foundUID)
				} else {
					p.value()
				}
			})
		default:
			p.value()
		}
	})
	p.space()
	h.ended = true
	return h
}

// headParser walks a JSON prefix; it panics with errCut where the prefix
// ends and errBadJSON where the text is not JSON it can follow.
type headParser struct {
	b []byte
	i int
}

type headError string

const (
	errCut     headError = "cut"
	errBadJSON headError = "bad JSON"
)

func (p *headParser) space() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
}

// peek returns the next byte after whitespace.
func (p *headParser) peek() byte {
	p.space()
	if p.i >= len(p.b) {
		panic(errCut)
	}
	return p.b[p.i]
}

func (p *headParser) expect(c byte) {
	if p.peek() != c {
		panic(errBadJSON)
	}
	p.i++
}

// object reads an object, calling member with each key (decoded) when the
// parser is at its value, which member must read.
func (p *headParser) object(member func(key []byte)) {
	p.expect('{')
	if p.peek() == '}' {
		p.i++
		return
	}
	for {
		if p.peek() != '"' {
			panic(errBadJSON)
		}
		key := p.string()
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(key, &s); err != nil {
				panic(errBadJSON)
			}
			key = []byte(s)
		} else {
			key = key[1 : len(key)-1]
		}
		p.expect(':')
		member(key)
		switch p.peek() {
		case ',':
			p.i++
		case '}':
			p.i++
			return
		default:
			panic(errBadJSON)
		}
	}
}

// string returns the string at p.i, quotes included, escapes not decoded.
func (p *headParser) string() []byte {
	start := p.i
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return p.b[start:p.i]
		}
	}
	panic(errCut)
}

// value returns the span of the value at p.i (after whitespace).
func (p *headParser) value() []byte {
	start := p.peek()
	begin := p.i
	switch {
	case start == '"':
		return p.string()
	case start == '{' || start == '[':
		depth := 0
		for p.i < len(p.b) {
			switch p.b[p.i] {
			case '"':
				p.string()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					p.i++
					return p.b[begin:p.i]
				}
			}
			p.i++
		}
		panic(errCut)
	case start == '-' || start >= '0' && start <= '9' || start >= 'a' && start <= 'z':
		for p.i < len(p.b) {
			switch c := p.b[p.i]; {
			case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
				p.i++
			default:
				return p.b[begin:p.i]
			}
		}
		panic(errCut) // a number or literal may go on
	}
	panic(errBadJSON)
}
