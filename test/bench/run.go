package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// results[row][mode] holds one value per round.
type results struct {
	rows []string
	vals map[string]map[mode][]float64
}

func (r *results) add(row string, m mode, v float64) {
	if r.vals == nil {
		r.vals = map[string]map[mode][]float64{}
	}
	if r.vals[row] == nil {
		r.vals[row] = map[mode][]float64{}
		r.rows = append(r.rows, row)
	}
	r.vals[row][m] = append(r.vals[row][m], v)
}

type snapshot struct {
	reviews, objects     float64
	cacheHits            float64 // objects claimbridge answered from its conversion cache
	timerSum, timerCount float64
	cpu                  map[string]float64
}

func (b *bench) snapshot(ctx context.Context, m mode) (snapshot, error) {
	s := snapshot{cpu: map[string]float64{}}
	var err error
	if s.reviews, s.objects, err = b.webhookCounts(m); err != nil {
		return s, err
	}
	if m == modeClaimbridge {
		text, err := httpGet(b.cbMetrics, nil)
		if err != nil {
			return s, err
		}
		s.cacheHits = promSum(text, "claimbridge_conversion_cache_lookups_total", `result="hit"`)
	}
	text, err := b.apiserverMetrics(ctx)
	if err != nil {
		return s, err
	}
	s.timerSum = promSum(text, "apiserver_crd_conversion_webhook_duration_seconds_sum")
	s.timerCount = promSum(text, "apiserver_crd_conversion_webhook_duration_seconds_count")
	for name, pid := range b.pids {
		if s.cpu[name], err = cpuSeconds(pid); err != nil {
			return s, err
		}
	}
	return s, nil
}

func run(ctx context.Context, cfg config) error {
	b := &bench{cfg: cfg}
	stop, err := b.setup(ctx)
	if err != nil {
		if stop != nil {
			stop()
		}
		return err
	}
	defer stop()
	time.Sleep(2 * time.Second)
	idleRSS, _, err := memory(b.pids["claimbridge"])
	if err != nil {
		return err
	}
	logf("storage mode; creating %d v1alpha3 claims with allocations", cfg.claims)
	if err := b.setConversion(ctx, modeStorage); err != nil {
		return err
	}
	if _, err := b.waitActiveLoose(ctx); err != nil {
		return err
	}
	if err := b.load(ctx); err != nil {
		return fmt.Errorf("creating claims: %w", err)
	}
	var res results
	for round := 0; round < cfg.rounds; round++ {
		for i := range modes {
			m := modes[(i+round)%len(modes)] // rotate the order every round
			logf("round %d/%d: %s", round+1, cfg.rounds, m)
			if err := b.block(ctx, m, round, &res); err != nil {
				return fmt.Errorf("round %d, %s: %w", round+1, m, err)
			}
		}
	}
	var status results
	if err := b.statusRounds(ctx, &status); err != nil {
		return err
	}
	if err := b.guardRounds(ctx); err != nil {
		return err
	}
	time.Sleep(5 * time.Second)
	endRSS, peakRSS, err := memory(b.pids["claimbridge"])
	if err != nil {
		return err
	}
	nullRSS, nullPeak, _ := memory(b.pids["null"])
	fmt.Printf("\n%d claims, %d rounds (blocks interleaved, order rotated each round), %d GETs and %d creates per version and block; medians over rounds.\n\n",
		cfg.claims, cfg.rounds, cfg.gets, cfg.creates)
	res.print("storage (v1alpha3)")
	fmt.Printf("\nStatus writes through v1alpha3 with the conversion off, %d claims × %d writes per block; admission webhooks: none (storage), null or claimbridge.\n\n",
		cfg.status, len(statusSteps))
	status.print("no admission webhook")
	fmt.Printf("\nclaimbridge RSS: idle after start %.1f MiB, idle after the run %.1f MiB, peak %.1f MiB (null webhook: %.1f MiB, peak %.1f MiB)\n",
		idleRSS, endRSS, peakRSS, nullRSS, nullPeak)
	if cfg.soak > 0 {
		return b.soak(ctx)
	}
	return nil
}

// statusRounds runs the status block of each mode, round after round, with
// the conversion off.
func (b *bench) statusRounds(ctx context.Context, res *results) error {
	b.mode = modeStorage
	updated := time.Now()
	if err := b.setConversion(ctx, modeStorage); err != nil {
		return err
	}
	if _, err := b.waitActive(ctx, modeStorage, updated); err != nil {
		return err
	}
	for round := 0; round < b.cfg.rounds; round++ {
		for i := range modes {
			m := modes[(i+round)%len(modes)]
			logf("status round %d/%d: %s", round+1, b.cfg.rounds, m)
			if err := b.statusBlock(ctx, m, res); err != nil {
				return fmt.Errorf("status round %d, %s: %w", round+1, m, err)
			}
		}
	}
	return nil
}

