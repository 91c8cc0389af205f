package webhook

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// maxLoggedString bounds each string a log line takes from a request: the
// request's fields are its client's to choose, and logged whole they would
// let one request write megabytes of log (and hold them in memory while the
// line is built).
const maxLoggedString = 256

// logString is s for a log line: valid UTF-8, at most maxLoggedString
// bytes of it, and its length when cut.
func logString(s string) string {
	if len(s) <= maxLoggedString {
		return strings.ToValidUTF8(s, "\uFFFD")
	}
	return fmt.Sprintf("%s… (%d bytes)", strings.ToValidUTF8(s[:maxLoggedString], "\uFFFD"), len(s))
}

// maxLoggedCauses bounds the causes a denial's log line names.
const maxLoggedCauses = 8

// deniedFields names what a denial found, for its log line: each cause's
// reason and field path, not its message, which quotes the object's values
// (object contents are not logged; -v=4 logs the message).
func deniedFields(st *metav1.Status) []string {
	if st == nil || st.Details == nil {
		return nil
	}
	var out []string
	for i, c := range st.Details.Causes {
		if i == maxLoggedCauses {
			out = append(out, fmt.Sprintf("… (%d causes)", len(st.Details.Causes)))
			break
		}
		out = append(out, logString(string(c.Type)+" "+c.Field))
	}
	return out
}
