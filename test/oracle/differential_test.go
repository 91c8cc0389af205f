package oracle

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	sigsjson "sigs.k8s.io/json"

	"github.com/claimbridge/claimbridge/api"
	apiv1 "github.com/claimbridge/claimbridge/api/v1alpha1"
	apiv2 "github.com/claimbridge/claimbridge/api/v1alpha2"
	apiv3 "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation"
)

// TestDifferentialFuzz sends seeded random writes (creates, main updates
// and status writes of claims and templates, built within the schema's
// JSON types so that upstream can decode them) to claimbridge and to the
// oracle of each release and compares the (type, path) lists as parity()
// does. What only a documented deliberate difference explains (docs/
// validation.md, "Where claimbridge differs from upstream") is accounted for
// by expected(), each case by name; anything else fails.
//
// CLAIMBRIDGE_DIFF_N sets the number of scenarios per version (default
// diffDefaultN), CLAIMBRIDGE_DIFF_SEED the seed, CLAIMBRIDGE_DIFF_DETAILS=1
// logs the classes of differing detail strings on matching findings and
// upstream's findings by op; CLAIMBRIDGE_DIFF_DETAILSETS=1 also logs the
// (type, path, detail) findings only one side has outside metadata and CEL
// (=meta: metadata included), which the (type, path) comparison cannot see
// when another finding shares the path; CLAIMBRIDGE_DIFF_DUMP=<prefix>
// writes each mismatch class's smallest example to <prefix>.<version>.json.
func TestDifferentialFuzz(t *testing.T) {
	n := envInt(t, "CLAIMBRIDGE_DIFF_N", diffDefaultN)
	seed := int64(envInt(t, "CLAIMBRIDGE_DIFF_SEED", 20261123))
	for _, version := range []string{"v1alpha1", "v1alpha2", "v1alpha3"} {
		t.Run(version, func(t *testing.T) {
			g := newGen(seed, version, loadCorpus(t, version))
			scenarios := make([]scenario, n)
			for i := range scenarios {
				scenarios[i] = g.scenario(i)
			}
			compareBatch(t, version, scenarios)
		})
	}
}

// diffDefaultN keeps `make test` well under a minute on two cores.
const diffDefaultN = 1500

func envInt(t *testing.T, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return v
}

// mismatch is one class of unexplained differences with its smallest example.
type mismatch struct {
	count    int
	example  scenario
	size     int
	ours     []string
	upstream []string
	ourErrs  field.ErrorList
	upErrs   []fieldError
}

