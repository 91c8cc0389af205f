package webhook

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/fsnotify/fsnotify"
)

// dirWatch watches the directories of the certificate files: the one each
// file is named in, where the kubelet's ..data swap, renames into place,
// writes in place, deletions and re-creations are events and whose watch
// survives them; and the one the file resolves to through symlinks, for
// writes to a linked file elsewhere. A directory that goes away loses its
// watch; sync sets it again once it is back.
type dirWatch struct {
	w *fsnotify.Watcher
	// watched are the directories added to w and not reported gone since.
	watched map[string]bool
}

// sync watches the directories files need now (links may point elsewhere
// since the last sync) and no others; it returns what it could not watch.
// A caller that syncs before reading the files misses no change made
// after its read.
func (d *dirWatch) sync(files []string) error {
	if d.w == nil {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			return fmt.Errorf("creating a file-system watcher: %w", err)
		}
		d.w, d.watched = w, map[string]bool{}
	}
	want := watchDirs(files)
	for dir := range d.watched {
		if !slices.Contains(want, dir) {
			_ = d.w.Remove(dir) // fails if its watch is already gone
			delete(d.watched, dir)
		}
	}
	var errs []error
	for _, dir := range want {
		if d.watched[dir] {
			continue
		}
		if err := d.w.Add(dir); err != nil {
			errs = append(errs, fmt.Errorf("watching %s: %w", dir, err))
			continue
		}
		d.watched[dir] = true
	}
	return errors.Join(errs...)
}

// saw updates the watched set from e: a watched directory deleted, or
// moved (its watch then follows it to another name), is watched again by
// the next sync, if still needed.
func (d *dirWatch) saw(e fsnotify.Event) {
	if (e.Has(fsnotify.Remove) || e.Has(fsnotify.Rename)) && d.watched[e.Name] {
		_ = d.w.Remove(e.Name)
		delete(d.watched, e.Name)
	}
}

// events and errs are nil, so never ready, without a watcher.
func (d *dirWatch) events() <-chan fsnotify.Event {
	if d.w == nil {
		return nil
	}
	return d.w.Events
}

func (d *dirWatch) errs() <-chan error {
	if d.w == nil {
		return nil
	}
	return d.w.Errors
}

// close drops the watcher; the next sync creates another.
func (d *dirWatch) close() {
	if d.w != nil {
		_ = d.w.Close()
		d.w, d.watched = nil, nil
	}
}

// watchDirs are the directories to watch for files, in order, each once:
// each file's own, then the one it resolves to through symlinks (none while
// it resolves to nothing: its own directory then sees it come back).
func watchDirs(files []string) []string {
	var dirs []string
	add := func(dir string) {
		if !slices.Contains(dirs, dir) {
			dirs = append(dirs, dir)
		}
	}
	for _, f := range files {
		add(filepath.Dir(f))
		if target, err := filepath.EvalSymlinks(f); err == nil {
			add(filepath.Dir(target))
		}
	}
	return dirs
}
