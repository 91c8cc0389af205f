package validation

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/claimbridge/claimbridge/validation/common"

	"github.com/claimbridge/claimbridge/conversion"

	"github.com/claimbridge/claimbridge/api"
)

// The cross-version checks of one update look at the old and the new
// object through every other version. viewSet computes those views once per
// request and only as far as the checks read them:
//
//   - each object is converted along the chain of neighbouring versions
//     outward from the request's version (v1alpha3 → v1alpha2 → v1alpha1),
//     each step from the previous step's result, so no step is done twice.
//     conversion.Convert itself goes through the neighbours one step at a
//     time, so the result is the same as converting directly
//     (TestViewChainMatchesDirectConversion keeps that so);
//   - a status write compares only metadata.deletionTimestamp and the
//     status, so only those are decoded into the typed view (spec and
//     metadata are the stored object's on both sides: see
//     prepareForStatusUpdate).
//
//   - on a status write in v1alpha3, the v1alpha1 views are not computed when
//     the v1alpha2 views carry no claimbridge.dev/restore-v1alpha1 annotation:
//     v1alpha2 → v1alpha1 then maps the status field by field
//     (conversion.statusV2ToV1: allocation presence, shareable, reservedFor
//     and deallocationRequested copied), so the v1alpha1 status views equal
//     the v1alpha2 ones, and the status checks — the same functions, paths
//     and messages for both, neither is the storage version — report the
//     same findings, which are not repeated anyway.
//     TestSkippedV1alpha1ViewsReportNothingNew keeps that so.
//
//   - on a status write in v1alpha3 (the scheduler's), no view is computed at
//     all when neither object carries a restore annotation of v1alpha2 or
//     v1alpha1. v1alpha3 → v1alpha2 then copies reservedFor and
//     deallocationRequested (conversion.statusV3ToV2), keeps the allocation's
//     presence and makes it shareable, and metadata (the deletion timestamp)
//     is copied; v1alpha2 → v1alpha1 keeps all of that (above). So every
//     view's status view is the v1alpha3 one with NotShareable false, and
//     the cross-version status checks are then the very checks v1alpha3's
//     own ValidateResourceClaimStatusUpdate runs on it (the reservedFor
//     invariants — whose shareable rule needs NotShareable — and the
//     deallocation rules, same paths and messages): they can only repeat
//     its findings, which are not repeated anyway.
//     TestSkippedViewsReportNothingNew keeps that so.
//
// Both status shortcuts also skip the conversions, and with them the check
// that the new object can still be shown in every version (a conversion
// fails when what the version cannot hold does not fit the annotation size
// limit: newlyUnreadable). So they are taken only for a status that surely
// fits (statusFitsEveryVersion): a v1alpha3 allocation of 17 opaque configs
// of 16 KiB is 17 handles in v1alpha2, which v1alpha1 cannot hold within
// the limit, and a 300 KB class config fits in no older version.
//
// A version the object cannot be shown in (the conversion fails) has no
// view; the error is that of the direct conversion, as before.

// viewPair is the new and the old object as seen through one version.
type viewPair struct {
	newView, oldView objectView
	err              error
	// sameAs names the version whose views stand for this one's (see
	// above; the request's own version when its own status rules already
	// run every check this pair would); the pair is then empty and not
	// checked.
	sameAs string
	// newObj and oldObj are the converted objects: on a main update, for
	// the nesting check (tooDeep); of the storage version's pair on a
	// status write (the views decode their status only), for its own
	// status rules (storageStatusErrors). nil otherwise.
	newObj, oldObj map[string]interface{}
}

// skipEqualViews enables the v1alpha1 shortcut; tests turn it off to
// compare.
var skipEqualViews = true

