package validation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/common"
)

// convertedPair is the new and the old object converted to one version.
type convertedPair struct {
	newParts, oldParts comparedParts
	// err is why the objects cannot be converted to the version.
	err error
	// coveredBy names the version whose pair stands for this one; the pair
	// is then empty and not checked.
	coveredBy string
	// newObj and oldObj are the converted objects, kept on a main update
	// (tooDeep) and for the storage version (storageStatusErrors).
	newObj, oldObj map[string]interface{}
}

// skipCoveredConversions enables the shortcuts; tests turn it off to compare.
var skipCoveredConversions = true

// convertToOtherVersions returns, keyed by version, the pairs of every
// version other than t.version. Each object is converted step by step
// outward from t.version, as conversion.Convert goes. A status write decodes
// only deletionTimestamp and the status. A v1alpha3 status write whose status
// surely fits every version skips the versions whose checks would repeat
// v1alpha3's: those without an older restore annotation. With deriveOld (see
// sameConversionInput) only newObj is converted, and the old parts are the
// new ones with oldObj's reservedFor and deallocationRequested.
func convertToOtherVersions(t objectType, statusOnly, deriveOld bool, newObj, oldObj map[string]interface{}) map[string]convertedPair {
	out := make(map[string]convertedPair, len(versions)-1)
	fits := statusOnly && skipCoveredConversions && t.version == StorageVersion && statusFitsEveryVersion(newObj)
	olderRestore := hasRestore(newObj, api.V1alpha2) || hasRestore(newObj, api.V1alpha1) || hasRestore(oldObj, api.V1alpha2) || hasRestore(oldObj, api.V1alpha1)
	if fits && othersAreClassic() && !olderRestore {
		for _, version := range versions {
			if version != t.version {
				out[version] = convertedPair{coveredBy: t.version}
			}
		}
		return out
	}
	var converted [2][]map[string]interface{} // per object, per version index
	objs := [2]map[string]interface{}{newObj, oldObj}
	self := slices.Index(versions, t.version)
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
			if out, ok := pairsFromStatusFacts(t, newObj, oldObj); ok {
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
			var pair convertedPair
			if fits && version == "v1alpha1" && versions[j-dir] == "v1alpha2" &&
				converted[0][j-dir] != nil && !hasRestore(converted[0][j-dir], version) && !hasRestore(converted[1][j-dir], version) {
				out[version] = convertedPair{coveredBy: versions[j-dir]}
				continue
			}
			for i := range converting {
				prev := converted[i][j-dir]
				if prev == nil {
					break // an earlier step failed: this version has no view either
				}
				conv := conversion.Convert
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
				pair.newParts = statusFacts(version, converted[0][j])
				pair.oldParts = withCommonStatus(pair.newParts, oldCommon)
				pair.newParts = withCommonStatus(pair.newParts, newCommon)
				out[version] = pair
				continue
			}
			var err error
			if !statusOnly || version == StorageVersion {
				pair.newObj, pair.oldObj = converted[0][j], converted[1][j]
			}
			views := [2]*comparedParts{&pair.newParts, &pair.oldParts}
			for i := range converting {
				if *views[i], err = comparedPartsOf(t.kind, version, converted[i][j], statusOnly); err != nil {
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
		if _, err := conversion.Convert(obj, version); err != nil {
			return err // names the object and both versions
		}
	}
	// Unreachable while conversion goes through the neighbours.
	return fmt.Errorf("no view in %s: a step through the neighbouring versions failed", version)
}

// comparedPartsOf decodes the compared parts of a converted object;
// statusOnly decodes only metadata.deletionTimestamp and the status.
func comparedPartsOf(kind, version string, obj map[string]interface{}, statusOnly bool) (comparedParts, error) {
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
	v, err := rulesFor[version].decodeParts(kind, obj)
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

// othersAreClassic reports whether the other versions are exactly v1alpha1
// and v1alpha2, the ones the v1alpha3 status shortcut reasons about.
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

// restoreStatusOps reports whether another version's restore annotation
// patches the status, reservedFor or deallocationRequested (common: the old
// parts cannot be derived from the new), and whether one patches the status,
// the allocation or its shareable (facts).
func restoreStatusOps(t objectType, obj map[string]interface{}) (common, facts bool) {
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

// statusFitsEveryVersion reports whether obj, a v1alpha3 status write,
// surely converts to every version. Conversion fails only when the restore
// annotations exceed the size limit; they hold at most four times the status,
// twice the spec, and well under 64 KiB of overhead.
func statusFitsEveryVersion(obj map[string]interface{}) bool {
	room := annotationRoom(obj, 64*1024)
	return room >= 0 && 4*encodedLenBound(obj["status"])+2*encodedLenBound(obj["spec"]) <= room
}

// encodedLenBound is at least the length of v's JSON encoding: a byte that
// may need escaping counts as the six bytes of \u00XX.
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
