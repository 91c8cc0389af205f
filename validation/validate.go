package validation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/lru"
	sigsjson "sigs.k8s.io/json"

	"github.com/claimbridge/claimbridge/api"
	apiv3 "github.com/claimbridge/claimbridge/api/v1alpha3"
	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/validation/classic"
	"github.com/claimbridge/claimbridge/validation/common"
	v3 "github.com/claimbridge/claimbridge/validation/v1alpha3"
)

// Operation is the kind of write being validated.
type Operation string

// The operations Validate understands.
const (
	Create Operation = "CREATE"
	Update Operation = "UPDATE"
)

// Request is one write to validate.
type Request struct {
	// Operation is Create or Update.
	Operation Operation
	// SubResource is "" for the main resource or "status".
	SubResource string
	// Object is the new object as a JSON tree: what encoding/json decodes
	// into an interface{} (numbers may be json.Number, int64 or float64);
	// other Go types are refused as malformed. conversion.ToTree turns a
	// typed object into one, setting apiVersion and kind (ExampleValidate).
	Object map[string]interface{}
	// OldObject is the stored object, required for Update. When its version
	// differs from Object's, it is converted to Object's version first.
	OldObject map[string]interface{}
	// ObjectJSON and OldObjectJSON replace Object and OldObject for a caller
	// that holds JSON (the webhook). Each is decoded once: into typed claims
	// for a status write that only the storage version's rules judge
	// (viewsRepeatStorage), else into JSON trees.
	ObjectJSON, OldObjectJSON []byte
	// MaxViewDepth, if positive, is how deep (arrays and objects) the
	// object may nest once converted to any version: the conversion webhook
	// returns no deeper object. A create or main update whose restore
	// annotations make it deeper is refused. 0: no limit.
	MaxViewDepth int
	// CEL keeps compiled CEL selectors across requests: compiling one costs ~200 µs. nil: none.
	CEL *CELCache
}

// CELCache holds compiled CEL selectors; NewCELCache returns one.
type CELCache = lru.Cache

// NewCELCache returns a CELCache of 4096 compilations.
func NewCELCache() *CELCache { return lru.New(4096) }

// Response is the verdict on one Request.
type Response struct {
	// GroupKind is the group and kind of Object.
	GroupKind schema.GroupKind
	// Name is Object's metadata.name.
	Name string
	// Errors are the findings, with paths in the version the client sent.
	// Empty means the write is valid.
	Errors field.ErrorList
	// Warnings are admission warnings: accepted, but worth a look.
	Warnings []string
}

// objectType is what apiVersion and kind of an object say.
type objectType struct {
	group, version, kind string
}

// otherVersions are the served versions but t's, oldest first.
func (t objectType) otherVersions() []string {
	return slices.DeleteFunc(slices.Clone(api.ServedVersions), func(v string) bool { return v == t.version })
}

func parseObjectType(obj map[string]interface{}) (objectType, error) {
	if obj == nil {
		return objectType{}, fmt.Errorf("no object")
	}
	apiVersion, group, version, kind, found := api.TypeOf(obj)
	if !found || apiVersion == "" {
		return objectType{}, fmt.Errorf("apiVersion %q is not <group>/<version>", apiVersion)
	}
	if !api.IsGroup(group) {
		return objectType{}, fmt.Errorf("unsupported group %q: want %s or %s", group, api.Group, api.UpstreamGroup)
	}
	if !api.IsServed(version) {
		return objectType{}, fmt.Errorf("unsupported version %q: want one of %s", version, strings.Join(api.ServedVersions, ", "))
	}
	if !api.IsKind(kind) {
		return objectType{}, fmt.Errorf("unsupported kind %q: want %s or %s", kind, api.KindClaim, api.KindTemplate)
	}
	return objectType{group: group, version: version, kind: kind}, nil
}