// crossViews returns the views of newObj and oldObj in every version other
// than t.version, keyed by version.
//
// With deriveOld (a status write whose status changed only in reservedFor
// and deallocationRequested, see sameConversionInput), only newObj is
// converted, and each old view is the new one with oldObj's two fields.
func crossViews(t target, statusOnly, deriveOld bool, newObj, oldObj map[string]interface{}) map[string]viewPair {
	out := make(map[string]viewPair, len(versions)-1)
	fits := statusOnly && skipEqualViews && t.version == StorageVersion && statusFitsEveryVersion(newObj)
	if fits && othersAreClassic() && !anyRestore(newObj, oldObj, "v1alpha2", "v1alpha1") {
		for _, version := range versions {
			if version != t.version {
				out[version] = viewPair{sameAs: t.version}
			}
		}
		return out
	}
	var converted [2][]map[string]interface{} // per object, per version index
	objs := [2]map[string]interface{}{newObj, oldObj}
	self := versionIndex(t.version)
	for i := range objs {
		converted[i] = make([]map[string]interface{}, len(versions))
		converted[i][self] = objs[i]
	}
	converting := objs[:] // the objects converted: both, or with deriveOld the new one
	if deriveOld {
		newCommon, newFacts := restoreStatusOps(t, newObj)
		oldCommon, _ := restoreStatusOps(t, oldObj)
		switch {
		case newCommon || oldCommon:
			deriveOld = false // the views' consumers are not the request's: convert both
		case skipFactConversion && !newFacts:
			if out, ok := viewsFromFacts(t, newObj, oldObj); ok {
				return out
			}
		}
	}
	var oldCommon, newCommon common.StatusView
	if deriveOld {
		var errOld, errNew error
		oldCommon, errOld = commonStatus(t, oldObj)
		newCommon, errNew = commonStatus(t, newObj)
		if errOld != nil || errNew != nil {
			deriveOld = false // decode errors are the full path's to report
		} else {
			converting = objs[:1]
		}
	}
	for _, dir := range []int{-1, +1} {
		for j := self + dir; j >= 0 && j < len(versions); j += dir {
			version := versions[j]
			var pair viewPair
			if fits && version == "v1alpha1" && versions[j-dir] == "v1alpha2" &&
				converted[0][j-dir] != nil && !hasRestore(converted[0][j-dir], version) && !hasRestore(converted[1][j-dir], version) {
				out[version] = viewPair{sameAs: versions[j-dir]}
				continue
			}
			for i := range converting {
				prev := converted[i][j-dir]
				if prev == nil {
					break // an earlier step failed: this version has no view either
				}
				conv := convert
				if deriveOld {
					conv = conversion.ConvertSections // only statusFacts reads the result
				}
				c, err := conv(prev, version)
				if err != nil {
					break
				}
				converted[i][j] = c
			}
			if deriveOld && converted[0][j] != nil {
				converted[1][j] = converted[0][j] // stands for the old object's conversion
			}
			if converted[0][j] == nil || converted[1][j] == nil {
				converted[0][j], converted[1][j] = nil, nil
				pair.err = directConversionError(newObj, oldObj, version)
				out[version] = pair
				continue
			}
			if deriveOld {
				pair.newView = statusFacts(version, converted[0][j])
				pair.oldView = withCommonStatus(pair.newView, oldCommon)
				pair.newView = withCommonStatus(pair.newView, newCommon)
				out[version] = pair
				continue
			}
			var err error
			if !statusOnly || version == StorageVersion {
				pair.newObj, pair.oldObj = converted[0][j], converted[1][j]
			}
			views := [2]*objectView{&pair.newView, &pair.oldView}
			for i := range converting {
				if *views[i], err = viewOf(t.kind, version, converted[i][j], statusOnly); err != nil {
					pair.err = fmt.Errorf("decoding the %s conversion: %w", version, err)
					break
				}
			}
			out[version] = pair
		}
	}
	return out
}

// directConversionError converts both objects straight to version, as a
// single conversion would, to report its error.
func directConversionError(newObj, oldObj map[string]interface{}, version string) error {
	for _, obj := range []map[string]interface{}{newObj, oldObj} {
		if _, err := convert(obj, version); err != nil {
			return err // names the object and both versions
		}
	}
	// Unreachable while conversion goes through the neighbours: a chain
	// step failed but the direct conversion did not.
	return fmt.Errorf("no view in %s: a step through the neighbouring versions failed", version)
}

