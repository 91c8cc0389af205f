package cli

// documentDone is called after each input document has been processed; a
// test sets it to sample the heap along the pipeline: what convert, migrate
// and validate hold across documents is what bounds their memory on large
// exports.
var documentDone = func() {}