func compareBatch(t *testing.T, version string, scenarios []scenario) {
	const batch = 2000
	classes := map[string]*mismatch{}
	details := map[string]int{}
	detailExample := map[string]string{}
	explained := map[string]int{}
	seen := map[string]int{} // upstream findings by op, for CLAIMBRIDGE_DIFF_DETAILS
	valid := 0
	for start := 0; start < len(scenarios); start += batch {
		end := min(start+batch, len(scenarios))
		answers := runOracle(t, releaseOf[version], scenarios[start:end])
		for i, a := range answers {
			s := scenarios[start+i]
			if a.Error != "" {
				t.Fatalf("%s: the %s oracle cannot use the scenario: %s\n%s", s.Name, releaseOf[version], a.Error, mustJSON(s))
			}
			ourErrs := claimbridgeFieldErrors(t, s)
			ours, upstream := render(ourErrs), dedupe(a.Errors)
			if len(upstream) == 0 {
				valid++
			}
			for _, f := range normalize(upstream) {
				seen[s.Op+" "+f]++
			}
			onlyOurs, onlyUp := minus(ours, upstream), minus(upstream, ours)
			// the findings both report must come in the same order
			orderDiffers := !sameOrder(orderedPart(s, minus(ours, onlyOurs)), orderedPart(s, minus(upstream, onlyUp)))
			onlyOurs, onlyUp = expected(version, s, ourErrs, a.Errors, onlyOurs, onlyUp, explained)
			if len(onlyOurs) > 0 || len(onlyUp) > 0 || orderDiffers {
				key := fmt.Sprintf("%s %s %s: only claimbridge %q, only upstream %q, order differs %v",
					version, s.Op, kindOf(s.Object), normalize(onlyOurs), normalize(onlyUp), orderDiffers)
				m := classes[key]
				if m == nil {
					m = &mismatch{size: 1 << 62}
					classes[key] = m
				}
				m.count++
				if size := len(mustJSON(s)); size < m.size {
					m.size, m.example, m.ours, m.upstream, m.ourErrs, m.upErrs = size, s, ours, upstream, ourErrs, a.Errors
				}
			}
			if os.Getenv("CLAIMBRIDGE_DIFF_DETAILSETS") != "" {
				// the (type, path, detail) sets outside metadata and CEL
				key := func(typ, path, detail string) string {
					if os.Getenv("CLAIMBRIDGE_DIFF_DETAILSETS") != "meta" && (strings.HasPrefix(path, "metadata.") || strings.Contains(path, ".metadata.")) || strings.HasSuffix(path, ".cel.expression") {
						return ""
					}
					if s.Op == "status" && strings.HasPrefix(path, "status.allocation") &&
						apiequality.Semantic.DeepEqual(statusField(s.Object, "allocation"), statusField(s.Old, "allocation")) {
						return ""
					}
					return typ + " " + normalizePath(path) + ": " + detail
				}
				ourSet, upSet := map[string]bool{}, map[string]bool{}
				for _, e := range ourErrs {
					if k := key(string(e.Type), e.Field, e.Detail); k != "" {
						ourSet[k] = true
					}
				}
				for _, e := range a.Errors {
					if k := key(e.Type, e.Field, e.Detail); k != "" {
						upSet[k] = true
					}
				}
				for k := range upSet {
					if !ourSet[k] {
						details["only upstream: "+version+" "+s.Op+" "+k]++
					}
				}
				for k := range ourSet {
					if !upSet[k] {
						details["only claimbridge: "+version+" "+s.Op+" "+k]++
					}
				}
			}
			for _, up := range a.Errors {
				var same, other []string
				for _, e := range ourErrs {
					if string(e.Type) == up.Type && e.Field == up.Field {
						if e.Detail == up.Detail {
							same = append(same, e.Detail)
						} else {
							other = append(other, e.Detail)
						}
					}
				}
				if len(same) == 0 && len(other) > 0 {
					k := fmt.Sprintf("%s %s %s", version, up.Type, normalizePath(up.Field))
					if details[k] == 0 {
						detailExample[k] = fmt.Sprintf("upstream %q\n    claimbridge %q", up.Detail, other)
					}
					details[k]++
				}
			}
		}
	}
	t.Logf("%d scenarios, %d valid upstream; deliberate differences seen: %v", len(scenarios), valid, explained)
	if os.Getenv("CLAIMBRIDGE_DIFF_DETAILS") != "" {
		for _, k := range sortedKeys(seen) {
			t.Logf("upstream finding (%d): %s", seen[k], k)
		}
		for _, k := range sortedKeys(details) {
			t.Logf("detail differs (%d): %s\n    %s", details[k], k, detailExample[k])
		}
	}
	dump := os.Getenv("CLAIMBRIDGE_DIFF_DUMP")
	var dumped []interface{}
	for _, k := range sortedKeys(classes) {
		m := classes[k]
		dumped = append(dumped, map[string]interface{}{"class": k, "count": m.count, "scenario": m.example,
			"claimbridge": m.ourErrs, "upstream": m.upErrs})
		t.Errorf("%d× %s\nexample %s:\n%s\nclaimbridge: %q\nupstream: %q\nclaimbridge details: %v\nupstream details: %v",
			m.count, k, m.example.Name, truncate(mustJSON(m.example), 6000), m.ours, m.upstream, m.ourErrs, m.upErrs)
	}
	if dump != "" {
		if err := os.WriteFile(dump+"."+version+".json", []byte(mustJSON(dumped)), 0o644); err != nil {
			t.Error(err)
		}
	}
	if valid == 0 || valid == len(scenarios) {
		t.Errorf("%d of %d scenarios valid upstream: want both kinds", valid, len(scenarios))
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func mustJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

var indexRE = regexp.MustCompile(`\[\d+\]`)

func normalizePath(p string) string { return indexRE.ReplaceAllString(p, "[*]") }

// normalize turns "Type path[3]" findings into a sorted, deduplicated class.
func normalize(findings []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range findings {
		f = normalizePath(f)
		if !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

func sameOrder(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// orderedPart is what of the findings both report must come in the same
// order: all, except on main updates, where upstream's registry strategy
// runs the create rules before the update rules and claimbridge reports each
// finding once, in the update rules' order (deliberate
// "v1alpha2/update-with-invalid-spec"): there the metadata findings and the
// immutable spec may move, and the spec findings keep their order.
func orderedPart(s scenario, findings []string) []string {
	if s.Op != "update" {
		return findings
	}
	var out []string
	for _, f := range findings {
		p := strings.SplitN(f, " ", 2)[1]
		if p != "spec" && !strings.HasPrefix(p, "metadata.") {
			out = append(out, f)
		}
	}
	return out
}

func kindOf(obj map[string]interface{}) string {
	k, _ := obj["kind"].(string)
	return k
}

// claimbridgeFieldErrors is claimbridgeErrors with the whole findings.
func claimbridgeFieldErrors(t *testing.T, s scenario) field.ErrorList {
	t.Helper()
	req := validation.Request{Operation: validation.Create, Object: deepCopy(s.Object).(map[string]interface{})}
	if s.Op != "create" {
		req.Operation, req.OldObject = validation.Update, deepCopy(s.Old).(map[string]interface{})
		if s.Op == "status" {
			req.SubResource = "status"
		}
	}
	resp, err := validation.Validate(req)
	if err != nil {
		t.Fatalf("%s: claimbridge cannot validate the scenario: %v\n%s", s.Name, err, mustJSON(s))
	}
	return resp.Errors
}

func render(errs field.ErrorList) []string {
	var fe []fieldError
	for _, e := range errs {
		fe = append(fe, fieldError{Type: string(e.Type), Field: e.Field})
	}
	return dedupe(fe)
}

// expected removes from the one-sided findings what a documented
// deliberate difference explains, counting each in explained.
func expected(version string, s scenario, ourErrs field.ErrorList, upErrs []fieldError, onlyOurs, onlyUp []string, explained map[string]int) ([]string, []string) {
	drop := func(list []string, name string, match func(string) bool) []string {
		var out []string
		for _, f := range list {
			if match(f) {
				explained[name]++
				continue
			}
			out = append(out, f)
		}
		return out
	}
	detailOf := func(f string) string {
		for _, e := range ourErrs {
			if string(e.Type)+" "+e.Field == f {
				return e.Detail
			}
		}
		return ""
	}
	if s.Op == "update" && kindOf(s.Object) == "ResourceClaimTemplate" {
		templateMeta := func(obj map[string]interface{}) interface{} {
			spec, _ := obj["spec"].(map[string]interface{})
			return spec["metadata"]
		}
		if apiequality.Semantic.DeepEqual(templateMeta(s.Object), templateMeta(s.Old)) {
			// "On a main update of a template that leaves its
			// spec.metadata as it was, nothing inside it is reported"
			// (docs/validation.md: one stored while the webhook was not
			// called stays deletable).
			onlyUp = drop(onlyUp, "unchanged template spec.metadata not revalidated", func(f string) bool {
				p := strings.SplitN(f, " ", 2)[1]
				return p == "spec.metadata" || strings.HasPrefix(p, "spec.metadata.") || strings.HasPrefix(p, "spec.metadata[")
			})
		}
	}
	if s.Op == "status" {
		newAlloc, oldAlloc := statusField(s.Object, "allocation"), statusField(s.Old, "allocation")
		if newAlloc != nil && sameAllocation(version, newAlloc, oldAlloc) {
			// "On a status write that leaves the allocation unchanged,
			// nothing inside it is reported": unchanged as decoded.
			onlyUp = drop(onlyUp, "unchanged allocation not revalidated", func(f string) bool {
				p := strings.SplitN(f, " ", 2)[1]
				return p == "status.allocation" || strings.HasPrefix(p, "status.allocation.") || strings.HasPrefix(p, "status.allocation[")
			})
		}
		if newAlloc != nil && sameAllocation(version, newAlloc, oldAlloc) && noString(statusField(s.Object, "driverName")) && noString(statusField(s.Old, "driverName")) {
			// "A missing status.driverName goes with the unchanged
			// allocation" (a v1alpha3 allocation without results has none).
			onlyUp = drop(onlyUp, "unchanged allocation without a driver", func(f string) bool {
				return f == "FieldValueRequired status.driverName"
			})
		}
		if newAlloc != nil && oldAlloc != nil {
			// v1alpha1: allocation immutable once set (1.26 allowed
			// changes); every version: the stored allocation must not
			// change as seen through v1alpha3.
			onlyOurs = drop(onlyOurs, "allocation immutable in every version and view", func(f string) bool {
				return f == "FieldValueInvalid status.allocation" && (version == "v1alpha1" || strings.Contains(detailOf(f), "as seen through"))
			})
		}
		if reservations, _ := statusField(s.Object, "reservedFor").([]interface{}); len(reservations) > 1 && version != "v1alpha3" &&
			newAlloc != nil && oldAlloc != nil && oldAlloc.(map[string]interface{})["shareable"] != true && !apiequality.Semantic.DeepEqual(newAlloc, oldAlloc) {
			// "Not shareable stays single-consumer": the old allocation
			// counts while the claim stays allocated (the new one may not
			// differ: the allocation is immutable, which claimbridge
			// reports too).
			onlyOurs = drop(onlyOurs, "not shareable stays single-consumer", func(f string) bool {
				return f == "FieldValueForbidden status.reservedFor" && detailOf(f) == "may not be reserved more than once"
			})
		}
	}
	if s.Op == "status" && version != "v1alpha3" && statusField(s.Object, "allocation") != nil && statusField(s.Old, "allocation") == nil {
		// "An allocation set through v1alpha1 or v1alpha2 must also pass
		// v1alpha3's status rules as stored" (e.g. a 1.30 driver name
		// with capitals is the v1alpha3 result's pool).
		onlyOurs = drop(onlyOurs, "allocation breaks a v1alpha3 rule as stored", func(f string) bool {
			return f == "FieldValueInvalid status.allocation" && strings.Contains(detailOf(f), "as seen through v1alpha3, the storage version")
		})
	}
	if s.Op == "update" && version != "v1alpha3" && classPresenceOnlyDiffers(s) {
		// resourceClassName "" and no resourceClassName are one v1alpha1/
		// v1alpha2 spec but two v1alpha3 specs (a request with an empty
		// class, or none): the v1alpha3 view changes (both are invalid).
		onlyOurs = drop(onlyOurs, "spec change as seen through v1alpha3 (class \"\" or absent)", func(f string) bool {
			return f == "FieldValueInvalid metadata.annotations" && strings.Contains(detailOf(f), "changes the spec as seen through v1alpha3")
		})
	}
	// An unchanged spec shown from a valid v1alpha3 spec alone (no restore
	// data of an older version) is not revalidated in the older version: a
	// claim without requests has a v1alpha1/v1alpha2 view without a class.
	if s.Op == "update" && version != "v1alpha3" && specFromValidStorage(version, s) {
		onlyUp = drop(onlyUp, "unchanged spec shown from a valid v1alpha3 spec", func(f string) bool {
			_, path, _ := strings.Cut(f, " ")
			return path == "spec" || strings.HasPrefix(path, "spec.")
		})
	}
	// An update compiles the (immutable) spec's expressions in today's
	// stored-expressions environment, where 1.31 re-ran its create rules:
	// a claim that an earlier claimbridge build stored with a CEL function
	// newer than 1.31 stays writable (its finalizers removable).
	if s.Op == "update" {
		onlyUp = drop(onlyUp, "stored CEL expression newer than 1.31", func(f string) bool {
			typ, path, _ := strings.Cut(f, " ")
			if typ != "FieldValueInvalid" || !strings.HasSuffix(path, ".cel.expression") {
				return false
			}
			expression, ok := valueAt(s.Object, path).(string)
			return ok && compilesWhenStored(expression)
		})
	}
	// A conversion to the storage version that fails: the restore
	// annotations would not fit beside the object's own.
	onlyOurs = drop(onlyOurs, "conversion failure reported", func(f string) bool {
		return f == "InternalError metadata.annotations" && strings.Contains(detailOf(f), "above the limit of 262144 bytes")
	})
	// A write that leaves another served version unable to show the claim.
	onlyOurs = drop(onlyOurs, "unshowable in another version", func(f string) bool {
		return strings.HasPrefix(f, "FieldValueForbidden ") && strings.Contains(detailOf(f), "could not be read through")
	})
	return onlyOurs, onlyUp
}

// classPresenceOnlyDiffers: the old and new claim spec (or template
// spec.spec) have resourceClassName "" on one side and none on the other.
func classPresenceOnlyDiffers(s scenario) bool {
	classOf := func(obj map[string]interface{}) (interface{}, bool) {
		spec, _ := obj["spec"].(map[string]interface{})
		if kindOf(obj) == "ResourceClaimTemplate" {
			spec, _ = spec["spec"].(map[string]interface{})
		}
		c, ok := spec["resourceClassName"]
		return c, ok
	}
	n, nok := classOf(s.Object)
	o, ook := classOf(s.Old)
	return nok != ook && (n == "" || o == "")
}

// compilesWhenStored reports whether expression compiles in today's
// stored-expressions environment (1.31's feature set), as claimbridge
// checks the expressions of an update.
func compilesWhenStored(expression string) bool {
	stored := environment.StoredExpressions
	return dracel.GetCompiler(dracel.Features{}).CompileCELExpression(expression, dracel.Options{EnvType: &stored}).Error == nil
}

// valueAt is the value at a field path ("spec.devices.requests[0].name") of
// obj, nil where there is none.
func valueAt(obj map[string]interface{}, path string) interface{} {
	var v interface{} = obj
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		m, _ := v.(map[string]interface{})
		v = m[name]
		for rest != "" {
			index, after, _ := strings.Cut(rest, "]")
			i, err := strconv.Atoi(index)
			l, _ := v.([]interface{})
			if err != nil || i < 0 || i >= len(l) {
				return nil
			}
			v, rest = l[i], strings.TrimPrefix(after, "[")
		}
	}
	return v
}

// noString reports whether v is absent or "".
func noString(v interface{}) bool {
	str, isString := v.(string)
	return v == nil || isString && str == ""
}

// specFromValidStorage reports whether the scenario leaves the spec as it
// was, and the old spec is what the old object's v1alpha3 form shows in
// version without its restore annotations, and that v1alpha3 spec is valid.
func specFromValidStorage(version string, s scenario) bool {
	if !apiequality.Semantic.DeepEqual(s.Object["spec"], s.Old["spec"]) {
		return false
	}
	stored, err := conversion.Convert(s.Old, "v1alpha3")
	if err != nil {
		return false
	}
	pure := deepCopy(stored).(map[string]interface{})
	if meta, ok := pure["metadata"].(map[string]interface{}); ok {
		if ann, ok := meta["annotations"].(map[string]interface{}); ok {
			for k := range ann {
				if strings.HasPrefix(k, api.RestoreAnnotationPrefix) {
					delete(ann, k)
				}
			}
		}
	}
	derived, err := conversion.Convert(pure, version)
	if err != nil || !apiequality.Semantic.DeepEqual(derived["spec"], s.Old["spec"]) {
		return false
	}
	resp, err := validation.Validate(validation.Request{Operation: validation.Update, Object: stored, OldObject: stored})
	if err != nil {
		return false
	}
	for _, e := range resp.Errors {
		if e.Field == "spec" || strings.HasPrefix(e.Field, "spec.") {
			return false
		}
	}
	return true
}

func statusField(obj map[string]interface{}, key string) interface{} {
	st, _ := obj["status"].(map[string]interface{})
	return st[key]
}

// gen builds random scenarios for one version.
type gen struct {
	r       *rand.Rand
	version string
	corpus  []scenario
}

func newGen(seed int64, version string, corpus []scenario) *gen {
	return &gen{r: rand.New(rand.NewSource(seed + int64(len(version))*7919 + int64(version[len(version)-1]))), version: version, corpus: corpus}
}

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) oneOf(xs ...string) string { return xs[g.r.Intn(len(xs))] }

func (g *gen) pickAny(xs ...interface{}) interface{} { return xs[g.r.Intn(len(xs))] }

// listLen is a list length: mostly small, sometimes at or past a limit.
func (g *gen) listLen(limit int) int {
	switch x := g.r.Intn(20); {
	case x < 3:
		return 0
	case x == 18:
		return limit
	case x == 19:
		return limit + 1
	default:
		return 1 + g.r.Intn(3)
	}
}

var (
	label63   = strings.Repeat("a", 63)
	label64   = strings.Repeat("a", 64)
	sub253    = strings.Repeat(label63+".", 3) + strings.Repeat("b", 61)
	sub254    = sub253 + "c"
	badStrs   = []string{"", "Bad", "-a", "a-", "a_b", "a..b", "a.-b", "A.example.com", "a b", "ä"}
	dnsLabels = append([]string{"gpu", "a", "gpu-0", "1a", label63, label64, "a.b", "x9"}, badStrs...)
	dnsSubs   = append([]string{"gpu.example.com", "a", "x.y", "1.2.3", label63 + ".com", label64 + ".com", sub253, sub254}, badStrs...)
)

func (g *gen) label() string {
	if g.chance(0.7) {
		return g.oneOf("gpu", "a", "b", "nic")
	}
	return g.oneOf(dnsLabels...)
}

func (g *gen) subdomain() string {
	if g.chance(0.7) {
		return g.oneOf("gpu.example.com", "nic.example.com", "a")
	}
	return g.oneOf(dnsSubs...)
}

func (g *gen) driver() string {
	if g.chance(0.7) {
		return g.oneOf("gpu.example.com", "nic.example.com")
	}
	return g.oneOf(append([]string{strings.Repeat("d", 59) + ".com", strings.Repeat("d", 60) + ".com", "example", "EXAMPLE.com"}, dnsSubs...)...)
}

func (g *gen) name() string {
	if g.chance(0.8) {
		return g.oneOf("c", "claim-1", "x.y")
	}
	return g.oneOf(dnsSubs...)
}

func (g *gen) uid(i int) string {
	if g.chance(0.85) {
		return fmt.Sprintf("u%d", i)
	}
	return g.oneOf("", "u0", "u1", "U1", "not a uid")
}

func (g *gen) str() string {
	return g.oneOf(append(append([]string{"x", "p"}, dnsLabels...), dnsSubs...)...)
}

// metadata builds object metadata, rarely invalid.
func (g *gen) metadata() map[string]interface{} {
	m := map[string]interface{}{"name": g.name(), "namespace": "ns"}
	if g.chance(0.05) {
		m["namespace"] = g.oneOf("", "Bad_NS", label64, "a.b", "kube-system")
	}
	if g.chance(0.04) {
		delete(m, "namespace")
	}
	if g.chance(0.04) {
		delete(m, "name")
		m["generateName"] = g.oneOf("c-", "Bad-", "", label63+"-", sub253)
	}
	if g.chance(0.15) {
		m["labels"] = g.labels()
	}
	if g.chance(0.15) {
		m["annotations"] = g.annotations()
	}
	if g.chance(0.2) {
		m["finalizers"] = g.finalizers()
	}
	if g.chance(0.05) {
		m["managedFields"] = g.managedFields()
	}
	if g.chance(0.03) {
		m["ownerReferences"] = []interface{}{map[string]interface{}{
			"apiVersion": g.oneOf("v1", "", "Bad/x/y"), "kind": g.oneOf("Pod", ""),
			"name": g.oneOf("p", ""), "uid": g.oneOf("o1", ""),
		}}
	}
	return m
}

func (g *gen) labels() map[string]interface{} {
	out := map[string]interface{}{}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		k := g.oneOf("app", "example.com/tier", "Bad Key", "a/b/c", "/x", label63, label64, "x/"+label64, sub254+"/x")
		out[k] = g.oneOf("v", "", label63, label64, "-v", "a b", "a.b_c")
	}
	return out
}

func (g *gen) annotations() map[string]interface{} {
	out := map[string]interface{}{}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		k := g.oneOf("note", "example.com/x", "Bad Key", "a/b/c", label64)
		v := "v"
		if g.chance(0.1) {
			v = strings.Repeat("v", g.oneOfInt(100000, 262144-len(k), 262145))
		}
		out[k] = v
	}
	return out
}

func (g *gen) oneOfInt(xs ...int) int { return xs[g.r.Intn(len(xs))] }

func (g *gen) finalizers() []interface{} {
	var out []interface{}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		out = append(out, g.oneOf("resource.kubernetes.io/delete-protection", "dra.k8s.io/delete-protection",
			"kubernetes", "foo", "foo/bar", "example.com/f", "Bad/x", "a/b/c", "kubernetes.io/x", "orphan", "foregroundDeletion", ""))
	}
	return out
}

