package manifest

import (
	"bytes"
	"encoding/json"
)

// splitJSON reads consecutive JSON values; ok is false when data is not a
// clean JSON stream, and then end is where the values read end.
//
// The values are those json.Decoder reads one after another, but each
// chunk is a piece of data, not a copy: the decoder held the whole value in
// its buffer (grown by doubling, 64 MiB for a 41 MB export) and then copied
// it into a json.RawMessage, three times the source at once. Here
// jsonValueEnd finds where the value that starts at a byte would end, and
// json.Valid, the decoder's own scanner (its nesting limit too), judges the
// piece: a valid piece is what the decoder reads there (see jsonValueEnd),
// and an invalid one means the decoder fails there too.
func splitJSON(data []byte) (chunks []chunk, end int, ok bool) {
	// The lines before data[counted:]: each value's line is counted on from
	// the one before, not from the start (a stream of n values would be
	// read n/2 times).
	line, counted := 1, 0
	for {
		// The value starts at the first non-space byte after the previous
		// value (the decoder's spaces are these four).
		start := len(data) - len(bytes.TrimLeft(data[end:], " \t\r\n"))
		if start == len(data) {
			return chunks, end, true
		}
		stop, found := jsonValueEnd(data, start)
		if !found || !json.Valid(data[start:stop]) {
			return chunks, end, false
		}
		line += countLines(data[counted:start])
		counted = start
		chunks = append(chunks, chunk{index: len(chunks) + 1, line: line, data: data[start:stop:stop], json: true})
		end = stop
	}
}

// jsonValueEnd returns where the JSON value that starts at data[start] (not
// a space) ends, if it is valid: found is false, or the piece invalid, when
// it is not. On a valid value it ends where json.Decoder ends it: an object
// or array at the bracket that closes it (strings skipped), a string at its
// closing quote, true, false and null after their letters, and a number
// after the longest run its grammar allows, as the decoder's scanner reads
// one (after "0" a digit ends it; a '.' or an exponent, once begun, must
// have digits). Whatever follows a top-level value starts the next one.
func jsonValueEnd(data []byte, start int) (end int, found bool) {
	switch c := data[start]; {
	case c == '{' || c == '[':
		depth := 0
		for i := start; i < len(data); i++ {
			switch data[i] {
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			case '"':
				if i, found = jsonStringEnd(data, i); !found {
					return 0, false
				}
				i-- // the loop's i++ moves to the byte after the string
			}
		}
		return 0, false
	case c == '"':
		return jsonStringEnd(data, start)
	case c == 't' || c == 'f' || c == 'n':
		end := start + len("true")
		if c == 'f' {
			end = start + len("false")
		}
		return end, end <= len(data)
	case c == '-' || '0' <= c && c <= '9':
		return jsonNumberEnd(data, start), true
	}
	return 0, false
}

// jsonStringEnd returns the end of the string whose opening quote is
// data[start]: after the first quote not escaped by a backslash.
func jsonStringEnd(data []byte, start int) (end int, found bool) {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return 0, false
}

// jsonNumberEnd returns the end of the number that starts at data[start]:
// -?(0|[1-9][0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]*)?, the longest run (digits
// missing after "-", "." or an exponent make the piece invalid).
func jsonNumberEnd(data []byte, start int) int {
	i := start
	digits := func() {
		for i < len(data) && '0' <= data[i] && data[i] <= '9' {
			i++
		}
	}
	if data[i] == '-' {
		i++
	}
	if i < len(data) && data[i] == '0' {
		i++
	} else {
		digits()
	}
	if i < len(data) && data[i] == '.' {
		i++
		digits()
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		digits()
	}
	return i
}
