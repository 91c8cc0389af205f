package validation

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/claimbridge/claimbridge/api"
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
	// MaxViewDepth, if positive, is how deep (arrays and objects) the
	// object may nest once converted to any version: the conversion webhook
	// returns no deeper object. A create or main update whose restore
	// annotations make it deeper is refused. 0: no limit.
	MaxViewDepth int
}

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
