package webhook

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// rssFileKB is RssFile of /proc/self/status.
func rssFileKB(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no RssFile in /proc/self/status")
	return 0
}

// TestReleaseStartupPages releases the test binary's read-only mappings:
// its file-backed resident set shrinks, and the code keeps running (what it
// needs faults back in), including a full review.
func TestReleaseStartupPages(t *testing.T) {
	before := rssFileKB(t)
	released := releaseStartupPages()
	after := rssFileKB(t)
	if released == 0 || after >= before {
		t.Fatalf("released %d bytes of mappings; RssFile %d kB before, %d kB after", released, before, after)
	}
	t.Logf("released %d MiB of mappings; RssFile %d → %d kB", released>>20, before, after)
	h := newTestConvertHandler(defaultConverter)
	body := conversionReview("apiextensions.k8s.io/v1", "after-release", "resource.claimbridge.dev/v1alpha1", fixture(t, "v1alpha3"))
	if rec := post(h, body); !strings.Contains(rec.Body.String(), `"status":"Success"`) {
		t.Fatalf("conversion after the release failed: %.300s", rec.Body)
	}
}

// TestExeMappings parses smaps: only the executable's entries, their
// writability and anonymous (copied-on-write) pages.
func TestExeMappings(t *testing.T) {
	smaps := `00400000-01c21000 r-xp 00000000 fe:00 10010699                           /bin/claimbridge
Size:              24708 kB
Anonymous:             0 kB
01c21000-0372c000 r--p 01821000 fe:00 10010699                           /bin/claimbridge
Anonymous:             8 kB
0372c000-037ea000 rw-p 0332c000 fe:00 10010699                           /bin/claimbridge
Anonymous:           120 kB
037ea000-03800000 rw-p 00000000 00:00 0
Anonymous:            88 kB
7f0000000000-7f0000001000 r--p 00000000 fe:00 4242                       /usr/lib/libc.so.6
Anonymous:             0 kB
`
	got := exeMappings([]byte(smaps), "/bin/claimbridge")
	want := []mapping{
		{start: 0x400000, end: 0x1c21000},
		{start: 0x1c21000, end: 0x372c000, anonymous: 8},
		{start: 0x372c000, end: 0x37ea000, writable: true, anonymous: 120},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}
