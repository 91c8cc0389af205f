package jsontree

import (
	"encoding/json"
	"errors"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

var errSyntax = errors.New("invalid JSON")

// Unmarshal decodes one JSON value, with optional surrounding whitespace,
// into what encoding/json with UseNumber decodes into an interface{}: the
// same maps, slices, strings (invalid UTF-8 and lone surrogates replaced by
// U+FFFD), json.Numbers, bools and nils; a repeated key keeps its last
// value. Its error says only that data is not one valid JSON value: callers
// that report errors decode again with encoding/json for the message.
// Nesting is limited to maxDepth arrays and objects.
func Unmarshal(data []byte, maxDepth int) (interface{}, error) {
	return unmarshal(data, string(data), maxDepth, nil)
}

// UnmarshalOwned is Unmarshal without the copy of data that the result's
// strings share: they share data's memory instead, so the caller must not
// modify data afterwards (a request body read into its own buffer, say).
func UnmarshalOwned(data []byte, maxDepth int) (interface{}, error) {
	return (*Recycler)(nil).UnmarshalOwned(data, maxDepth)
}

// UnmarshalString is Unmarshal of a string, without copying it.
func UnmarshalString(text string, maxDepth int) (interface{}, error) {
	return unmarshal(unsafe.Slice(unsafe.StringData(text), len(text)), text, maxDepth, nil)
}

// unmarshal decodes data, whose bytes text holds (the result's strings are
// substrings of text), taking small maps from rc (which may be nil); data
// is only read.
func unmarshal(data []byte, text string, maxDepth int, rc *Recycler) (interface{}, error) {
	return unmarshalOpt(data, text, maxDepth, rc, false)
}

// UnmarshalOwnedUniqueKeys is UnmarshalOwned that also fails on an object
// with a repeated key (where encoding/json, decoding into structs, merges).
func UnmarshalOwnedUniqueKeys(data []byte, maxDepth int) (interface{}, error) {
	return unmarshalOpt(data, unsafe.String(unsafe.SliceData(data), len(data)), maxDepth, nil, true)
}

func unmarshalOpt(data []byte, text string, maxDepth int, rc *Recycler, uniqueKeys bool) (interface{}, error) {
	sc := scratchPool.Get().(*scratch)
	defer sc.put()
	d := decoder{data: data, text: text, maxDepth: maxDepth, elems: sc.elems[:0], members: sc.members[:0], rc: rc, uniqueKeys: uniqueKeys}
	defer func() { // after an error, the stacks still hold values
		clear(d.elems)
		clear(d.members)
		sc.elems, sc.members = d.elems[:0], d.members[:0]
	}()
	d.skipSpace()
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.data) {
		return nil, errSyntax
	}
	return v, nil
}

// recentBits sizes decoder.recent: 2^recentBits slots.
const recentBits = 6

type decoder struct {
	data []byte
	// text is data as one string: strings without escapes and numbers are
	// substrings of it, so that each costs no allocation of its own (only
	// its box in an interface{}); the tree keeps text alive while it lives.
	text     string
	pos      int
	maxDepth int
	// elems holds the elements of the arrays being decoded (nested arrays
	// above their parents'), so that each array is allocated once at its
	// final length.
	elems []interface{}
	// members holds the members of the objects being decoded, likewise, so
	// that each map is made at its final size (no growing past 8 members).
	members []member
	// recent holds string values decoded (boxed), each in the slot its
	// hash picks, so that a value repeated in the document (a driver, a
	// pool, a request name) is usually allocated once, for one comparison.
	recent [1 << recentBits]interface{}
	// rc, if not nil, gives the maps of up to eight members.
	rc *Recycler
	// uniqueKeys fails objects with a repeated key.
	uniqueKeys bool
}

// scratch is a decoder's stacks, reused across calls.
type scratch struct {
	elems   []interface{}
	members []member
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{elems: make([]interface{}, 0, 64), members: make([]member, 0, 64)}
}}

// put returns sc to the pool unless a huge document grew it; the stacks are
// empty and cleared (the decoder clears what it pops).
func (sc *scratch) put() {
	if cap(sc.elems) <= 1<<14 && cap(sc.members) <= 1<<14 {
		scratchPool.Put(sc)
	}
}

type member struct {
	key   string
	value interface{}
}

func (d *decoder) skipSpace() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value(depth int) (interface{}, error) {
	if d.pos >= len(d.data) {
		return nil, errSyntax
	}
	switch c := d.data[d.pos]; {
	case c == '{':
		return d.object(depth + 1)
	case c == '[':
		return d.array(depth + 1)
	case c == '"':
		return d.stringValue()
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number()
	case c == 't':
		return true, d.literal("true")
	case c == 'f':
		return false, d.literal("false")
	case c == 'n':
		return nil, d.literal("null")
	}
	return nil, errSyntax
}

