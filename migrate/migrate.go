// Package migrate turns exported claims and templates (`kubectl get -o yaml`)
// into manifests that re-create them on a cluster of the release that
// serves the target version: converted with conversion.Convert, without what
// the old cluster set (server-set metadata, status, owner references), with
// the target release's built-in finalizer, without claimbridge's restore
// annotations (re-creation is one-way), and — for device-request targets —
// with 1.30 ResourceClaimParameters translated into requests (parameters.go).
package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/claimbridge/claimbridge/conversion"
)

// Options tune a migration.
type Options struct {
	// KeepOwnerReferences keeps metadata.ownerReferences (default: dropped,
	// because they name owners by the old cluster's uids and the garbage
	// collector deletes objects whose owners are all gone).
	KeepOwnerReferences bool
	// Parameters are the ResourceClaimParameters, ResourceClassParameters and
	// ResourceClasses found in the input; nil when there are none.
	Parameters *Index
}

// Report says what a migration changed in one object.
type Report struct {
	// Dropped lists the dropped fields, e.g. "metadata.uid", "status".
	Dropped []string
	// Changed lists rewritten fields, e.g. a renamed finalizer.
	Changed []string
	// Warnings are changes of meaning the user must know about.
	Warnings []string
}

// serverSet are the metadata fields the apiserver sets; a create must not
// carry them (uid, resourceVersion: rejected or ignored; the rest reset).
var serverSet = []string{
	"uid", "resourceVersion", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink",
}

// clientStale are client annotations that describe the object in its old shape.
var clientStale = []string{"kubectl.kubernetes.io/last-applied-configuration"}

// Object migrates one ResourceClaim or ResourceClaimTemplate to version to.
// obj is not modified.
func Object(obj map[string]interface{}, to string, opts Options) (map[string]interface{}, Report, error) {
	var r Report
	target, err := targetFor(to)
	if err != nil {
		return nil, r, err
	}
	_, from, kind, err := conversion.Identify(obj)
	if err != nil {
		return nil, r, err
	}
	if kind != conversion.KindClaim && kind != conversion.KindTemplate {
		return nil, r, fmt.Errorf("kind %s: migrate the items of a list one by one", kind)
	}
	out, err := conversion.Convert(obj, to)
	if err != nil {
		return nil, r, err
	}
	meta, _ := out["metadata"].(map[string]interface{})
	if meta == nil {
		meta = map[string]interface{}{}
		out["metadata"] = meta
	}
	for _, f := range serverSet {
		if _, ok := meta[f]; ok {
			delete(meta, f)
			r.Dropped = append(r.Dropped, "metadata."+f)
		}
	}
	if _, ok := meta["ownerReferences"]; ok && !opts.KeepOwnerReferences {
		delete(meta, "ownerReferences")
		r.Dropped = append(r.Dropped, "metadata.ownerReferences (owners of the old cluster; --keep-owner-references keeps them)")
	}
	inputMeta, _ := obj["metadata"].(map[string]interface{})
	inputAnn, _ := inputMeta["annotations"].(map[string]interface{})
	dropAnnotations(meta, inputAnn, &r)
	mapFinalizers(meta, target, to, &r)
	if _, ok := out["status"]; ok {
		delete(out, "status")
		r.Dropped = append(r.Dropped, "status (reset on create: the claim is allocated anew)")
	}
	if target.Devices {
		translateParameters(obj, from, kind, out, opts.Parameters, &r)
	}
	return out, r, nil
}

// dropAnnotations removes claimbridge's restore annotations (what they
// preserve cannot come back after re-creation) and stale client annotations.
// Only what the input had is reported: conversion adds a restore annotation
// for the source version, which is not the user's.
func dropAnnotations(meta, input map[string]interface{}, r *Report) {
	ann, _ := meta["annotations"].(map[string]interface{})
	keys := make([]string, 0, len(ann))
	for k := range ann {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		restore := strings.HasPrefix(k, conversion.AnnotationPrefix+"restore-")
		stale := false
		for _, s := range clientStale {
			stale = stale || k == s
		}
		if restore || stale {
			delete(ann, k)
			if _, had := input[k]; had {
				r.Dropped = append(r.Dropped, "metadata.annotations["+k+"]")
			}
		}
	}
	if ann != nil && len(ann) == 0 {
		delete(meta, "annotations")
	}
}

// mapFinalizers renames every built-in finalizer to the target release's
// (dropping it when that release has none, as nothing there would remove
// it) and keeps all other finalizers.
func mapFinalizers(meta map[string]interface{}, target Target, to string, r *Report) {
	list, _ := meta["finalizers"].([]interface{})
	if len(list) == 0 {
		return
	}
	var out []interface{}
	seen := map[string]bool{}
	for _, f := range list {
		name, _ := f.(string)
		if builtinFinalizer(name) && name != target.Finalizer {
			if target.Finalizer == "" {
				r.Dropped = append(r.Dropped, fmt.Sprintf("metadata.finalizers[%s] (Kubernetes %s has no built-in finalizer)", name, target.Releases))
				continue
			}
			r.Changed = append(r.Changed, fmt.Sprintf("metadata.finalizers: %s -> %s (Kubernetes %s)", name, target.Finalizer, target.Releases))
			name = target.Finalizer
			f = name
		}
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, f)
	}
	if len(out) == 0 {
		delete(meta, "finalizers")
		return
	}
	meta["finalizers"] = out
}