// waitActiveLoose waits for the storage mode before any claim exists.
func (b *bench) waitActiveLoose(ctx context.Context) (time.Duration, error) {
	n := b.cfg.claims
	b.cfg.claims = 0
	defer func() { b.cfg.claims = n }()
	start := time.Now()
	for {
		if b.cachesReady(ctx) {
			return time.Since(start), nil
		}
		if time.Since(start) > 5*time.Minute {
			return 0, fmt.Errorf("caches not ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (b *bench) block(ctx context.Context, m mode, round int, res *results) error {
	b.mode = m
	before, err := b.snapshot(ctx, m)
	if err != nil {
		return err
	}
	rv, err := b.currentRV(ctx)
	if err != nil {
		return err
	}
	updated := time.Now()
	if err := b.setConversion(ctx, m); err != nil {
		return err
	}
	ready, err := b.waitActive(ctx, m, updated)
	if err != nil {
		return err
	}
	res.add("all watch caches ready after a CRD update (s)", m, ready.Seconds())
	mid, err := b.snapshot(ctx, m)
	if err != nil {
		return err
	}
	if m != modeStorage {
		res.add("reviews while the caches rebuild", m, mid.reviews-before.reviews)
	}
	if m == modeClaimbridge && mid.reviews > before.reviews {
		res.add("share answered from the conversion cache while the caches rebuild", m, (mid.cacheHits-before.cacheHits)/(mid.reviews-before.reviews))
	}
	for _, v := range versionsOf(m) {
		err := b.versionOps(ctx, v, rv, func(op string, val float64) {
			if m == modeStorage {
				res.add(op+" — v1alpha1", m, val)
				res.add(op+" — v1alpha2", m, val)
				return
			}
			res.add(op+" — "+v, m, val)
		})
		if err != nil {
			return err
		}
	}
	createVersion := "v1alpha1"
	if m == modeStorage {
		createVersion = "v1alpha3"
	}
	d, err := b.creates(ctx, createVersion, round)
	if err != nil {
		return err
	}
	res.add("create through v1alpha1 p50 (ms)", m, ms(d))
	if d, err = b.creates(ctx, "v1alpha3", round); err != nil {
		return err
	}
	res.add("create through v1alpha3 p50 (ms)", m, ms(d))
	after, err := b.snapshot(ctx, m)
	if err != nil {
		return err
	}
	if m != modeStorage {
		reviews := after.reviews - mid.reviews
		res.add("reviews during the operations", m, reviews)
		if m == modeClaimbridge && reviews > 0 {
			res.add("share answered from the conversion cache during the operations", m, (after.cacheHits-mid.cacheHits)/reviews)
		}
		if reviews > 0 {
			res.add("objects per review", m, (after.objects-mid.objects)/reviews)
			res.add("webhook CPU per review (ms)", m, 1000*(after.cpu[string(m)]-mid.cpu[string(m)])/reviews)
		}
		if n := after.timerCount - mid.timerCount; n > 0 {
			res.add("apiserver timer per review (ms)", m, 1000*(after.timerSum-mid.timerSum)/n)
		}
		res.add("CPU s webhook (operations)", m, after.cpu[string(m)]-mid.cpu[string(m)])
	}
	res.add("CPU s kube-apiserver (operations)", m, after.cpu["kube-apiserver"]-mid.cpu["kube-apiserver"])
	res.add("CPU s etcd (operations)", m, after.cpu["etcd"]-mid.cpu["etcd"])
	return nil
}

func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// print writes the table; storage names the storage mode's column.
func (r *results) print(storage string) {
	w := os.Stdout
	fmt.Fprintf(w, "| operation — version | %s | null | claimbridge | claimbridge/null | claimbridge/storage |\n", storage)
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|")
	for _, row := range r.rows {
		cells := []string{row}
		med := map[mode]float64{}
		for _, m := range modes {
			v, ok := median(r.vals[row][m])
			if !ok {
				cells = append(cells, "—")
				continue
			}
			med[m] = v
			cells = append(cells, format(v))
		}
		cells = append(cells, ratio(med, modeClaimbridge, modeNull), ratio(med, modeClaimbridge, modeStorage))
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
}

func ratio(med map[mode]float64, a, b mode) string {
	va, okA := med[a]
	vb, okB := med[b]
	if !okA || !okB || vb == 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f×", va/vb)
}

// soak loops the claimbridge operations for cfg.soak and reports RSS and
// goroutines at the start, the maximum and at the end.
func (b *bench) soak(ctx context.Context) error {
	b.mode = modeClaimbridge
	if err := b.setConversion(ctx, modeClaimbridge); err != nil {
		return err
	}
	if _, err := b.waitActive(ctx, modeClaimbridge, time.Now()); err != nil {
		return err
	}
	// Besides RSS, the Go runtime's own view: the heap in use, the memory
	// it holds from the OS (heap not yet released and stacks), and the
	// conversion cache's accounted bytes, so that growth can be placed.
	type point struct{ rss, file, goroutines, heapInuse, heapAlloc, held, cache float64 }
	sample := func() (p point, err error) {
		m, err := procStatus(b.pids["claimbridge"], "VmRSS", "RssFile")
		if err != nil {
			return p, err
		}
		p.rss, p.file = m["VmRSS"], m["RssFile"]
		text, err := httpGet(b.cbMetrics, nil)
		p.goroutines = promSum(text, "go_goroutines")
		p.heapInuse = promSum(text, "go_memstats_heap_inuse_bytes") / (1 << 20)
		p.heapAlloc = promSum(text, "go_memstats_heap_alloc_bytes") / (1 << 20)
		p.held = (promSum(text, "go_memstats_heap_sys_bytes") - promSum(text, "go_memstats_heap_released_bytes") +
			promSum(text, "go_memstats_stack_sys_bytes")) / (1 << 20)
		p.cache = promSum(text, "claimbridge_conversion_cache_bytes") / (1 << 20)
		return p, err
	}
	first, err := sample()
	if err != nil {
		return err
	}
	top, half := first, first
	logf("soak: looping the claimbridge operations for %s", b.cfg.soak)
	end := time.Now().Add(b.cfg.soak)
	halfway := time.Now().Add(b.cfg.soak / 2)
	start, nextTrace := time.Now(), time.Now().Add(time.Minute)
	for i := 0; time.Now().Before(end); i++ {
		for _, v := range versionsOf(modeClaimbridge) {
			if err := b.versionOps(ctx, v, "", func(string, float64) {}); err != nil {
				return err
			}
		}
		if _, err := b.creates(ctx, "v1alpha1", 1000+i); err != nil {
			return err
		}
		p, err := sample()
		if err != nil {
			return err
		}
		if time.Now().Before(halfway) {
			half = p // the last sample of the first half
		}
		if time.Now().After(nextTrace) { // a line a minute shows where growth stops
			nextTrace = nextTrace.Add(time.Minute)
			// In use minus allocated is the free room in the heap's spans:
			// fragmentation, and garbage already swept.
			logf("soak %s: RSS %.1f MiB (executable %.1f), Go heap in use %.1f (allocated %.1f), held %.1f, cache %.1f MiB, goroutines %.0f",
				time.Since(start).Round(time.Second), p.rss, p.file, p.heapInuse, p.heapAlloc, p.held, p.cache, p.goroutines)
		}
		top = point{max(top.rss, p.rss), max(top.file, p.file), max(top.goroutines, p.goroutines), max(top.heapInuse, p.heapInuse),
			max(top.heapAlloc, p.heapAlloc), max(top.held, p.held), max(top.cache, p.cache)}
	}
	time.Sleep(5 * time.Second)
	last, err := sample()
	if err != nil {
		return err
	}
	fmt.Printf("\nsoak %s: claimbridge RSS %.1f → %.1f MiB (max %.1f), goroutines %.0f → %.0f (max %.0f)\n",
		b.cfg.soak, first.rss, last.rss, top.rss, first.goroutines, last.goroutines, top.goroutines)
	fmt.Printf("soak %s: halfway RSS %.1f MiB, Go heap in use %.1f MiB, held %.1f MiB, cache %.1f MiB, goroutines %.0f\n",
		b.cfg.soak, half.rss, half.heapInuse, half.held, half.cache, half.goroutines)
	fmt.Printf("soak %s: of which the executable's pages (RssFile) %.1f → %.1f MiB (max %.1f)\n", b.cfg.soak, first.file, last.file, top.file)
	fmt.Printf("soak %s: Go heap in use %.1f → %.1f MiB (max %.1f), held from the OS %.1f → %.1f MiB (max %.1f), conversion cache %.1f → %.1f MiB (max %.1f)\n",
		b.cfg.soak, first.heapInuse, last.heapInuse, top.heapInuse, first.held, last.held, top.held, first.cache, last.cache, top.cache)
	return nil
}

func format(v float64) string {
	if v >= 100 || v <= -100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