func (g *gen) nodeSelector() interface{} {
	if g.chance(0.1) {
		return map[string]interface{}{"nodeSelectorTerms": []interface{}{}}
	}
	var terms []interface{}
	for i, n := 0, 1+g.r.Intn(2); i < n; i++ {
		term := map[string]interface{}{}
		if g.chance(0.6) {
			term["matchFields"] = g.requirements(true)
		}
		if g.chance(0.5) {
			term["matchExpressions"] = g.requirements(false)
		}
		terms = append(terms, term)
	}
	return map[string]interface{}{"nodeSelectorTerms": terms}
}

func (g *gen) requirements(fields bool) []interface{} {
	var out []interface{}
	for i, n := 0, g.r.Intn(3); i < n; i++ {
		key := g.oneOf("kubernetes.io/hostname", "zone", "", "Bad Key", "a/b/c", label64)
		if fields {
			key = g.oneOf("metadata.name", "metadata.name", "metadata.namespace", "spec.nodeName", "")
		}
		req := map[string]interface{}{"key": key, "operator": g.oneOf("In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bad", "")}
		if !g.chance(0.2) {
			var vals []interface{}
			for _, v := range g.pickAny([]string{}, []string{"worker-1"}, []string{"1"}, []string{"a", "b"}, []string{"Bad Value!"}, []string{label64}).([]string) {
				vals = append(vals, v)
			}
			req["values"] = vals
			if vals == nil {
				req["values"] = []interface{}{}
			}
		}
		out = append(out, req)
	}
	return out
}

