package webhook

import (
	"context"
	"time"
)

// The certificate files are reloaded by one goroutine, servingTLS.Run, on
// file-system events and on the --cert-reload-interval poll.
//
// k8s.io/apiserver's DynamicCertKeyPairContent and DynamicFileCAContent load
// their files (read them, compare with the current content, store the new
// one) with no lock between the read and the store: two loads of one content
// at once can store out of order, the one that read the files before a
// rotation last, and the server then serves the older pair, or trusts the
// older client CA, until the next reload. Their Run loads from a worker of
// its own on file-system events; the poll would load from another goroutine.
// So their Run is never started: Run watches the files' directories itself
// and calls RunOnce, one load at a time.

const (
	// reloadDebounce gathers the events of one update into one reload: the
	// kubelet's Secret volume writer makes several (a data directory, a
	// ..data link swapped, the old directory removed), a writer of tls.crt
	// then tls.key two. A reload reads what the files hold then, so one
	// after an update's last event sees all of it.
	reloadDebounce = 100 * time.Millisecond
	// firstRetry and maxRetry bound the wait before a reload that failed,
	// or a watch that could not be set, is tried again (doubling from the
	// first): the poll may be off, and a file event may never come (a
	// watch on a deleted directory sees nothing until it is set again).
	firstRetry = time.Second
	maxRetry   = time.Minute
)

// Run reloads the files until ctx is done, in this goroutine only, so that
// no two loads of one content overlap (see above): after file-system
// events in their directories (gathered for reloadDebounce), every
// interval (never if 0), and, after a failed reload or watch, again with a
// growing wait. A reload first re-establishes the directory watches, then
// calls each content's RunOnce.
func (s *servingTLS) Run(ctx context.Context) {
	go s.controller.Run(1, ctx.Done())
	defer s.releaseQueues(ctx)
	var tick <-chan time.Time
	if s.interval > 0 {
		ticker := time.NewTicker(s.interval)
		defer ticker.Stop()
		tick = ticker.C
	}
	var watch dirWatch
	defer watch.close()
	var due alarm
	defer due.clear()
	due.within(0, "start") // the files may have changed since newServingTLS read them
	var retry time.Duration
	watchFailed := false
	for {
		var trigger string
		select {
		case <-ctx.Done():
			return
		case <-tick:
			trigger = "poll"
		case <-due.c():
			trigger = due.why
		case e, ok := <-watch.events():
			if !ok { // the watcher closed: the reload creates another
				watch.close()
			} else {
				watch.saw(e)
			}
			due.within(reloadDebounce, "file change")
			continue
		case err, ok := <-watch.errs():
			if !ok {
				watch.close()
			} else {
				// Events may have been lost (fsnotify.ErrEventOverflow).
				s.log.Error(err, "Watching the certificate files reported an error; reloading them")
			}
			due.within(reloadDebounce, "file change")
			continue
		}
		due.clear()
		var watchErr error
		if !s.pollOnly {
			watchErr = watch.sync(s.watchFiles)
		}
		switch {
		case watchErr != nil:
			s.log.Error(watchErr, "Watching the certificate files failed; retrying", "files", s.watchFiles)
			watchFailed = true
		case watchFailed:
			s.log.Info("Watching the certificate files again", "files", s.watchFiles)
			watchFailed = false
		}
		if loaded := s.reload(ctx, trigger); loaded && watchErr == nil {
			retry = 0
		} else {
			retry = nextRetry(retry)
			due.within(retry, "retry")
		}
	}
}

// reload calls each content's RunOnce, which stores and announces content
// that changed, and reports whether all of them loaded. Each failure is
// logged; only the poll's are counted in
// claimbridge_certificate_reloads_total{result="error"}: a file event's
// reload fails on the way when a writer of tls.crt then tls.key is between
// the two, and that is no error.
func (s *servingTLS) reload(ctx context.Context, trigger string) bool {
	loaded := true
	for _, f := range s.files {
		err := f.RunOnce(ctx)
		if err == nil {
			continue
		}
		loaded = false
		if trigger == "poll" {
			s.metrics.certReload(err)
		}
		name := ""
		if n, ok := f.(interface{ Name() string }); ok {
			name = n.Name()
		}
		s.log.Error(err, "Reloading a certificate file failed; keeping the current content", "files", name, "trigger", trigger)
	}
	return loaded
}

// releaseQueues shuts down the work queues the contents' constructors
// started for their own Run, which is never started (see above): their
// Run with ctx done loads nothing, as its wait.Until loops return before
// calling their function once ctx is done, and shuts its queue down as it
// returns.
func (s *servingTLS) releaseQueues(ctx context.Context) {
	for _, f := range s.files {
		f.Run(ctx, 1)
	}
}

// alarm is when the next reload is due: asked for several times, the
// earliest.
type alarm struct {
	timer *time.Timer
	at    time.Time // zero: none due
	why   string
}

// within makes a reload due, for why, no later than d from now.
func (a *alarm) within(d time.Duration, why string) {
	at := time.Now().Add(d)
	if !a.at.IsZero() && !at.Before(a.at) {
		return
	}
	a.at, a.why = at, why
	if a.timer == nil {
		a.timer = time.NewTimer(d)
		return
	}
	a.timer.Reset(d)
}

// c fires when the reload is due; nil, never ready, when none is.
func (a *alarm) c() <-chan time.Time {
	if a.at.IsZero() {
		return nil
	}
	return a.timer.C
}

// clear makes no reload due: one has just read the files.
func (a *alarm) clear() {
	if a.timer != nil {
		a.timer.Stop()
	}
	a.at = time.Time{}
}

// nextRetry doubles the wait before the next retry, from firstRetry up to
// maxRetry.
func nextRetry(last time.Duration) time.Duration {
	return min(max(2*last, firstRetry), maxRetry)
}