// IsSupported reports whether obj is a kind Validate handles (any supported
// group, version and kind), so that callers can skip other objects.
func IsSupported(obj map[string]interface{}) bool {
	_, err := parseObjectType(obj)
	return err == nil
}

// Validate decodes req.Object (or req.ObjectJSON) by apiVersion and kind, emulates the CRD's
// registry strategy, applies upstream defaulting and runs the version's
// rules plus, for the CRD's group, the cross-version checks. err is returned
// only for unusable input (an unsupported type, an undecodable object, a
// status write to a template, an update without a matching old object); an
// invalid object yields Response.Errors.
func Validate(req Request) (Response, error) {
	if req.Object == nil && req.ObjectJSON != nil {
		if resp, ok := storageStatusFromJSON(req); ok {
			return resp, nil
		}
		var err error
		if req.Object, err = api.DecodeObject(req.ObjectJSON); err != nil {
			return Response{}, fmt.Errorf("object %v", err)
		}
		if req.OldObject, err = api.DecodeObject(req.OldObjectJSON); err != nil && req.Operation == Update {
			return Response{}, fmt.Errorf("oldObject %v", err)
		}
	}
	t, err := parseObjectType(req.Object)
	if err != nil {
		return Response{}, err
	}
	return validate(t, req)
}

// validate is Validate of an object identified as t.
func validate(t objectType, req Request) (Response, error) {
	var err error
	resp := Response{GroupKind: schema.GroupKind{Group: t.group, Kind: t.kind}}
	resp.Name, _ = api.Metadata(req.Object)["name"].(string)
	var old map[string]interface{}
	switch {
	case req.SubResource != "" && req.SubResource != "status":
		return resp, fmt.Errorf("unsupported subresource %q", req.SubResource)
	case req.SubResource == "status" && t.kind != api.KindClaim:
		return resp, fmt.Errorf("%s has no status subresource", t.kind)
	case req.SubResource == "status" && req.Operation != Update:
		return resp, fmt.Errorf("the status subresource can only be updated, not %s", req.Operation)
	case req.Operation == Create:
		resp.Errors, resp.Warnings, err = validateCreate(t, req.Object, req.MaxViewDepth, req.CEL)
	case req.Operation != Update:
		return resp, fmt.Errorf("unsupported operation %q", req.Operation)
	case req.SubResource == "":
		if old, err = oldInVersion(req.OldObject, t); err == nil {
			resp.Errors, resp.Warnings, err = validateUpdate(t, req.Object, old, req.MaxViewDepth, req.CEL)
		}
	default:
		if old, err = oldInVersion(req.OldObject, t); err == nil {
			resp.Errors, resp.Warnings, err = validateStatusUpdate(t, req.Object, old)
		}
	}
	resp.Warnings = collapseIndexedWarnings(resp.Warnings)
	return resp, err
}

// validateCreate validates a new object (upstream's ValidateResourceClaim
// after PrepareForCreate) and, for the CRD's group, how every other version
// sees it.
func validateCreate(t objectType, obj map[string]interface{}, maxDepth int, cel *CELCache) (field.ErrorList, []string, error) {
	obj = prepareForCreate(obj, t.kind)
	errs, warnings, err := createRules(t.version, t.kind, obj, cel)
	if err != nil || t.group == api.UpstreamGroup {
		return errs, warnings, err
	}
	errs = append(errs, otherVersionCreateErrors(t, obj, maxDepth, cel)...)
	if len(errs) == 0 {
		warnings = append(warnings, storageWarnings(t, "", obj, nil, warnings)...)
	}
	return errs, warnings, nil
}

