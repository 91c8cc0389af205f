package webhook

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// releaseStartupPages unmaps the pages of the executable's read-only
// mappings (code and read-only data) from this process and returns how many
// bytes of mappings it released. Start-up maps far more of them than serving
// uses: kernel readahead and large folios map most of the 50-odd MB of text
// and read-only data while package initialisation runs (client-go's scheme
// registers every built-in API group), so they would count in the RSS for
// the life of the process. After madvise(MADV_DONTNEED) the pages stay in
// the page cache and the ones serving uses fault back in (minor faults).
//
// Only clean file pages are released: a mapping that is writable, or that
// holds anonymous (copy-on-write) pages, is left alone, so no content can
// change. See docs/performance.md, "Memory".
func releaseStartupPages() int {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	released := 0
	for _, m := range exeMappings(smaps, exe) {
		if m.writable || m.anonymous != 0 {
			continue
		}
		// The raw call: the range is this process's own mapping, not Go
		// memory, so there is no slice to hand to unix.Madvise.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, m.start, m.end-m.start, unix.MADV_DONTNEED); errno == 0 {
			released += int(m.end - m.start)
		}
	}
	return released
}

// mapping is one /proc/self/smaps entry of the executable.
type mapping struct {
	start, end uintptr
	writable   bool
	anonymous  int64 // kB of anonymous pages, i.e. copied on write
}

// exeMappings parses the smaps entries whose path is exe.
func exeMappings(smaps []byte, exe string) []mapping {
	var out []mapping
	var cur *mapping
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if bounds, ok := strings.CutSuffix(fields[0], ":"); ok {
			if cur != nil && bounds == "Anonymous" && len(fields) >= 2 {
				cur.anonymous, _ = strconv.ParseInt(fields[1], 10, 64)
			}
			continue
		}
		cur = nil
		start, end, ok := strings.Cut(fields[0], "-")
		if !ok || len(fields) < 6 || strings.Join(fields[5:], " ") != exe {
			continue
		}
		s, err1 := strconv.ParseUint(start, 16, 64)
		e, err2 := strconv.ParseUint(end, 16, 64)
		if err1 != nil || err2 != nil || e <= s {
			continue
		}
		out = append(out, mapping{start: uintptr(s), end: uintptr(e), writable: strings.Contains(fields[1], "w")})
		cur = &out[len(out)-1]
	}
	return out
}
