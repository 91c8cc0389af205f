package cli

import (
	"bytes"
	"io"
)

// The commands read their input one object at a time (manifest.Each) and
// keep of each object what they will write (its output bytes, the lines
// they print), not the object itself: decoded, an object is about 5 times
// its YAML, and a cluster's export holds tens of thousands.

// recorder keeps what a command writes on its streams, in order, until the
// whole input has been read: a document that cannot be read is then all
// that is said (as when every document was read before any was processed).
type recorder struct {
	buf  bytes.Buffer
	segs []segment // one per Write, in order
}

type segment struct {
	w   io.Writer
	end int // where the Write's bytes end in buf
}

// to is a Writer whose writes are recorded, to be replayed on w.
func (r *recorder) to(w io.Writer) io.Writer { return recordTo{r, w} }

type recordTo struct {
	r *recorder
	w io.Writer
}

func (t recordTo) Write(p []byte) (int, error) {
	t.r.buf.Write(p)
	t.r.segs = append(t.r.segs, segment{t.w, t.r.buf.Len()})
	return len(p), nil
}

// replay makes the recorded writes, one Write each as they were made (the
// streams' errors are ignored, as fmt.Fprintf's are where they are made
// directly), and forgets them.
func (r *recorder) replay() {
	start := 0
	for _, s := range r.segs {
		_, _ = s.w.Write(r.buf.Bytes()[start:s.end])
		start = s.end
	}
	r.segs, r.buf = nil, bytes.Buffer{}
}
