package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// toUTF8 returns data as UTF-8 without a byte order mark, as kubectl reads a
// manifest (k8s.io/cli-runtime's BOMOverride): a UTF-8 mark is dropped, and
// UTF-16 with a mark (what Windows PowerShell 5 writes for
// `kubectl get -o yaml > file`) is decoded. Without this, the YAML parser
// would decode UTF-16 itself but the "---" lines would go unseen, and every
// document after the first would be lost; and JSON after a UTF-8 mark would
// be read as YAML.
func toUTF8(data []byte) ([]byte, error) {
	if rest, ok := bytes.CutPrefix(data, []byte{0xEF, 0xBB, 0xBF}); ok {
		return rest, nil
	}
	bigEndian := bytes.HasPrefix(data, []byte{0xFE, 0xFF})
	if !bigEndian && !bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return data, nil
	}
	data = data[2:]
	if len(data)%2 != 0 {
		return nil, errors.New("UTF-16 input (it starts with a byte order mark) has an odd number of bytes")
	}
	out := make([]byte, 0, len(data))
	line := 1
	for i := 0; i < len(data); i += 2 {
		r := unit(data[i:], bigEndian)
		if utf16.IsSurrogate(r) {
			if i+2 < len(data) {
				r = utf16.DecodeRune(r, unit(data[i+2:], bigEndian))
				i += 2
			} else {
				r = utf8.RuneError
			}
			if r == utf8.RuneError {
				return nil, fmt.Errorf("line %d: unpaired UTF-16 surrogate", line)
			}
		}
		if r == '\n' {
			line++
		}
		out = utf8.AppendRune(out, r)
	}
	return out, nil
}

func unit(b []byte, bigEndian bool) rune {
	if bigEndian {
		return rune(b[0])<<8 | rune(b[1])
	}
	return rune(b[1])<<8 | rune(b[0])
}

// checkUTF8 refuses bytes that are not UTF-8 (a Latin-1 file, say): YAML
// refuses them without naming the line, and encoding/json would quietly
// turn them into U+FFFD.
func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			line := 1 + bytes.Count(data[:i], []byte("\n"))
			return fmt.Errorf("line %d: not UTF-8 text: byte %#x (save the file as UTF-8)", line, data[i])
		}
		i += size
	}
	return nil
}
