// Package api is the identity of claimbridge's API, defined once: the group
// it serves and the upstream group its shapes come from, the versions (in
// order), the kinds, the storage version, the restore annotations, and how an
// object's apiVersion, kind and name are read from its JSON tree. The typed
// shapes live in api/v1alpha1, api/v1alpha2 and api/v1alpha3; every other
// package (conversion, validation, webhook, cli, the envtest harness) takes
// these names from here.
package api

import (
	"cmp"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Groups. An object keeps its group through conversion.
const (
	// Group is the group of the CRDs claimbridge serves.
	Group = "resource.claimbridge.dev"
	// UpstreamGroup is the Kubernetes group the shapes come from; objects of
	// this group are converted and validated offline (CLI) too.
	UpstreamGroup = "resource.k8s.io"
)

// ExactRequestFields are the fields of a v1alpha3 or v1beta1 device request
// that v1beta2 and v1 hold under exactly.
var ExactRequestFields = []string{"deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity", "derivedAttributes"}

// Versions.
const (
	V1alpha1 = "v1alpha1" // Kubernetes 1.26
	V1alpha2 = "v1alpha2" // Kubernetes 1.27–1.30
	V1alpha3 = "v1alpha3" // Kubernetes 1.31 (only its shape: 1.32/1.33 served a newer one under this name)

	// The GA line of resource.k8s.io: conversion targets for UpstreamGroup
	// only, never served by the CRD.
	V1beta1 = "v1beta1" // Kubernetes 1.32
	V1beta2 = "v1beta2" // Kubernetes 1.33
	V1      = "v1"      // Kubernetes 1.34+

	// StorageVersion is the version the CRD stores in etcd.
	StorageVersion = V1alpha3
)

// ServedVersions are the versions the CRD serves, oldest first.
var ServedVersions = []string{V1alpha1, V1alpha2, V1alpha3}

// UpstreamOnlyVersions are versions of UpstreamGroup, newer than the served
// ones, that the conversion chain reaches but the CRD does not serve (the GA
// line of resource.k8s.io), oldest first.
var UpstreamOnlyVersions = []string{V1beta1, V1beta2, V1}

// ConversionVersions is the conversion chain: ServedVersions followed by
// UpstreamOnlyVersions. Conversion between versions that are not neighbours
// steps through every version in between.
var ConversionVersions = slices.Concat(ServedVersions, UpstreamOnlyVersions)

// Kinds: claimbridge's CRD serves claims and templates; the others are
// resource.k8s.io's (the last three 1.26–1.30's classic DRA).
const (
	KindClaim           = "ResourceClaim"
	KindTemplate        = "ResourceClaimTemplate"
	KindClaimList       = "ResourceClaimList"
	KindTemplateList    = "ResourceClaimTemplateList"
	KindDeviceClass     = "DeviceClass"
	KindResourceSlice   = "ResourceSlice"
	KindDeviceTaintRule = "DeviceTaintRule"
	KindResourceClass   = "ResourceClass"
	KindClaimParameters = "ResourceClaimParameters"
	KindClassParameters = "ResourceClassParameters"
)

// AnnotationPrefix starts the key of every annotation claimbridge writes.
const AnnotationPrefix = "claimbridge.dev/"

// RestoreAnnotationPrefix starts the key of every restore annotation.
const RestoreAnnotationPrefix = AnnotationPrefix + "restore-"

// RestoreAnnotation returns the key of the annotation that carries what
// version cannot hold while the object is shown in another version:
// claimbridge.dev/restore-<version>.
func RestoreAnnotation(version string) string { return RestoreAnnotationPrefix + version }

// GroupVersion returns Group with version.
func GroupVersion(version string) schema.GroupVersion {
	return schema.GroupVersion{Group: Group, Version: version}
}

// IsGroup reports whether group is Group or UpstreamGroup.
func IsGroup(group string) bool { return group == Group || group == UpstreamGroup }

// IsServed reports whether version is one of ServedVersions.
func IsServed(version string) bool { return slices.Contains(ServedVersions, version) }

// VersionIndex returns the position of version in ConversionVersions, or -1.
func VersionIndex(version string) int { return slices.Index(ConversionVersions, version) }

// IsKind reports whether kind is KindClaim or KindTemplate.
func IsKind(kind string) bool { return kind == KindClaim || kind == KindTemplate }

// TypeOf reads apiVersion and kind of a JSON object. ok is false when
// apiVersion is not <group>/<version>.
func TypeOf(obj map[string]interface{}) (apiVersion, group, version, kind string, ok bool) {
	apiVersion, _ = obj["apiVersion"].(string)
	kind, _ = obj["kind"].(string)
	group, version, ok = strings.Cut(apiVersion, "/")
	return apiVersion, group, version, kind, ok
}

// Identify returns the group, version and kind of a convertible object (a
// claim, a template or a list of either, of Group or UpstreamGroup, in a
// version of ConversionVersions), or an error that says why obj is not one.
func Identify(obj map[string]interface{}) (group, version, kind string, err error) {
	apiVersion, group, version, kind, ok := TypeOf(obj)
	if !ok || !IsGroup(group) {
		return "", "", "", fmt.Errorf("apiVersion %q is not in group %s or %s", apiVersion, Group, UpstreamGroup)
	}
	if VersionIndex(version) < 0 {
		return "", "", "", fmt.Errorf("apiVersion %q: unsupported version %q (supported: %s)", apiVersion, version, strings.Join(ConversionVersions, ", "))
	}
	switch kind {
	case KindClaim, KindTemplate, KindClaimList, KindTemplateList:
		return group, version, kind, nil
	}
	return "", "", "", fmt.Errorf("kind %q of %s is not converted (only %s, %s and their lists)", kind, apiVersion, KindClaim, KindTemplate)
}

// MistakenClaim reports whether obj, which Identify may have refused, is most likely
// a claim or template with a mistake in its apiVersion or kind, rather than
// an object to pass through: its group is resource.k8s.io or
// resource.claimbridge.dev, and either its kind is spelt otherwise than a
// claim, template or list kind only in case or by a trailing "s"
// (ResourceClaims), or it has such a kind and a version that cannot be a
// real one not converted: any of resource.claimbridge.dev (claimbridge
// defines them), or of resource.k8s.io one that is no Kubernetes version or
// one of v1 or before (v1alpha4: every one of them is known). A later
// upstream version (v2beta1, v2) is not a mistake. kind is the kind meant.
// Other kinds of the groups (DeviceClass, ResourceSlice ...) are not.
func MistakenClaim(obj map[string]interface{}) (kind string, ok bool) {
	_, group, version, k, typed := TypeOf(obj)
	if !typed || !IsGroup(group) {
		return "", false
	}
	for _, want := range []string{KindClaim, KindTemplate, KindClaimList, KindTemplateList} {
		switch {
		case k == want:
			if group == Group {
				return want, !IsServed(version)
			}
			m := kubeVersion.FindStringSubmatch(version)
			return want, VersionIndex(version) < 0 && (m == nil || m[1] == "0" || m[1] == "1")
		case strings.EqualFold(k, want) || strings.EqualFold(k, want+"s"):
			return want, true
		}
	}
	return "", false
}

// kubeVersion matches a Kubernetes API version (v1, v2beta1), its major
// version the first group.
var kubeVersion = regexp.MustCompile(`^v([0-9]+)(?:(?:alpha|beta)[1-9][0-9]*)?$`)

// Meta returns metadata.namespace, metadata.name and metadata.uid of a JSON
// object; missing or non-string fields are "".
func Meta(obj map[string]interface{}) (namespace, name, uid string) {
	meta := Metadata(obj)
	namespace, _ = meta["namespace"].(string)
	name, _ = meta["name"].(string)
	uid, _ = meta["uid"].(string)
	return namespace, name, uid
}

// InDefaultNamespace returns obj with metadata.namespace "default" when it
// has none (absent, null or ""): kubectl create and apply put such a
// manifest in the namespace of their context, so its absence is not an
// error of the manifest (the apiserver, and claimbridge's webhook, always
// see one). obj is not modified: what changes is copied.
func InDefaultNamespace(obj map[string]interface{}) map[string]interface{} {
	meta, ok := obj["metadata"].(map[string]interface{})
	if !ok && obj["metadata"] != nil {
		return obj // malformed: validation reports it
	}
	if ns := meta["namespace"]; ns != nil && ns != "" {
		return obj
	}
	m := make(map[string]interface{}, len(meta)+1)
	maps.Copy(m, meta)
	m["namespace"] = "default"
	out := maps.Clone(obj)
	out["metadata"] = m
	return out
}

// Ref names an object for messages: namespace/name, name for a cluster-scoped
// object, "namespace/prefix*" for one named from its generateName (kubectl
// create gives it the prefix and five random characters), or (unnamed).
func Ref(obj map[string]interface{}) string {
	ns, name, _ := Meta(obj)
	if name == "" {
		prefix, _ := Metadata(obj)["generateName"].(string)
		if prefix == "" {
			return "(unnamed)"
		}
		name = prefix + "*"
	}
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// Describe names an object with its kind: "<Kind> <Ref>", "object <Ref>"
// when the kind is missing.
func Describe(obj map[string]interface{}) string {
	kind, _ := obj["kind"].(string)
	return cmp.Or(kind, "object") + " " + Ref(obj)
}

// DeepCopyJSON copies a JSON object tree; nil stays nil.
func DeepCopyJSON(obj map[string]interface{}) map[string]interface{} {
	if obj == nil {
		return nil
	}
	out := make(map[string]interface{}, len(obj))
	for k, v := range obj {
		out[k] = DeepCopyJSONValue(v)
	}
	return out
}

// DeepCopyJSONValue copies a JSON value: objects and arrays deeply, scalars
// as they are. Unlike apimachinery's runtime.DeepCopyJSONValue it accepts any
// scalar type (int, int32, float32 … from trees built in Go, not only what
// encoding/json produces) instead of panicking on it.
func DeepCopyJSONValue(v interface{}) interface{} {
	switch v := v.(type) {
	case map[string]interface{}:
		return DeepCopyJSON(v)
	case []interface{}:
		if v == nil {
			return v
		}
		out := make([]interface{}, len(v))
		for i := range v {
			out[i] = DeepCopyJSONValue(v[i])
		}
		return out
	default:
		return v
	}
}

// The metadata of a JSON object, read and written in one place. Readers
// return the maps of the tree itself, never a copy: a caller that changes
// what they return changes obj. A member that is absent, null or not an
// object reads as a nil map, which reads as empty.

// Metadata returns obj's metadata object, or nil.
func Metadata(obj map[string]interface{}) map[string]interface{} {
	meta, _ := obj["metadata"].(map[string]interface{})
	return meta
}

// ClaimSpec returns the claim spec of obj, a claim or template of kind: its
// spec, or a template's spec.spec; nil when it has none.
func ClaimSpec(obj map[string]interface{}, kind string) map[string]interface{} {
	spec, _ := obj["spec"].(map[string]interface{})
	if kind == KindTemplate {
		spec, _ = spec["spec"].(map[string]interface{})
	}
	return spec
}

// ClaimSpecPath is the path of ClaimSpec in an object of kind.
func ClaimSpecPath(kind string) string {
	if kind == KindTemplate {
		return "spec.spec"
	}
	return "spec"
}

// Annotations returns obj's metadata.annotations, or nil.
func Annotations(obj map[string]interface{}) map[string]interface{} {
	ann, _ := Metadata(obj)["annotations"].(map[string]interface{})
	return ann
}

// PruneAnnotations removes obj's metadata.annotations when it is an empty
// object: a manifest without annotations gets none.
func PruneAnnotations(obj map[string]interface{}) {
	meta := Metadata(obj)
	if ann, ok := meta["annotations"].(map[string]interface{}); ok && len(ann) == 0 {
		delete(meta, "annotations")
	}
}

// RestoreData returns the value of obj's restore annotation of version
// (RestoreAnnotation) and whether obj has it.
func RestoreData(obj map[string]interface{}, version string) (interface{}, bool) {
	v, ok := Annotations(obj)[RestoreAnnotation(version)]
	return v, ok
}

// HasRestoreData reports whether obj has the restore annotation of one of
// versions.
func HasRestoreData(obj map[string]interface{}, versions ...string) bool {
	ann := Annotations(obj)
	return slices.ContainsFunc(versions, func(v string) bool { _, ok := ann[RestoreAnnotation(v)]; return ok })
}

// HasRestoreAnnotation reports whether obj has a restore annotation of any
// version.
func HasRestoreAnnotation(obj map[string]interface{}) bool {
	for k := range Annotations(obj) {
		if strings.HasPrefix(k, RestoreAnnotationPrefix) {
			return true
		}
	}
	return false
}