// validateUpdate validates an update of the main resource (upstream's
// ValidateResourceClaimUpdate after PrepareForUpdate) and, for the CRD's
// group, how every other version sees it.
func validateUpdate(t objectType, obj, old map[string]interface{}, maxDepth int, cel *CELCache) (field.ErrorList, []string, error) {
	obj = prepareForUpdate(obj, old, t.kind)
	ownNew, ownOld := obj, old
	if t.kind == api.KindTemplate && sameTemplateMetadata(obj, old) {
		// An unchanged template spec.metadata is not validated again,
		// nor decoded (see withoutTemplateMetadata).
		ownNew, ownOld = withoutTemplateMetadata(obj), withoutTemplateMetadata(old)
	}
	errs, warnings, err := updateRules(t.version, t.kind, ownNew, ownOld, cel)
	if err != nil || t.group == api.UpstreamGroup {
		return errs, warnings, err
	}
	errs = withoutStoredSpecErrors(t, errs, obj, old, cel)
	if sameConversionInput(obj, old) {
		return errs, warnings, nil // it looks like the old object in every version
	}
	errs = append(errs, otherVersionUpdateErrors(t, obj, old, errs, maxDepth)...)
	if len(errs) == 0 {
		warnings = append(warnings, storageWarnings(t, "", obj, old, warnings)...)
	}
	return errs, warnings, nil
}

// validateStatusUpdate validates a write to a claim's status (upstream's
// ValidateResourceClaimStatusUpdate after PrepareForUpdate of the status
// strategy) and, for the CRD's group, how every other version sees it
// (storageStatusFromJSON spares the webhook that when it can only repeat
// the storage version's findings).
func validateStatusUpdate(t objectType, obj, old map[string]interface{}) (field.ErrorList, []string, error) {
	obj = prepareForStatusUpdate(obj, old)
	errs, warnings, err := statusRules(t.version, obj, old, t.group == api.Group)
	switch {
	case err != nil:
		return nil, nil, err
	case t.group == api.UpstreamGroup && t.version == api.V1alpha1:
		return withoutAllocationImmutable(errs), warnings, nil
	case t.group == api.UpstreamGroup:
		return errs, warnings, nil
	}
	// A write of only reservedFor and deallocationRequested, which every
	// version holds alike, converts as the stored object does.
	sameInput := sameConversionInput(obj, old, "reservedFor", "deallocationRequested")
	errs = append(errs, otherVersionStatusErrors(t, obj, old, errs, sameInput)...)
	if len(errs) == 0 && !sameInput {
		warnings = append(warnings, storageWarnings(t, "status", obj, old, warnings)...)
	}
	return errs, warnings, nil
}

// storageStatusFromJSON judges from req's JSON alone a status write of a
// storage version claim of the CRD that viewsRepeatStorage spares the other
// versions' views: decoded once into typed claims, prepared as
// prepareForStatusUpdate prepares trees. false: the trees judge the write
// (another write, JSON that does not decode cleanly, views that may not fit).
func storageStatusFromJSON(req Request) (Response, bool) {
	var claim, old apiv3.ResourceClaim
	if req.Operation != Update || req.SubResource != "status" || !bytes.Contains(req.ObjectJSON, storageAPIVersion) || // no decode of another version's write
		!decodesCleanly(req.ObjectJSON, &claim) || !decodesCleanly(req.OldObjectJSON, &old) ||
		!treeParameters(&claim) || !treeParameters(&old) ||
		claim.TypeMeta != (metav1.TypeMeta{APIVersion: api.Group + "/" + api.StorageVersion, Kind: api.KindClaim}) || old.TypeMeta != claim.TypeMeta ||
		!viewsRepeatStorage(old.Annotations, 6*len(req.OldObjectJSON), 6*len(req.ObjectJSON)) { // JSON written again is at most 6 bytes a byte
		return Response{}, false
	}
	prepared := old
	prepared.Status, prepared.ManagedFields = claim.Status, claim.ManagedFields
	v3.SetDefaults(&prepared)
	errs, warnings := statusVerdict(v1alpha3Rules{}, &prepared, &old, true)
	return Response{GroupKind: schema.GroupKind{Group: api.Group, Kind: api.KindClaim}, Name: claim.Name, Errors: errs, Warnings: collapseIndexedWarnings(warnings)}, true
}