func (g *gen) reservedFor() []interface{} {
	n := g.listLen(32)
	out := make([]interface{}, 0, n)
	for i := 0; i < n; i++ {
		ref := map[string]interface{}{"resource": "pods", "name": fmt.Sprintf("p%d", i), "uid": g.uid(i)}
		if g.chance(0.05) {
			ref["resource"] = g.oneOf("", "Pods", "a.b")
		}
		if g.chance(0.05) {
			ref["name"] = g.oneOf("", "Bad Name")
		}
		if g.chance(0.05) {
			ref["apiGroup"] = g.oneOf("", "apps", "Bad Group")
		}
		out = append(out, ref)
	}
	if len(out) > 1 && g.chance(0.1) {
		out = append(out, deepCopy(out[g.r.Intn(len(out))]))
	}
	return out
}

func (g *gen) parameters() interface{} {
	if g.chance(0.8) {
		return map[string]interface{}{"a": int64(1)}
	}
	return g.pickAny(map[string]interface{}{}, []interface{}{}, "s", int64(1), true, nil,
		map[string]interface{}{"big": strings.Repeat("p", 10240)})
}

// claimSpec is a claim's spec in the generator's version.
func (g *gen) claimSpec() map[string]interface{} {
	switch g.version {
	case "v1alpha1", "v1alpha2":
		spec := map[string]interface{}{"resourceClassName": g.subdomain()}
		if g.chance(0.03) {
			delete(spec, "resourceClassName")
		}
		if g.chance(0.3) {
			spec["allocationMode"] = g.oneOf("Immediate", "WaitForFirstConsumer", "", "Later", "immediate")
		}
		if g.chance(0.25) {
			ref := map[string]interface{}{"kind": g.oneOf("P", "", "ConfigMap"), "name": g.oneOf("p", "", "Bad Name")}
			if g.chance(0.4) {
				ref["apiGroup"] = g.oneOf("", "example.com", "Bad Group")
			}
			spec["parametersRef"] = ref
		}
		return spec
	}
	devices := map[string]interface{}{}
	var names []string
	if n := g.listLen(32); n > 0 || g.chance(0.5) {
		reqs := make([]interface{}, 0, n)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("r%d", i)
			if i == 0 {
				name = "gpu"
			}
			if g.chance(0.1) {
				name = g.label()
			}
			names = append(names, name)
			reqs = append(reqs, g.request(name))
		}
		if len(reqs) > 1 && g.chance(0.08) {
			reqs = append(reqs, deepCopy(reqs[0]))
		}
		devices["requests"] = reqs
	}
	if g.chance(0.3) {
		devices["constraints"] = g.list(32, func(int) interface{} {
			c := map[string]interface{}{}
			if g.chance(0.7) {
				c["requests"] = g.requestRefs(names)
			}
			if g.chance(0.85) {
				c["matchAttribute"] = g.qualifiedName()
			}
			return c
		})
	}
	if g.chance(0.3) {
		devices["config"] = g.list(32, func(int) interface{} {
			c := map[string]interface{}{}
			if g.chance(0.7) {
				c["requests"] = g.requestRefs(names)
			}
			if g.chance(0.9) {
				c["opaque"] = g.opaque()
			}
			return c
		})
	}
	spec := map[string]interface{}{"devices": devices}
	if g.chance(0.02) {
		delete(spec, "devices")
	}
	if g.chance(0.15) {
		spec["controller"] = g.driver()
	}
	return spec
}

