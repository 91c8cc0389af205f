package cli

// documentDone, when set (by tests), is called after each input document
// has been processed, so that a test can sample the heap along the
// pipeline: what convert, migrate and validate hold across documents is
// what bounds their memory on large exports.
var documentDone func()

func afterDocument() {
	if documentDone != nil {
		documentDone()
	}
}