// viewOf decodes the view of a converted object; statusOnly decodes only
// metadata.deletionTimestamp and the status.
func viewOf(kind, version string, obj map[string]interface{}, statusOnly bool) (objectView, error) {
	if statusOnly {
		reduced := map[string]interface{}{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
		if meta, ok := obj["metadata"].(map[string]interface{}); ok {
			if ts, ok := meta["deletionTimestamp"]; ok {
				reduced["metadata"] = map[string]interface{}{"deletionTimestamp": ts}
			}
		}
		if status, ok := obj["status"]; ok {
			reduced["status"] = status
		}
		obj = reduced
	}
	v, err := shapes[version].view(kind, obj)
	v.rawStatus = obj["status"]
	return v, err
}

// hasRestore reports whether obj carries the restore annotation of version.
func hasRestore(obj map[string]interface{}, version string) bool {
	meta, _ := obj["metadata"].(map[string]interface{})
	ann, _ := meta["annotations"].(map[string]interface{})
	_, ok := ann[conversion.RestoreAnnotation(version)]
	return ok
}

func versionIndex(version string) int {
	for i, v := range versions {
		if v == version {
			return i
		}
	}
	return -1
}

// anyRestore reports whether any of objs carries the restore annotation of
// any of versions.
func anyRestore(newObj, oldObj map[string]interface{}, versions ...string) bool {
	for _, obj := range []map[string]interface{}{newObj, oldObj} {
		for _, version := range versions {
			if hasRestore(obj, version) {
				return true
			}
		}
	}
	return false
}

// othersAreClassic reports whether the versions other than the storage
// version are exactly v1alpha1 and v1alpha2, the versions the v1alpha3
// shortcut above reasons about (a newer served version would need its own
// reasoning).
func othersAreClassic() bool {
	n := 0
	for _, v := range versions {
		switch v {
		case StorageVersion:
		case api.V1alpha1, api.V1alpha2:
			n++
		default:
			return false
		}
	}
	return n == 2
}

// restoreStatusOps reports whether a restore annotation of a version other
// than t's has a status operation on the whole status, reservedFor or
// deallocationRequested (common), and whether one on the whole status, the
// allocation or its shareable (facts: see viewsFromNativeFacts). No
// conversion writes a common one, and no write can store one
// (createViewErrors, pendingStatusErrors); with one, a view's consumers or
// deallocation request would not be the request's, which is what deriving
// the old views assumes. Each annotation is decoded once.
func restoreStatusOps(t target, obj map[string]interface{}) (common, facts bool) {
	for _, version := range versions {
		if version == t.version {
			continue
		}
		for _, p := range conversion.RestoreStatusPaths(obj, version) {
			switch {
			case p == "/status":
				common, facts = true, true
			case p == "/status/reservedFor" || strings.HasPrefix(p, "/status/reservedFor/") || p == "/status/deallocationRequested":
				common = true
			case p == "/status/allocation" || p == "/status/allocation/shareable":
				facts = true
			}
		}
	}
	return common, facts
}

// statusFitsEveryVersion reports whether obj, the new object of a v1alpha3
// status write, surely converts to every version, as fitsEveryVersion does
// for a create's spec: a conversion fails only when the restore annotations
// it writes do not fit the annotation size limit beside the object's own.
// On the way to v1alpha1 those record at most the status twice (in
// restore-v1alpha3 its v1alpha3 form; in restore-v1alpha2 its v1alpha2 form,
// whose handle data is the v1alpha3 parameters' JSON text, each byte at most
// two once encoded again) and the spec, each operation's value a disjoint
// part, with operations whose paths are the shapes' field names and the
// indices of lists v1alpha3's rules bound. Four times the status's encoding,
// twice the spec's and 64 KiB is more than that. Typical statuses (a few
// KiB) are far below it.
func statusFitsEveryVersion(obj map[string]interface{}) bool {
	const slack = 64 * 1024
	total := annotationBytes(obj)
	if total+slack > conversion.TotalAnnotationSizeLimitB {
		return false
	}
	return total+4*encodedLenBound(obj["status"])+2*encodedLenBound(obj["spec"])+slack <= conversion.TotalAnnotationSizeLimitB
}

// encodedLenBound is at least the length of v's JSON encoding, counted
// without encoding it (the scheduler's status writes take this path): a
// string byte that may need escaping (a quote, a backslash, a control
// character, <, > and & as encoding/json escapes them, any byte of a
// non-ASCII character) counts as the six bytes of \u00XX, every other one
// as one.
func encodedLenBound(v interface{}) int {
	switch v := v.(type) {
	case map[string]interface{}:
		n := 2
		for k, e := range v {
			n += stringLenBound(k) + 2 + encodedLenBound(e)
		}
		return n
	case []interface{}:
		n := 2
		for _, e := range v {
			n += encodedLenBound(e) + 1
		}
		return n
	case string:
		return stringLenBound(v)
	case json.Number:
		return len(v)
	case nil:
		return 4
	default: // bool, float64, int64
		return 32
	}
}

func stringLenBound(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b == '<' || b == '>' || b == '&' || b >= 0x80 {
			n += 6
		} else {
			n++
		}
	}
	return n
}