func (g *gen) list(limit int, item func(int) interface{}) []interface{} {
	n := g.listLen(limit)
	out := make([]interface{}, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, item(i))
	}
	return out
}

func (g *gen) request(name string) map[string]interface{} {
	r := map[string]interface{}{"name": name, "deviceClassName": g.subdomain()}
	if g.chance(0.05) {
		delete(r, "deviceClassName")
	}
	if g.chance(0.25) {
		r["allocationMode"] = g.oneOf("ExactCount", "All", "", "Some", "all")
	}
	if g.chance(0.25) {
		r["count"] = g.pickAny(int64(0), int64(1), int64(2), int64(-1), int64(1)<<40, int64(1)<<53, -int64(1)<<53)
	}
	if g.chance(0.05) {
		r["adminAccess"] = g.chance(0.5)
	}
	if g.chance(0.3) {
		r["selectors"] = g.list(32, func(int) interface{} {
			if g.chance(0.05) {
				return map[string]interface{}{}
			}
			return map[string]interface{}{"cel": map[string]interface{}{"expression": g.cel()}}
		})
	}
	return r
}

func (g *gen) cel() string {
	return g.oneOf(
		`device.driver == "gpu.example.com"`,
		`device.attributes["gpu.example.com"].model == "a100"`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("1Gi")) >= 0`,
		`device.driver ==`,
		`device.driver`,
		`1`,
		`true`,
		``,
		` `,
		`nosuchvar == 1`,
		`device.attributes["gpu.example.com"].exists(k, true)`,
		`device.attributes.all(d, device.attributes[d].all(a, device.attributes.all(d2, device.attributes[d2].all(b, a == b))))`,
		`[1,2,3].all(x, [1,2,3].all(y, [1,2,3].all(z, x+y+z > 0)))`,
		`"a".matches("[")`,
		`device.attributes["gpu.example.com"].model.isSemver()`,
		`device.driver.size() > 0 && `+strings.Repeat(`device.driver == "x" || `, 50)+`true`,
		strings.Repeat("x", 10241),
		`dyn(1) == 1`,
		`device.nosuch == 1`,
		`string(device.attributes["gpu.example.com"].x).startsWith("a")`,
		`device.attributes["gpu.example.com"].version.isGreaterThan(semver("1.0.0"))`,
		`semver("1.0.0").major() == 1`,
		`isSemver("1.0.0")`,
		`quantity("1Gi").isGreaterThan(quantity("1Mi"))`,
		`isQuantity("1Gi")`,
		`ip("1.2.3.4").family() == 4`,
		`cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))`,
		`isIP("1.2.3.4")`,
		`"abc".indexOf("b") == 1`,
		`"a,b".split(",").size() == 2`,
		`"%s".format(["a"]) == "a"`,
		`sets.contains([1, 2], [1])`,
		`cel.bind(x, 1, x == 1)`,
		`device.attributes["gpu.example.com"].?model.orValue("") == ""`,
		`optional.of(1).hasValue()`,
		`"abc".matches("^a")`,
		`"abc".matches("(")`,
		`url("https://example.com").getHost() == "example.com"`,
		`math.greatest(1, 2) == 2`,
		`[1, 2].sortBy(x, x)[0] == 1`,
		`"a".reverse() == "a"`,
		`base64.encode(b"a") == "YQ=="`,
		`device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("1Gi"))`,
		`device.attributes["gpu.example.com"].model`,
		`device.attributes["gpu.example.com"].count > 1`,
		`has(device.attributes["gpu.example.com"].model)`,
		`device.attributes["gpu.example.com"]["model"] == "x"`,
		`device.driver in ["a", "b"]`,
		`device.driver == null`,
		`size(device.attributes) > 0`,
		`strings.quote("a") == "\"a\""`,
		`lists.range(3).size() == 3`,
		`!format.dns1123Label().validate(device.driver).hasValue()`,
		`[1, 2].all(i, v, v > 0)`,
		`[1, 2].transformList(i, v, v * 2).size() == 2`,
		`isSemver("v1.0", true)`,
		`semver("1.0", true).major() == 1`,
		`[1, 2].reverse()[0] == 2`,
		`[1,2,3].slice(0, 1).size() == 1`,
		`[[1],[2]].flatten().size() == 2`,
		`1 / 0 == 1`,
		`int("1") == 1`,
		`timestamp("2020-01-01T00:00:00Z") < now()`,
		`format.named("x")`,
	)
}

func (g *gen) requestRefs(names []string) []interface{} {
	var out []interface{}
	n := g.listLen(32)
	for i := 0; i < n; i++ {
		if len(names) > 0 && g.chance(0.75) {
			out = append(out, names[g.r.Intn(len(names))])
		} else {
			out = append(out, g.label())
		}
	}
	if out == nil && g.chance(0.5) {
		return []interface{}{}
	}
	return out
}

func (g *gen) qualifiedName() string {
	return g.oneOf("gpu.example.com/model", "model", "/model", "gpu.example.com/", "a/b/c", "Bad_Domain/x",
		"gpu.example.com/"+label63, "gpu.example.com/"+label64, label63, label64, "gpu.example.com/Model",
		"gpu.example.com/a.b", "gpu.example.com/a-b", sub253+"/x", sub254+"/x", "", "a b", "gpu.example.com/-a")
}

func (g *gen) opaque() interface{} {
	o := map[string]interface{}{"driver": g.driver(), "parameters": g.parameters()}
	if g.chance(0.05) {
		delete(o, "parameters")
	}
	if g.chance(0.03) {
		delete(o, "driver")
	}
	return o
}

// allocation is a random allocation result (claim has the request names).
func (g *gen) allocation(spec map[string]interface{}) map[string]interface{} {
	switch g.version {
	case "v1alpha1":
		a := map[string]interface{}{}
		if g.chance(0.8) {
			a["resourceHandle"] = g.oneOf("h", "", "{\"a\":1}", strings.Repeat("x", 16384), strings.Repeat("x", 16385))
		}
		if g.chance(0.3) {
			a["availableOnNodes"] = g.nodeSelector()
		}
		if g.chance(0.7) {
			a["shareable"] = g.chance(0.7)
		}
		return a
	case "v1alpha2":
		a := map[string]interface{}{}
		if g.chance(0.85) {
			big := g.chance(0.1)
			a["resourceHandles"] = g.list(32, func(i int) interface{} {
				h := map[string]interface{}{}
				if g.chance(0.9) {
					h["driverName"] = g.driver()
				}
				if g.chance(0.5) {
					h["data"] = g.oneOf("h", fmt.Sprintf("h%d", i), "")
					if big && i < 2 {
						h["data"] = g.oneOf(strings.Repeat("x", 16384), strings.Repeat("x", 16385))
					}
				}
				if _, data := h["data"]; !data || g.chance(0.1) {
					if g.chance(0.8) {
						h["structuredData"] = g.structured()
					}
				}
				return h
			})
		}
		if g.chance(0.3) {
			a["availableOnNodes"] = g.nodeSelector()
		}
		if g.chance(0.7) {
			a["shareable"] = g.chance(0.7)
		}
		return a
	}
	var names []string
	if devices, ok := spec["devices"].(map[string]interface{}); ok {
		if reqs, ok := devices["requests"].([]interface{}); ok {
			for _, r := range reqs {
				names = append(names, r.(map[string]interface{})["name"].(string))
			}
		}
	}
	ref := func() string {
		if len(names) > 0 && g.chance(0.85) {
			return names[g.r.Intn(len(names))]
		}
		return g.label()
	}
	devices := map[string]interface{}{}
	if g.chance(0.9) {
		devices["results"] = g.list(32, func(i int) interface{} {
			return map[string]interface{}{
				"request": ref(), "driver": g.driver(),
				"pool":   g.pickAny("worker-1", "worker-1", "a/b", "a//b", "/a", "a/", "", "Bad", sub253, sub254, label63+"/"+label64, "a.b/c").(string),
				"device": g.pickAny(fmt.Sprintf("gpu-%d", i), fmt.Sprintf("gpu-%d", i), "gpu-0", "", "Bad", label64, "a.b").(string),
			}
		})
	}
	if g.chance(0.3) {
		devices["config"] = g.list(64, func(int) interface{} {
			c := map[string]interface{}{"source": g.oneOf("FromClaim", "FromClass", "FromClaim", "", "Elsewhere")}
			if g.chance(0.05) {
				delete(c, "source")
			}
			if g.chance(0.6) {
				refs := []interface{}{}
				for i, n := 0, g.listLen(32); i < n; i++ {
					refs = append(refs, ref())
				}
				c["requests"] = refs
			}
			if g.chance(0.9) {
				c["opaque"] = g.opaque()
			}
			return c
		})
	}
	a := map[string]interface{}{"devices": devices}
	if g.chance(0.6) {
		a["nodeSelector"] = g.nodeSelector()
	}
	if g.chance(0.2) {
		a["controller"] = g.driver()
	}
	return a
}

func (g *gen) structured() map[string]interface{} {
	s := map[string]interface{}{"nodeName": g.pickAny("worker-1", "worker-1", "", "Bad Node", sub254).(string)}
	if g.chance(0.1) {
		delete(s, "nodeName")
	}
	s["results"] = g.list(32, func(i int) interface{} {
		r := map[string]interface{}{}
		if g.chance(0.85) {
			r["namedResources"] = map[string]interface{}{"name": g.pickAny(fmt.Sprintf("gpu-%d", i), "", "Bad Name", sub254, "a.b").(string)}
		}
		if g.chance(0.1) {
			r["vendorRequestParameters"] = map[string]interface{}{"a": int64(1)}
		}
		return r
	})
	if g.chance(0.1) {
		s["vendorClassParameters"] = map[string]interface{}{"a": int64(1)}
	}
	return s
}

// status is a random claim status, allocated or not.
func (g *gen) status(spec map[string]interface{}) map[string]interface{} {
	st := map[string]interface{}{}
	if g.chance(0.6) {
		st["allocation"] = g.allocation(spec)
		if g.version != "v1alpha3" && g.chance(0.9) {
			st["driverName"] = g.driver()
		}
	} else if g.version != "v1alpha3" && g.chance(0.1) {
		st["driverName"] = g.driver()
	}
	if g.chance(0.4) {
		st["reservedFor"] = g.reservedFor()
	}
	if g.chance(0.2) {
		st["deallocationRequested"] = g.chance(0.8)
	}
	return st
}

func (g *gen) apiVersion() string { return "resource.claimbridge.dev/" + g.version }

func (g *gen) claim() map[string]interface{} {
	return map[string]interface{}{"apiVersion": g.apiVersion(), "kind": "ResourceClaim", "metadata": g.metadata(), "spec": g.claimSpec()}
}

func (g *gen) template() map[string]interface{} {
	inner := map[string]interface{}{"spec": g.claimSpec()}
	if g.chance(0.3) {
		meta := map[string]interface{}{}
		if g.chance(0.6) {
			meta["labels"] = g.labels()
		}
		if g.chance(0.3) {
			meta["annotations"] = g.annotations()
		}
		if g.chance(0.2) {
			switch g.r.Intn(5) {
			case 0:
				meta["name"] = "x"
			case 1:
				meta["namespace"] = "x"
			case 2:
				meta["generateName"] = "x-"
			case 3:
				meta["finalizers"] = []interface{}{"example.com/f"}
			case 4:
				meta["uid"] = "u"
			}
		}
		inner["metadata"] = meta
	}
	return map[string]interface{}{"apiVersion": g.apiVersion(), "kind": "ResourceClaimTemplate", "metadata": g.metadata(), "spec": inner}
}

// scenario i: a structured random write, or a corpus scenario mutated.
func (g *gen) scenario(i int) scenario {
	var s scenario
	switch x := g.r.Intn(100); {
	case x < 20:
		s = g.mutatedCorpus()
	case x < 40:
		s = scenario{Op: "create"}
		if g.chance(0.2) {
			s.Object = g.template()
		} else {
			s.Object = g.claim()
			if g.chance(0.2) {
				s.Object["status"] = g.status(s.Object["spec"].(map[string]interface{}))
			}
		}
	case x < 65:
		s = g.mainUpdate()
	default:
		s = g.statusWrite()
	}
	s.Name = fmt.Sprintf("%s-%d-%s", s.Op, i, kindOf(s.Object))
	if s.Old != nil {
		setDefaultResourceVersion(s.Object)
		setDefaultResourceVersion(s.Old)
	}
	return s
}

func (g *gen) mainUpdate() scenario {
	var old map[string]interface{}
	if g.chance(0.25) {
		old = g.template()
	} else {
		old = g.claim()
		if g.chance(0.4) {
			old["status"] = g.status(old["spec"].(map[string]interface{}))
		}
	}
	obj := deepCopy(old).(map[string]interface{})
	meta := obj["metadata"].(map[string]interface{})
	if g.chance(0.25) {
		if g.chance(0.3) {
			for _, k := range []string{"annotations", "labels", "finalizers", "ownerReferences"} {
				if isZero(meta[k]) && g.chance(0.5) {
					if _, set := meta[k]; set {
						delete(meta, k)
					} else {
						if k == "annotations" || k == "labels" {
							meta[k] = g.pickAny(nil, map[string]interface{}{})
						} else {
							meta[k] = g.pickAny(nil, []interface{}{})
						}
					}
				}
			}
		}
		g.equivalentForm(obj["spec"], 1+g.r.Intn(3))
		if g.chance(0.5) {
			g.equivalentForm(old["spec"], 1)
		}
		return scenario{Op: "update", Object: obj, Old: old}
	}
	if g.chance(0.15) {
		g.metadataUpdate(old["metadata"].(map[string]interface{}), meta)
	}
	for n := 1 + g.r.Intn(2); n > 0; n-- {
		switch g.r.Intn(9) {
		case 0, 1:
			if old["kind"] == "ResourceClaim" {
				obj["spec"] = g.claimSpec()
			} else {
				obj["spec"] = g.template()["spec"]
			}
		case 2:
			obj["spec"] = g.mutate(obj["spec"], "spec")
		case 3:
			meta["labels"] = g.labels()
		case 4:
			meta["finalizers"] = g.finalizers()
		case 5:
			meta["name"] = g.name()
		case 6:
			meta["namespace"] = g.oneOf("ns", "other", "")
		case 7:
			if old["kind"] == "ResourceClaim" {
				obj["status"] = g.status(obj["spec"].(map[string]interface{}))
			}
		case 8:
			meta["annotations"] = g.annotations()
		}
	}
	return scenario{Op: "update", Object: obj, Old: old}
}

func (g *gen) statusWrite() scenario {
	old := g.claim()
	spec := old["spec"].(map[string]interface{})
	if g.chance(0.7) {
		old["status"] = g.status(spec)
	}
	if g.chance(0.1) {
		old["metadata"].(map[string]interface{})["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	}
	obj := deepCopy(old).(map[string]interface{})
	if g.chance(0.05) {
		obj["metadata"].(map[string]interface{})["managedFields"] = g.managedFields()
	}
	st, _ := obj["status"].(map[string]interface{})
	if st == nil {
		st = map[string]interface{}{}
		obj["status"] = st
	}
	if g.chance(0.25) {
		g.equivalentForm(st, 1+g.r.Intn(3))
		if g.chance(0.2) {
			obj["status"] = nil
		}
		if g.chance(0.3) {
			g.equivalentForm(old["status"], 1)
		}
		return scenario{Op: "status", Object: obj, Old: old}
	}
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		switch g.r.Intn(10) {
		case 0, 1:
			st["allocation"] = g.allocation(spec)
			if g.version != "v1alpha3" && g.chance(0.8) {
				st["driverName"] = g.driver()
			}
		case 2:
			delete(st, "allocation")
			if g.chance(0.5) {
				delete(st, "driverName")
			}
		case 3:
			if a, ok := st["allocation"]; ok {
				st["allocation"] = g.mutate(a, "status.allocation")
			} else {
				st["allocation"] = g.allocation(spec)
			}
		case 4, 5:
			st["reservedFor"] = g.reservedFor()
		case 6:
			if rf, ok := st["reservedFor"].([]interface{}); ok && len(rf) > 0 {
				st["reservedFor"] = g.mutate(rf, "status.reservedFor")
			} else {
				delete(st, "reservedFor")
			}
		case 7:
			if g.chance(0.5) {
				st["deallocationRequested"] = !(st["deallocationRequested"] == true)
			} else {
				delete(st, "deallocationRequested")
			}
		case 8:
			if g.version != "v1alpha3" {
				st["driverName"] = g.driver()
			} else {
				st["deallocationRequested"] = true
			}
		case 9:
			obj["spec"] = g.claimSpec()
		}
	}
	return scenario{Op: "status", Object: obj, Old: old}
}

// mutatedCorpus takes a corpus scenario and mutates its new object (and
// for updates sometimes the old one too).
func (g *gen) mutatedCorpus() scenario {
	base := g.corpus[g.r.Intn(len(g.corpus))]
	s := scenario{Op: base.Op, Object: deepCopy(base.Object).(map[string]interface{})}
	if base.Old != nil {
		s.Old = deepCopy(base.Old).(map[string]interface{})
	}
	for n := 1 + g.r.Intn(3); n > 0; n-- {
		root := "spec"
		if s.Op == "status" {
			root = "status"
		} else if g.chance(0.2) {
			root = "metadata"
		}
		s.Object[root] = g.mutate(s.Object[root], root)
	}
	if s.Old != nil && g.chance(0.2) {
		root := g.oneOf("spec", "status")
		if root == "status" && kindOf(s.Old) != "ResourceClaim" {
			root = "spec"
		}
		s.Old[root] = g.mutate(s.Old[root], root)
	}
	if s.Op == "status" {
		// keep metadata as stored: status writes take it from the old object.
		s.Object["metadata"] = deepCopy(s.Old["metadata"])
	}
	for _, o := range []map[string]interface{}{s.Object, s.Old} {
		if o != nil && o["status"] == nil {
			delete(o, "status")
		}
	}
	return s
}

// mutate returns v with one random change somewhere inside it that keeps
// the JSON type of every field (path names v, for the value pools).
func (g *gen) mutate(v interface{}, path string) interface{} {
	switch x := v.(type) {
	case map[string]interface{}:
		keys := sortedKeys(x)
		if len(keys) == 0 || g.chance(0.15) {
			return g.addField(x, path)
		}
		k := keys[g.r.Intn(len(keys))]
		if g.chance(0.12) && !strings.HasSuffix(path, "parameters") {
			delete(x, k)
			return x
		}
		x[k] = g.mutate(x[k], path+"."+k)
		return x
	case []interface{}:
		switch {
		case len(x) == 0:
			return x // the item type is unknown here
		case g.chance(0.15):
			i := g.r.Intn(len(x))
			return append(x[:i:i], x[i+1:]...)
		case g.chance(0.15):
			return append(x, deepCopy(x[g.r.Intn(len(x))]))
		case g.chance(0.1):
			return []interface{}{}
		case g.chance(0.15):
			return g.extend(x, g.oneOfInt(32, 33, 64, 65)-len(x))
		}
		i := g.r.Intn(len(x))
		x[i] = g.mutate(x[i], path+"[]")
		return x
	case string:
		leaf := path[strings.LastIndex(path, ".")+1:]
		switch leaf {
		case "name":
			if strings.Contains(path, "requests") || strings.Contains(path, "namedResources") {
				return g.label()
			}
			return g.name()
		case "requests[]", "request":
			return g.label()
		case "driverName", "driver", "controller", "resourceClassName", "deviceClassName", "nodeName":
			return g.driver()
		case "expression":
			return g.cel()
		case "matchAttribute":
			return g.qualifiedName()
		case "uid":
			return g.uid(g.r.Intn(3))
		case "allocationMode":
			return g.oneOf("Immediate", "WaitForFirstConsumer", "ExactCount", "All", "", "Bad")
		case "source":
			return g.oneOf("FromClaim", "FromClass", "", "Bad")
		case "resourceHandle", "data":
			return g.oneOf("h", "", strings.Repeat("x", 16384), strings.Repeat("x", 16385))
		case "operator":
			return g.oneOf("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Bad")
		}
		return g.str()
	case bool:
		return !x
	case float64, int64, int:
		return g.pickAny(int64(0), int64(-1), int64(1), int64(2), int64(33), int64(1)<<40)
	}
	return v
}

// extend appends n items shaped like the list's first one, with distinct
// names and uids where the items have them.
func (g *gen) extend(x []interface{}, n int) []interface{} {
	for i := 0; i < n; i++ {
		item := deepCopy(x[0])
		switch it := item.(type) {
		case map[string]interface{}:
			for _, k := range []string{"name", "uid", "data", "device"} {
				if s, ok := it[k].(string); ok {
					it[k] = fmt.Sprintf("%s%d", s, len(x))
				}
			}
		case string:
			item = fmt.Sprintf("%s%d", it, len(x))
		}
		x = append(x, item)
	}
	return x
}

// addField adds a field the schema knows where the path allows one.
func (g *gen) addField(x map[string]interface{}, path string) interface{} {
	switch {
	case path == "metadata":
		switch g.r.Intn(3) {
		case 0:
			x["labels"] = g.labels()
		case 1:
			x["finalizers"] = g.finalizers()
		default:
			x["annotations"] = g.annotations()
		}
	case path == "status":
		if _, ok := x["allocation"]; !ok {
			x["allocation"] = g.allocation(nil)
		} else {
			x["reservedFor"] = g.reservedFor()
		}
	case strings.HasSuffix(path, "allocation") && g.version != "v1alpha3":
		x["availableOnNodes"] = g.nodeSelector()
	case strings.HasSuffix(path, "allocation"):
		x["nodeSelector"] = g.nodeSelector()
	}
	return x
}

// equivalentForm changes obj in a way upstream's decoding and defaulting do
// not see (or should not): a zero value added where the field was absent, or
// a zero-valued field removed, n times.
func (g *gen) equivalentForm(obj interface{}, n int) {
	for ; n > 0; n-- {
		var maps []map[string]interface{}
		var walk func(v interface{})
		walk = func(v interface{}) {
			switch x := v.(type) {
			case map[string]interface{}:
				maps = append(maps, x)
				for _, k := range sortedKeys(x) {
					if k != "metadata" && k != "parameters" {
						walk(x[k])
					}
				}
			case []interface{}:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(obj)
		if len(maps) == 0 {
			return
		}
		m := maps[g.r.Intn(len(maps))]
		var zeros []string
		for _, k := range sortedKeys(m) {
			if isZero(m[k]) {
				zeros = append(zeros, k)
			}
		}
		if len(zeros) > 0 && g.chance(0.5) {
			delete(m, zeros[g.r.Intn(len(zeros))])
			continue
		}
		cands := zeroFields(m)
		if g.version == "v1alpha1" {
			delete(cands, "resourceHandles")
		} else {
			delete(cands, "resourceHandle")
		}
		if g.version == "v1alpha3" {
			delete(cands, "driverName")
		}
		if len(cands) == 0 {
			continue
		}
		k := sortedKeys(cands)[g.r.Intn(len(cands))]
		if _, set := m[k]; !set {
			m[k] = cands[k]
			if g.chance(0.3) {
				m[k] = nil // JSON null: absent to upstream's decoder
			}
		}
	}
}

// firstItemHas: v is a list whose first item is an object with key (any
// object when key is "").
func firstItemHas(v interface{}, key string) bool {
	l, _ := v.([]interface{})
	if len(l) == 0 {
		return false
	}
	m, ok := l[0].(map[string]interface{})
	if !ok || key == "" {
		return ok
	}
	_, has := m[key]
	return has
}

func isZero(v interface{}) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case bool:
		return !x
	case int64:
		return x == 0
	case float64:
		return x == 0
	case []interface{}:
		return len(x) == 0
	case map[string]interface{}:
		return len(x) == 0
	}
	return false
}

// zeroFields are the optional fields a map of this shape (told by the keys
// it has) may hold with their zero values.
func zeroFields(m map[string]interface{}) map[string]interface{} {
	has := func(k string) bool { _, ok := m[k]; return ok }
	switch {
	case has("resourceClassName"):
		return map[string]interface{}{"allocationMode": ""}
	case has("deviceClassName"):
		return map[string]interface{}{"selectors": []interface{}{}, "allocationMode": "", "count": int64(0), "adminAccess": false}
	case firstItemHas(m["requests"], "deviceClassName") || firstItemHas(m["constraints"], "") && !has("results"):
		return map[string]interface{}{"constraints": []interface{}{}, "config": []interface{}{}}
	case has("matchAttribute"), has("opaque"):
		return map[string]interface{}{"requests": []interface{}{}}
	case has("devices") && !has("nodeSelector"):
		return map[string]interface{}{"controller": ""}
	case has("allocation"), has("reservedFor"), has("deallocationRequested"):
		return map[string]interface{}{"deallocationRequested": false, "reservedFor": []interface{}{}, "driverName": ""}
	case has("resourceHandle"), has("resourceHandles"), has("shareable"), has("availableOnNodes"):
		return map[string]interface{}{"shareable": false, "resourceHandle": "", "resourceHandles": []interface{}{}}
	case has("nodeSelector"):
		return map[string]interface{}{"controller": "", "devices": map[string]interface{}{}}
	case firstItemHas(m["results"], "request") || firstItemHas(m["config"], "source"):
		return map[string]interface{}{"results": []interface{}{}, "config": []interface{}{}}
	case has("data"), has("structuredData"):
		return map[string]interface{}{"data": ""}
	case has("operator"):
		return map[string]interface{}{"values": []interface{}{}}
	case has("matchFields"), has("matchExpressions"):
		return map[string]interface{}{"matchFields": []interface{}{}, "matchExpressions": []interface{}{}}
	}
	return nil
}

// metadataUpdate changes the fields the metadata update rules watch
// (identity, deletion, generation, finalizers while deleting).
func (g *gen) metadataUpdate(old, meta map[string]interface{}) {
	for _, m := range []map[string]interface{}{old, meta} {
		if g.chance(0.3) {
			m["uid"] = "uid-1"
			m["creationTimestamp"] = "2026-01-01T00:00:00Z"
			m["generation"] = int64(2)
		}
	}
	switch g.r.Intn(8) {
	case 0:
		meta["uid"] = g.oneOf("uid-2", "")
	case 1:
		meta["generation"] = g.pickAny(int64(1), int64(3), int64(-1))
	case 2:
		meta["creationTimestamp"] = g.oneOf("2026-02-01T00:00:00Z", "2025-01-01T00:00:00Z")
	case 3:
		delete(meta, "resourceVersion")
		if g.chance(0.5) {
			meta["resourceVersion"] = ""
		}
	case 4:
		old["deletionTimestamp"] = "2026-01-01T00:00:00Z"
		old["deletionGracePeriodSeconds"] = int64(0)
		meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
		meta["deletionGracePeriodSeconds"] = int64(0)
		meta["finalizers"] = append(g.finalizers(), "example.com/new")
	case 5:
		meta["deletionTimestamp"] = "2026-01-01T00:00:00Z"
		if g.chance(0.5) {
			meta["deletionGracePeriodSeconds"] = g.pickAny(int64(0), int64(30), int64(-1))
		}
	case 7:
		meta["managedFields"] = g.managedFields()
	case 6:
		meta["ownerReferences"] = []interface{}{map[string]interface{}{
			"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": "o1",
			"controller": true, "blockOwnerDeletion": g.chance(0.5),
		}, map[string]interface{}{
			"apiVersion": "v1", "kind": "Pod", "name": "q", "uid": g.oneOf("o1", "o2"), "controller": g.chance(0.5),
		}}
	}
}

func (g *gen) managedFields() []interface{} {
	var out []interface{}
	for i, n := 0, 1+g.r.Intn(2); i < n; i++ {
		e := map[string]interface{}{
			"manager":    g.oneOf("kubectl", "", strings.Repeat("m", 128), strings.Repeat("m", 129)),
			"operation":  g.oneOf("Update", "Apply", "", "Bad"),
			"apiVersion": g.oneOf("resource.k8s.io/"+"v1", "", "a/b/c"),
			"fieldsType": g.oneOf("FieldsV1", "", "FieldsV2"),
			"fieldsV1":   map[string]interface{}{"f:metadata": map[string]interface{}{}},
		}
		if g.chance(0.2) {
			e["subresource"] = g.oneOf("status", "")
		}
		if g.chance(0.2) {
			delete(e, "fieldsV1")
		}
		out = append(out, e)
	}
	return out
}

// sameAllocation reports whether two allocations of a claim of version
// decode to semantically equal values: claimbridge does not judge again an
// allocation that decodes alike, nor does the version's rule one that is
// semantically equal.
func sameAllocation(version string, a, b interface{}) bool {
	decode := func(v interface{}) interface{} {
		out := map[string]interface{}{api.V1alpha1: &apiv1.AllocationResult{}, api.V1alpha2: &apiv2.AllocationResult{}}[version]
		if out == nil {
			out = &apiv3.AllocationResult{}
		}
		data, err := json.Marshal(v)
		if err != nil || sigsjson.UnmarshalCaseSensitivePreserveInts(data, out) != nil {
			return v
		}
		return out
	}
	return apiequality.Semantic.DeepEqual(decode(a), decode(b))
}
