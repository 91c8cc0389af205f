package cli

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/claimbridge/claimbridge/api"
)

// exports are what `kubectl get resourceclaims,resourceclaimtemplates -A
// -o yaml|json` printed on real kube-apiservers 1.30.14 and 1.26.15
// (test/manifests/exports/README.md): server-set metadata, allocated and
// reserved claims, a classic driver's finalizer, last-applied-configuration,
// and claims generated for pods from templates (controller owner reference
// to the Pod; from 1.28 on, the resource.kubernetes.io/pod-claim-name
// annotation).
var exports = []struct {
	release, file string
	// kept are the claims and templates migrate re-creates, in order;
	// generated are the pod claims it leaves out, with their pod.
	kept      []string
	generated map[string]string
}{{
	release: "1.30", file: "claims.yaml",
	kept: []string{"ResourceClaim inference/classic-gpu", "ResourceClaim inference/pending",
		"ResourceClaim inference/shared-accel", "ResourceClaimTemplate inference/per-pod-accel"},
	generated: map[string]string{
		"inference/server-0-accel-sbl6s": `Pod inference/server-0 (its resourceClaims entry "accel")`,
		"inference/server-1-accel-xjvth": `Pod inference/server-1 (its resourceClaims entry "accel")`,
	},
}, {
	release: "1.30", file: "claims.json",
	kept: []string{"ResourceClaim inference/classic-gpu", "ResourceClaim inference/pending",
		"ResourceClaim inference/shared-accel", "ResourceClaimTemplate inference/per-pod-accel"},
	generated: map[string]string{
		"inference/server-0-accel-sbl6s": `Pod inference/server-0 (its resourceClaims entry "accel")`,
		"inference/server-1-accel-xjvth": `Pod inference/server-1 (its resourceClaims entry "accel")`,
	},
}, {
	release: "1.26", file: "claims.yaml",
	kept:      []string{"ResourceClaim ml-training/gpu-claim", "ResourceClaimTemplate ml-training/per-pod-gpu"},
	generated: map[string]string{"ml-training/trainer-gpu": "Pod ml-training/trainer"},
}}

// TestMigrateLiveExportLeavesOutPodClaims: a claim the resourceclaim
// controller generated for a pod is left out, with a note naming the pod
// and saying that the controller creates it again from the template. Kept,
// it would leak (without owner nothing uses or deletes it: the controller
// finds a pod's claim by the pod's uid) or, with its owner reference, be
// deleted at once by the garbage collector (the old pod's uid does not
// exist in the new cluster). --keep-owner-references keeps it with its
// owner, for pods that survive with the same uids.
func TestMigrateLiveExportLeavesOutPodClaims(t *testing.T) {
	for _, e := range exports {
		in := filepath.Join("..", "test", "manifests", "exports", e.release, e.file)
		for _, to := range []string{"v1alpha3", "v1beta1", "v1beta2", "v1"} {
			t.Run(e.release+"/"+e.file+"/"+to, func(t *testing.T) {
				code, stdout, stderr := run(t, "", "migrate", "--to", to, "-f", in)
				if code != ExitOK {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				var got []string
				for _, obj := range readObjects(t, stdout) {
					got = append(got, api.Describe(obj))
					meta, _ := obj["metadata"].(map[string]interface{})
					for _, f := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "ownerReferences"} {
						if _, ok := meta[f]; ok {
							t.Errorf("%s: metadata.%s kept", api.Describe(obj), f)
						}
					}
					if _, ok := obj["status"]; ok {
						t.Errorf("%s: status kept", api.Describe(obj))
					}
				}
				if !slices.Equal(got, e.kept) {
					t.Errorf("migrated objects %q, want %q", got, e.kept)
				}
				for claim, pod := range e.generated {
					want := fmt.Sprintf("ResourceClaim %s: left out: generated for %s from a ResourceClaimTemplate; the resourceclaim controller of the new cluster creates the pod's claim again from the template", claim, pod)
					if !strings.Contains(stderr, want) {
						t.Errorf("stderr lacks %q:\n%s", want, stderr)
					}
				}
			})
		}
		t.Run(e.release+"/"+e.file+"/keep-owner-references", func(t *testing.T) {
			code, stdout, stderr := run(t, "", "migrate", "--to", "v1", "--keep-owner-references", "-f", in)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if n := len(readObjects(t, stdout)); n != len(e.kept)+len(e.generated) {
				t.Errorf("%d objects with --keep-owner-references, want %d (the pod claims kept)", n, len(e.kept)+len(e.generated))
			}
			if strings.Contains(stderr, "left out") {
				t.Errorf("left out with --keep-owner-references:\n%s", stderr)
			}
		})
	}
}

// TestMigrateLiveExportStatusNotes: the dropped status of an allocated claim
// says that the old allocation (and the pods it was reserved for) is dropped
// and the claim will be allocated again; an unallocated claim's empty status
// does not claim it was allocated.
func TestMigrateLiveExportStatusNotes(t *testing.T) {
	in := filepath.Join("..", "test", "manifests", "exports", "1.30", "claims.yaml")
	_, _, stderr := run(t, "", "migrate", "--to", "v1", "-f", in)
	for _, want := range []string{
		"ResourceClaim inference/shared-accel: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, metadata.annotations[kubectl.kubernetes.io/last-applied-configuration], metadata.finalizers[dra.k8s.io/delete-protection] (the allocation's: the scheduler adds its own when it allocates the claim again), status (reset on create: the old cluster's allocation and reservation for pod server-0 is dropped; the claim will be allocated again, possibly to other devices)\n",
		"ResourceClaim inference/classic-gpu: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, metadata.annotations[kubectl.kubernetes.io/last-applied-configuration], metadata.finalizers[gpu.resource.example.com/deletion-protection] (classic DRA driver's: Kubernetes 1.34+ runs no classic driver that would remove it), status (reset on create: the old cluster's allocation is dropped; the claim will be allocated again, possibly to other devices)\n",
		"ResourceClaim inference/pending: dropped metadata.uid, metadata.resourceVersion, metadata.creationTimestamp, metadata.annotations[kubectl.kubernetes.io/last-applied-configuration], status (reset on create; the claim was not allocated)\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}