// treeParameters rewrites the opaque parameters of claim, which a typed
// decode keeps as the bytes sent, as the trees hold them (and kube-apiserver
// stores them): decoded, so invalid UTF-8 is U+FFFD, escapes are undone and
// the last of duplicate keys wins, then written again compact with sorted
// keys. Parameters the same but for spacing, key order or escapes are then
// equal, as for the trees. false if one does not decode.
func treeParameters(claim *apiv3.ResourceClaim) bool {
	var opaques []*apiv3.OpaqueDeviceConfiguration
	for _, c := range claim.Spec.Devices.Config {
		opaques = append(opaques, c.Opaque)
	}
	if a := claim.Status.Allocation; a != nil {
		for _, c := range a.Devices.Config {
			opaques = append(opaques, c.Opaque)
		}
	}
	for _, o := range opaques {
		if o == nil || o.Parameters.Raw == nil {
			continue
		}
		var tree any
		if err := api.DecodeJSON(o.Parameters.Raw, &tree); err != nil {
			return false
		}
		raw, err := api.AppendJSON(nil, tree)
		if err != nil {
			return false
		}
		o.Parameters.Raw = raw
	}
	return true
}

var storageAPIVersion = []byte(`"apiVersion":"` + api.Group + "/" + api.StorageVersion + `"`)

// decodesCleanly decodes data into into: false for an error, an unknown
// field or a duplicate one (the trees report those).
func decodesCleanly(data []byte, into any) bool {
	strictErrs, err := sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowUnknownFields, sigsjson.DisallowDuplicateFields)
	return err == nil && len(strictErrs) == 0
}

// viewsRepeatStorage is the one rule that spares a status write of the
// storage version every other version's checks, which can only repeat its
// own: the stored object, of annotations, has no other version's restore
// data (its views hold the same allocation, reservedFor and deletion, no
// deallocationRequested and a shareable allocation), and its views fit
// (viewsFit) with spec and status of at most specJSON and statusJSON bytes.
func viewsRepeatStorage(annotations map[string]string, specJSON, statusJSON int) bool {
	otherRestoreData := func(v string) bool {
		_, ok := annotations[api.RestoreAnnotation(v)]
		return ok && v != api.StorageVersion
	}
	return !slices.ContainsFunc(api.ServedVersions, otherRestoreData) && viewsFit(annotations, specJSON, statusJSON)
}

// viewsFit is the one rule that spares a create or a status write the
// conversions to every other version: none can exceed the annotation size
// limit beside annotations. A conversion writes restore data of at most
// twice the spec and four times the status (of at most specJSON and
// statusJSON bytes of JSON), under 64 KiB more.
func viewsFit[V any](annotations map[string]V, specJSON, statusJSON int) bool {
	room := conversion.TotalAnnotationSizeLimitB - 64*1024
	for k, v := range annotations {
		s, _ := any(v).(string)
		room -= len(k) + len(s)
	}
	return 2*specJSON+4*statusJSON <= room
}

// jsonLenBound is at least the length of v's JSON encoding, counting six
// bytes (\u00XX) for each byte of a string: the most JSON it can be
// written as.
func jsonLenBound(v interface{}) int {
	switch v := v.(type) {
	case map[string]interface{}:
		n := 2
		for k, e := range v {
			n += 6*len(k) + 4 + jsonLenBound(e)
		}
		return n
	case []interface{}:
		n := 2
		for _, e := range v {
			n += jsonLenBound(e) + 1
		}
		return n
	case string:
		return 6*len(v) + 2
	case json.Number:
		return len(v) + 1
	}
	return 32 // null, a bool, an int64 or a float64
}

