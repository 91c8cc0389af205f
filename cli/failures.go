package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/claimbridge/claimbridge/conversion"
)

// failures collects the objects convert or migrate could not process, so that
// one run names every one of them rather than stopping at the first: each is
// printed as it is met, in input order, and nothing is written when there is
// any. Malformed input (wrong JSON types) makes the exit code 2, any other
// failure 1.
type failures struct {
	w     io.Writer
	count int
	code  int
}

// add prints err, the failure of one object (its message names the position).
func (f *failures) add(err error) {
	code := ExitInvalid
	var malformed *conversion.MalformedError
	if errors.As(err, &malformed) {
		code = ExitBadInput
	}
	f.code = max(f.code, code)
	f.count++
	fmt.Fprintln(f.w, "Error:", err)
}

// result is nil without failures. With one, the error printed already stands
// alone; with several, a last line counts them.
func (f *failures) result(verb string) error {
	switch f.count {
	case 0:
		return nil
	case 1:
		return withCode(f.code, errors.New(""))
	}
	return withCode(f.code, fmt.Errorf("%d objects could not be %s; nothing was written", f.count, verb))
}
