package webhook

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// TestFitWarnings: warnings within kube-apiserver's budget go as they are;
// beyond it each is cut to 256 runes and at most 16 go, the last saying how
// many more there were, so the apiserver neither cuts nor drops any.
func TestFitWarnings(t *testing.T) {
	short := []string{"a: one", "b: two"}
	if got := fitWarnings(short); !cmp.Equal(got, short) {
		t.Errorf("within the budget: %q", got)
	}
	long := strings.Repeat("é", 300) // runes, not bytes, count
	var many []string
	for i := range 20 {
		many = append(many, fmt.Sprintf("w%d: %s", i, long))
	}
	got := fitWarnings(many)
	if len(got) != 16 {
		t.Fatalf("%d warnings, want 16", len(got))
	}
	total := 0
	for i, w := range got {
		n := utf8.RuneCountInString(w)
		total += n
		if n > 256 {
			t.Errorf("warning %d has %d runes", i, n)
		}
		if i < 15 && !strings.HasPrefix(w, fmt.Sprintf("w%d: ", i)) {
			t.Errorf("warning %d out of order: %.10q", i, w)
		}
	}
	if total > 4096 {
		t.Errorf("%d runes in all", total)
	}
	if want := "5 more warnings not shown"; !strings.HasPrefix(got[15], want) {
		t.Errorf("last %q, want it to start with %q", got[15], want)
	}
	// Over the budget with no more than 16: all kept, cut.
	if got := fitWarnings(many[:16]); len(got) != 16 || !strings.HasSuffix(got[15], "…") {
		t.Errorf("16 long warnings: %d, last %.20q", len(got), got[15])
	}
}

// TestWarningsAreHeaderSafe: kube-apiserver drops, silently, a warning that
// net.NewWarningHeader refuses (invalid UTF-8, control characters), and
// warnings quote what clients wrote: each one goes out escaped instead.
func TestWarningsAreHeaderSafe(t *testing.T) {
	in := []string{
		"plain: unchanged",
		"stored as v1alpha3: spec.parametersRef: the claim parameters Gpu\tParams \"x\"",
		"esc \x1b[31m and nel \u0085 and bad \xff byte",
	}
	want := []string{
		"plain: unchanged",
		`stored as v1alpha3: spec.parametersRef: the claim parameters Gpu\tParams "x"`,
		`esc \x1b[31m and nel \u0085 and bad ` + "\uFFFD" + ` byte`,
	}
	orig := append([]string(nil), in...)
	got := fitWarnings(in)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff(orig, in); d != "" {
		t.Errorf("the caller's warnings were modified (-want +got):\n%s", d)
	}
	for _, w := range got {
		if _, err := utilnet.NewWarningHeader(299, "-", w); err != nil {
			t.Errorf("%q: %v", w, err)
		}
	}
}
