package conversion

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/claimbridge/claimbridge/api"
)

// diffSection records in r the patch that turns the section as mapped back
// (base) into the section as it is (target).
func (r *restore) diffSection(name string, base interface{}, baseOK bool, target interface{}, targetOK bool) {
	var ops []operation
	path := "/" + name
	switch {
	case !baseOK && !targetOK:
	case !targetOK:
		ops = append(ops, operation{Op: "remove", Path: path})
	case !baseOK:
		ops = append(ops, operation{Op: "add", Path: path, Value: target})
	default:
		ops = diff(path, base, target, ops)
	}
	if len(ops) > 0 {
		*r.section(name) = &sectionPatch{Base: sectionFingerprint(name, base, baseOK), Patch: ops}
	}
}

// diff appends the operations that turn base into target, in the order of
// target's keys, then the removals in key order. Operation values share
// target's containers: a patch is only ever encoded.
func diff(path string, base, target interface{}, ops []operation) []operation {
	d := differ{ops: ops, tokens: make([]string, 0, 16)}
	d.node(path, base, target)
	return d.ops
}

// differ is diff's walk. tokens lead from the section (root) to the node
// being compared; a path is built only for a difference.
type differ struct {
	ops    []operation
	tokens []string
}

// path is the pointer to the node being compared.
func (d *differ) path(root string) string {
	n := len(root)
	for _, t := range d.tokens {
		n += 1 + len(t)
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteString(root)
	for _, t := range d.tokens {
		b.WriteByte('/')
		if strings.ContainsAny(t, "~/") {
			t = escapePointer(t)
		}
		b.WriteString(t)
	}
	return b.String()
}

// childPath is the pointer to the node's child at token.
func (d *differ) childPath(root, token string) string {
	d.tokens = append(d.tokens, token)
	p := d.path(root)
	d.tokens = d.tokens[:len(d.tokens)-1]
	return p
}

// segment is the operations a map's child key produced.
type segment struct {
	key        string
	start, end int
}

// child compares the children of base and target at token.
func (d *differ) child(root, token string, base, target interface{}) {
	d.tokens = append(d.tokens, token)
	d.node(root, base, target)
	d.tokens = d.tokens[:len(d.tokens)-1]
}

func (d *differ) node(root string, base, target interface{}) {
	if sameContainer(base, target) {
		return // shared: equal
	}
	switch b := base.(type) {
	case map[string]interface{}:
		t, ok := target.(map[string]interface{})
		if !ok {
			break
		}
		var small [8]segment
		segs := small[:0]
		sorted := true
		common := 0 // keys of t that b has
		for k, tv := range t {
			start := len(d.ops)
			if bv, ok := b[k]; !ok {
				d.ops = append(d.ops, operation{Op: "add", Path: d.childPath(root, k), Value: tv})
			} else {
				common++
				d.child(root, k, bv, tv)
			}
			if len(d.ops) > start {
				if len(segs) > 0 && segs[len(segs)-1].key > k {
					sorted = false
				}
				segs = append(segs, segment{k, start, len(d.ops)})
			}
		}
		if !sorted {
			d.sortSegments(segs)
		}
		if len(b) > common { // b has keys t lacks
			for _, k := range sortedKeys(b) {
				if _, ok := t[k]; !ok {
					d.ops = append(d.ops, operation{Op: "remove", Path: d.childPath(root, k)})
				}
			}
		}
		return
	case []interface{}:
		t, ok := target.([]interface{})
		if !ok || len(t) != len(b) {
			break
		}
		for i := range t {
			d.child(root, strconv.Itoa(i), b[i], t[i])
		}
		return
	default:
		if api.EqualJSON(base, target) {
			return
		}
	}
	d.ops = append(d.ops, operation{Op: "replace", Path: d.path(root), Value: target})
}

// sortSegments reorders the operations of segs, contiguous and in map
// order, into key order. A map can have thousands of differing keys.
func (d *differ) sortSegments(segs []segment) {
	first := segs[0].start // segments are contiguous, in map order
	slices.SortFunc(segs, compareSegments)
	moved := make([]operation, 0, len(d.ops)-first)
	for _, s := range segs {
		moved = append(moved, d.ops[s.start:s.end]...)
	}
	copy(d.ops[first:], moved)
}

// compareSegments orders segments by key. A test counts its calls.
var compareSegments = func(a, b segment) int { return strings.Compare(a.key, b.key) }

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