// sameConversionInput reports whether an update leaves what conversion
// reads (apiVersion, kind, spec, the annotations, absent and null told
// apart, and the status but for the keys in except) as it was: the update
// then converts as the old object does in every version.
func sameConversionInput(newObj, oldObj map[string]interface{}, except ...string) bool {
	if slices.ContainsFunc([]string{"apiVersion", "kind", "spec"}, func(k string) bool { return !api.DeepEqualJSON(newObj[k], oldObj[k]) }) {
		return false
	}
	newStatus, newIsMap := newObj["status"].(map[string]interface{})
	oldStatus, oldIsMap := oldObj["status"].(map[string]interface{})
	if newIsMap && oldIsMap {
		newStatus, oldStatus = maps.Clone(newStatus), maps.Clone(oldStatus)
		for _, k := range except {
			delete(newStatus, k)
			delete(oldStatus, k)
		}
		if !api.DeepEqualJSON(newStatus, oldStatus) {
			return false
		}
	} else if !api.DeepEqualJSON(newObj["status"], oldObj["status"]) {
		return false
	}
	newMeta, newIsMap := newObj["metadata"].(map[string]interface{})
	oldMeta, oldIsMap := oldObj["metadata"].(map[string]interface{})
	_, newHas := newMeta["annotations"]
	_, oldHas := oldMeta["annotations"]
	_, newSet := newObj["metadata"]
	_, oldSet := oldObj["metadata"]
	return newSet == oldSet && newIsMap == oldIsMap && newHas == oldHas && api.DeepEqualJSON(newMeta["annotations"], oldMeta["annotations"])
}

// The prepareFor functions do to the JSON trees what the CRD's registry
// strategy does to a write before admission, so that offline validation sees
// what the webhook would. Results share the arguments' subtrees, unmodified.

// prepareForCreate drops the status of a new claim: create cannot set it.
func prepareForCreate(obj map[string]interface{}, kind string) map[string]interface{} {
	out := maps.Clone(obj)
	if kind == api.KindClaim {
		delete(out, "status")
	}
	return out
}

// prepareForUpdate keeps the old status on an update of the main resource:
// status changes sent there are discarded.
func prepareForUpdate(obj, old map[string]interface{}, kind string) map[string]interface{} {
	out := maps.Clone(obj)
	if kind == api.KindClaim {
		setLike(out, old, "status")
	}
	return out
}

// prepareForStatusUpdate takes only the status and managedFields from a
// status update; everything else stays as stored.
func prepareForStatusUpdate(obj, old map[string]interface{}) map[string]interface{} {
	out := maps.Clone(old)
	setLike(out, obj, "status")
	outMeta := map[string]interface{}{} // a new map: managedFields is set below
	maps.Copy(outMeta, api.Metadata(out))
	out["metadata"] = outMeta
	setLike(outMeta, api.Metadata(obj), "managedFields")
	return out
}

// setLike gives to the member key of like: its value, or none.
func setLike(to, like map[string]interface{}, key string) {
	if v, ok := like[key]; ok {
		to[key] = v
	} else {
		delete(to, key)
	}
}

// GeneratedNameSuffix stands for the five random characters the apiserver
// appends to a generateName; any five of its alphabet give the same errors.
const GeneratedNameSuffix = "xxxxx"

// WithGeneratedName returns obj with the name the apiserver would give it
// before validating a create (generateName cut to 58 bytes, then
// GeneratedNameSuffix) when it has a generateName and no name, else obj
// itself. Offline validation needs it: the webhook always sees a name.
func WithGeneratedName(obj map[string]interface{}) map[string]interface{} {
	meta := api.Metadata(obj)
	base, _ := meta["generateName"].(string)
	if name, set := meta["name"]; base == "" || set && name != nil && name != "" {
		return obj
	}
	const maxGeneratedNameLength = 63 - len(GeneratedNameSuffix)
	m := maps.Clone(meta)
	m["name"] = base[:min(len(base), maxGeneratedNameLength)] + GeneratedNameSuffix
	out := maps.Clone(obj)
	out["metadata"] = m
	return out
}