func (d *decoder) literal(lit string) error {
	if len(d.data)-d.pos < len(lit) || string(d.data[d.pos:d.pos+len(lit)]) != lit {
		return errSyntax
	}
	d.pos += len(lit)
	return nil
}

func (d *decoder) object(depth int) (interface{}, error) {
	if depth > d.maxDepth {
		return nil, errSyntax
	}
	d.pos++ // {
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return d.rc.newMap(0), nil
	}
	mark := len(d.members)
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, errSyntax
		}
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, errSyntax
		}
		d.pos++
		d.skipSpace()
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.members = append(d.members, member{k, v})
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, errSyntax
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case '}':
			d.pos++
			ms := d.members[mark:]
			m := d.rc.newMap(len(ms))
			for _, e := range ms { // in order: a repeated key keeps its last value
				m[e.key] = e.value
			}
			dup := d.uniqueKeys && len(m) != len(ms)
			clear(ms)
			d.members = d.members[:mark]
			if dup {
				return nil, errSyntax
			}
			return m, nil
		default:
			return nil, errSyntax
		}
	}
}

func (d *decoder) array(depth int) (interface{}, error) {
	if depth > d.maxDepth {
		return nil, errSyntax
	}
	d.pos++ // [
	d.skipSpace()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		return make([]interface{}, 0), nil
	}
	mark := len(d.elems)
	for {
		v, err := d.value(depth)
		if err != nil {
			return nil, err
		}
		d.elems = append(d.elems, v)
		d.skipSpace()
		if d.pos >= len(d.data) {
			return nil, errSyntax
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.skipSpace()
		case ']':
			d.pos++
			s := make([]interface{}, len(d.elems)-mark)
			copy(s, d.elems[mark:])
			clear(d.elems[mark:])
			d.elems = d.elems[:mark]
			return s, nil
		default:
			return nil, errSyntax
		}
	}
}

func (d *decoder) number() (interface{}, error) {
	start := d.pos
	data := d.data
	i := d.pos
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return nil, errSyntax
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return nil, errSyntax
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return nil, errSyntax
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	d.pos = i
	return json.Number(d.text[start:i]), nil
}

// stringValue decodes the string value at d.pos (which is '"'), as string
// does. A known string, or one equal to the string its hash's slot of
// recent holds, is returned as the interface{} already holding it, without
// allocating.
func (d *decoder) stringValue() (interface{}, error) {
	data := d.data
	for i := d.pos + 1; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			b := data[d.pos+1 : i]
			h := knownHash(b)
			if e := lookupKnownAt(b, h); e != nil {
				d.pos = i + 1
				return e.value, nil
			}
			slot := &d.recent[h>>(knownBits-recentBits)]
			if s, ok := (*slot).(string); ok && s == string(b) {
				d.pos = i + 1
				return *slot, nil
			}
			var v interface{} = d.text[d.pos+1 : i]
			d.pos = i + 1
			*slot = v
			return v, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return d.string()
}

// key decodes the object key at d.pos (which is '"'), as string does, and
// returns the known table's string for a known one.
func (d *decoder) key() (string, error) {
	data := d.data
	for i := d.pos + 1; i < len(data); i++ {
		c := data[i]
		if c == '"' {
			if e := lookupKnown(data[d.pos+1 : i]); e != nil {
				d.pos = i + 1
				return e.s, nil
			}
			break
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
	}
	return d.string()
}

// string decodes the string at d.pos (which is '"').
func (d *decoder) string() (string, error) {
	d.pos++
	start := d.pos
	data := d.data
	// Fast path: printable ASCII without escapes.
	i := start
	for i < len(data) {
		c := data[i]
		if c == '"' {
			d.pos = i + 1
			return d.text[start:i], nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		i++
	}
	buf := make([]byte, 0, i-start+16)
	buf = append(buf, data[start:i]...)
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			return "", errSyntax
		case c == '\\':
			i++
			if i >= len(data) {
				return "", errSyntax
			}
			switch data[i] {
			case '"', '\\', '/':
				buf = append(buf, data[i])
				i++
			case 'b':
				buf = append(buf, '\b')
				i++
			case 'f':
				buf = append(buf, '\f')
				i++
			case 'n':
				buf = append(buf, '\n')
				i++
			case 'r':
				buf = append(buf, '\r')
				i++
			case 't':
				buf = append(buf, '\t')
				i++
			case 'u':
				r, ok := hex4(data, i+1)
				if !ok {
					return "", errSyntax
				}
				i += 5
				if utf16.IsSurrogate(r) {
					r2, ok := rune(-1), false
					if i+1 < len(data) && data[i] == '\\' && data[i+1] == 'u' {
						r2, ok = hex4(data, i+2)
					}
					if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
						i += 6
						r = dec
					} else {
						r = utf8.RuneError
					}
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", errSyntax
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, data[i:i+size]...)
			}
			i += size
		}
	}
	return "", errSyntax
}

func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
