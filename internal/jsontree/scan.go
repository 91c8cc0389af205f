package jsontree

import "bytes"

// The scanner finds where values are in a JSON text without decoding them.
// It checks the structure (brackets, quotes, colons and commas) but not the
// contents of strings or the syntax of numbers and literals: callers use it
// on text Unmarshal has accepted, to locate parts of a document they have
// already decoded. On text it cannot follow it returns -1; it never panics.

// ScanObject calls member for each member of the JSON object that starts at
// data[i] (after optional whitespace), in order, with the member's key as
// written (between the quotes, escapes not decoded) and the span
// data[start:end] of its value. It returns the index just past the object,
// or -1 if data[i:] does not start with an object it can follow.
func ScanObject(data []byte, i int, member func(key []byte, start, end int)) int {
	i, empty := openContainer(data, i, '{', '}')
	if i < 0 || empty {
		return i
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1
		}
		keyStart := i
		keyEnd := skipString(data, keyStart)
		if keyEnd < 0 {
			return -1
		}
		i = skipSpace(data, keyEnd)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		start := skipSpace(data, i+1)
		end := skipValue(data, start)
		if end < 0 {
			return -1
		}
		if member != nil {
			member(data[keyStart+1:keyEnd-1], start, end)
		}
		var more bool
		if i, more = afterValue(data, end, '}'); !more {
			return i
		}
	}
}

// ScanArray calls elem with the span data[start:end] of each element of the
// JSON array that starts at data[i] (after optional whitespace), in order.
// It returns the index just past the array, or -1 if data[i:] does not
// start with an array it can follow.
func ScanArray(data []byte, i int, elem func(start, end int)) int {
	i, empty := openContainer(data, i, '[', ']')
	if i < 0 || empty {
		return i
	}
	for {
		end := skipValue(data, i)
		if end < 0 {
			return -1
		}
		if elem != nil {
			elem(i, end)
		}
		var more bool
		if i, more = afterValue(data, end, ']'); !more {
			return i
		}
	}
}

// openContainer reads the opening bracket at data[i] (after optional
// whitespace): the index of the first member or element, or, if empty, the
// index just past the closing bracket; -1 without the opening bracket.
func openContainer(data []byte, i int, opening, closing byte) (j int, empty bool) {
	if i = skipSpace(data, i); i >= len(data) || data[i] != opening {
		return -1, false
	}
	if i = skipSpace(data, i+1); i < len(data) && data[i] == closing {
		return i + 1, true
	}
	return i, false
}

// afterValue follows a member or element that ends at end: more and the
// index of the next one after a comma, or the index just past closing, or
// -1.
func afterValue(data []byte, end int, closing byte) (i int, more bool) {
	if i = skipSpace(data, end); i >= len(data) {
		return -1, false
	}
	switch data[i] {
	case ',':
		return skipSpace(data, i+1), true
	case closing:
		return i + 1, false
	}
	return -1, false
}

// skipValue returns the index just past the value at data[i] (no leading
// whitespace), or -1.
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return -1
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{':
		return ScanObject(data, i, nil)
	case '[':
		return ScanArray(data, i, nil)
	}
	j := i // a number or a literal: up to the next delimiter
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r', ':', '"', '{', '[':
			if j == i {
				return -1
			}
			return j
		}
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipString returns the index just past the string whose opening quote is
// data[i], or -1.
func skipString(data []byte, i int) int {
	for j := i + 1; j < len(data); {
		q := bytes.IndexByte(data[j:], '"')
		if q < 0 {
			return -1
		}
		q += j
		backslashes := 0 // a quote after an odd number of them is escaped
		for p := q - 1; p > i && data[p] == '\\'; p-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
	return -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}