// withoutAllocationImmutable drops the status.allocation immutability
// finding, which 1.26 did not have. The CRD keeps it for its v1alpha1, whose
// allocation the other versions show (docs/validation.md).
func withoutAllocationImmutable(errs field.ErrorList) field.ErrorList {
	out := slices.DeleteFunc(slices.Clone(errs), func(e *field.Error) bool {
		return e.Type == field.ErrorTypeInvalid && e.Field == "status.allocation" && e.Detail == common.FieldImmutableErrorMsg
	})
	if len(out) == 0 {
		return nil
	}
	return out
}

// oldInVersion checks the old object and converts it to the new one's
// version when they differ, as the CLI may pair them.
func oldInVersion(old map[string]interface{}, t objectType) (map[string]interface{}, error) {
	if old == nil {
		return nil, fmt.Errorf("an update needs the old object")
	}
	ot, err := parseObjectType(old)
	if err != nil {
		return nil, fmt.Errorf("old object: %w", err)
	}
	if ot.kind != t.kind {
		return nil, fmt.Errorf("old object is a %s, new object a %s", ot.kind, t.kind)
	}
	if ot.version == t.version {
		return old, nil
	}
	converted, err := conversion.Convert(old, t.version)
	if err != nil {
		return nil, fmt.Errorf("the old object: %w", err) // err names both versions
	}
	return converted, nil
}

// ImmediateAllocationWarning ends the warning about a v1alpha1 or v1alpha2
// allocationMode: Immediate, which v1alpha3, the storage version, lacks.
const ImmediateAllocationWarning = classic.ImmediateAllocationWarning

// StorageWarningPrefix starts the warnings of storageWarnings.
const StorageWarningPrefix = "stored as " + api.StorageVersion + ": "

// storageWarnings are the losses of converting a write to the storage
// version, in the section the write changes, that neither the old object nor
// the version's own warnings already name.
func storageWarnings(t objectType, subResource string, newObj, oldObj map[string]interface{}, reported []string) []string {
	if t.version == api.StorageVersion {
		return nil
	}
	ws, err := lossesInStorage(newObj, subResource)
	if err != nil {
		return nil // the cross-version checks report conversion failures
	}
	var had []string
	if oldObj != nil {
		had, _ = lossesInStorage(oldObj, subResource)
	}
	known := append(had, reported...)
	var out []string
	for _, w := range ws {
		path := strings.SplitN(w, ": ", 2)[0] + ":"
		if !slices.ContainsFunc(known, func(r string) bool { return r == w || strings.HasPrefix(r, path) }) {
			out = append(out, StorageWarningPrefix+w)
		}
	}
	return out
}

// lossesInStorage lists "<path>: <message>" for the losses of converting obj
// to the storage version in the section a write of subResource changes.
func lossesInStorage(obj map[string]interface{}, subResource string) ([]string, error) {
	ws, err := conversion.Losses(obj, api.StorageVersion)
	if err != nil {
		return nil, err
	}
	_, written, _, _ := conversion.Identify(obj)
	var out []string
	for _, w := range ws {
		// A status write causes the losses of status fields and of
		// built-in finalizers, whose meaning depends on the allocation it
		// sets (a main write cannot set it).
		statusLoss := strings.HasPrefix(w.Path, "status.") || strings.HasPrefix(w.Path, "metadata.finalizers[")
		if statusLoss == (subResource == "status") {
			text := w.Path + ": " + w.Message
			if w.From != written {
				// The path is in the version of a later step.
				text += " (" + w.From + "→" + w.To + ")"
			}
			out = append(out, text)
		}
	}
	return out, nil
}

// UnknownFields returns the fields of obj, a claim or template of
// v1alpha1-v1alpha3, that its version does not have, as Validate reports
// them, without running any rule.
func UnknownFields(obj map[string]interface{}) (field.ErrorList, error) {
	t, err := parseObjectType(obj)
	if err != nil {
		return nil, err
	}
	_, unknown, err := decodeObject(t.version, t.kind, obj, true)
	return unknown, err
}
