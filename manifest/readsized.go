package manifest

import (
	"io"
	"os"
)

// regularFileSize is the size of r when it is a regular file (a source
// named on the command line, or standard input redirected from one); 0
// otherwise (a pipe, a terminal, a file of /proc that reports no size).
func regularFileSize(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// readSized reads r to its end as io.ReadAll does (the same bytes, the same
// error), into a buffer with room for size bytes and the end of input, so
// that a file of known size is held once while it is read: io.ReadAll
// builds pieces of growing size and copies them into one of the final size
// at the end, twice the input live at once, which set the collector's goal
// of a run over a 41 MB file at 168 MB. It grows the buffer only when r
// holds more than size bytes (a file that grew since its size was taken).
func readSized(r io.Reader, size int64) ([]byte, error) {
	b := make([]byte, 0, size+1)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}
