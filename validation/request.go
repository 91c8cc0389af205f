package validation

import (
	"fmt"
	"slices"
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

// Groups, kinds and versions Validate accepts, named here for this package's
// callers; they are defined in package api.
const (
	// GroupClaimbridge is the CRD group claimbridge serves.
	GroupClaimbridge = api.Group
	// GroupUpstream is the Kubernetes group the shapes come from.
	GroupUpstream = api.UpstreamGroup

	KindResourceClaim         = api.KindClaim
	KindResourceClaimTemplate = api.KindTemplate
)

// Versions lists the shapes, oldest first: the served versions.
var Versions = slices.Clone(api.ServedVersions) // a copy: changing it changes nothing else

// versions is what the package itself uses.
var versions = slices.Clone(api.ServedVersions)

// Request is one write to validate.
type Request struct {
	// Operation is Create or Update.
	Operation Operation
	// SubResource is "" for the main resource or "status".
	SubResource string
	// Object is the new object as a JSON tree: what encoding/json decodes
	// into an interface{} (map[string]interface{}, []interface{}, string,
	// bool, nil; numbers may be json.Number, int64 or float64). Other Go
	// types (a map[string]string of labels, a typed constant) are not JSON
	// types: conversion refuses them as malformed. Turn a typed object into
	// such a tree with conversion.ToTree, which also sets apiVersion and kind
	// from its Go type where its TypeMeta is empty (as in objects read
	// through a client), or with runtime.DefaultUnstructuredConverter's
	// ToUnstructured after setting them (ExampleValidate).
	Object map[string]interface{}
	// OldObject is the stored object, required for Update. When its version
	// differs from Object's, it is converted to Object's version first.
	OldObject map[string]interface{}
	// MaxViewDepth, if positive, is how deep (arrays and objects) the
	// object may nest as seen through every version: the conversion webhook
	// returns no deeper object (its --max-json-depth less the levels of a
	// ConversionReview), so one that would be is not readable through that
	// version. A create or main update whose restore annotations make it
	// so is refused (docs/validation.md). 0: no limit (claimbridge
	// validate, which converts nothing through a webhook).
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

// target is what apiVersion and kind of an object say.
type target struct {
	group, version, kind string
}

func parseTarget(obj map[string]interface{}) (target, error) {
	if obj == nil {
		return target{}, fmt.Errorf("no object")
	}
	apiVersion, group, version, kind, found := api.TypeOf(obj)
	if !found || apiVersion == "" {
		return target{}, fmt.Errorf("apiVersion %q is not <group>/<version>", apiVersion)
	}
	if !api.IsGroup(group) {
		return target{}, fmt.Errorf("unsupported group %q: want %s or %s", group, api.Group, api.UpstreamGroup)
	}
	if !api.IsServed(version) {
		return target{}, fmt.Errorf("unsupported version %q: want one of %s", version, strings.Join(api.ServedVersions, ", "))
	}
	if !api.IsKind(kind) {
		return target{}, fmt.Errorf("unsupported kind %q: want %s or %s", kind, api.KindClaim, api.KindTemplate)
	}
	return target{group: group, version: version, kind: kind}, nil
}

// IsSupported reports whether obj is a kind Validate handles (any supported
// group, version and kind), so that callers can skip other objects.
func IsSupported(obj map[string]interface{}) bool {
	_, err := parseTarget(obj)
	return err == nil
}
