package cli

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// controlEscaper writes what the commands say on standard error with every
// control character but newline and tab escaped as Go escapes it (\x1b,
// \u009b): the reports quote names and values from the input, and a
// manifest must not be able to move the cursor, recolour or retitle the
// terminal of whoever converts or validates it. validate's standard output,
// a report, is escaped too; convert's and migrate's, the manifests
// themselves, is left alone (their encoders escape what they must).
type controlEscaper struct{ w io.Writer }

func (e controlEscaper) Write(p []byte) (int, error) {
	if utf8.Valid(p) && !bytes.ContainsFunc(p, isControl) {
		return e.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A byte that is no UTF-8 (a lone 0x9b is CSI to a terminal
			// that reads Latin-1).
			out = append(out, fmt.Sprintf(`\x%02x`, p[i])...)
		case isControl(r):
			q := strconv.QuoteRune(r)
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	if _, err := e.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// isControl: C0 but newline and tab, DEL, and C1 (in UTF-8; a byte that is
// no UTF-8 is escaped by controlEscaper apart).
func isControl(r rune) bool {
	return (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f)
}
