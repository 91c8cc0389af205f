package webhook

import (
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"time"
)

// Temporary: profile a fuzz worker (removed before handing back).
func init() {
	if os.Getenv("FUZZDEBUG") == "" || !slices.Contains(os.Args, "-test.fuzzworker=true") && !slices.Contains(os.Args, "-test.fuzzworker") {
		return
	}
	pid := os.Getpid()
	f, _ := os.Create(fmt.Sprintf("/tmp/dbg/cpu-%d.prof", pid))
	pprof.StartCPUProfile(f)
	go func() {
		for i := 0; ; i++ {
			time.Sleep(5 * time.Second)
			g, _ := os.Create(fmt.Sprintf("/tmp/dbg/gor-%d-%d.txt", pid, i))
			pprof.Lookup("goroutine").WriteTo(g, 2)
			g.Close()
			if i == 2 {
				pprof.StopCPUProfile()
				f.Close()
			}
		}
	}()
}
