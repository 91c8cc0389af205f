package harness

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/claimbridge/claimbridge/api"
	"github.com/claimbridge/claimbridge/cli"
	"github.com/claimbridge/claimbridge/manifest"
)

// ConvertVerdicts runs `claimbridge convert --to version` on each file and
// sends every object it writes to the apiserver behind client, the one of
// the release that serves version, as `kubectl create --dry-run=server
// --validate=strict` would: namespaced objects into namespace. Objects of a
// group the apiserver does not serve (a driver's parameters) are not sent.
// Every object the apiserver rejects must be named by a warning of convert
// on standard error, and each field of an Invalid answer by a warning about
// that object and field. It returns how many objects were sent and rejected.
func ConvertVerdicts(t *testing.T, client dynamic.Interface, disc discovery.DiscoveryInterface, namespace, version string, files []string) (sent, rejected int) {
	t.Helper()
	groups, err := restmapper.GetAPIGroupResources(disc)
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, g := range groups {
		served[g.Group.Name] = true
	}
	mapper := restmapper.NewDiscoveryRESTMapper(groups)
	ctx := context.Background()
	for _, file := range files {
		var stdout, stderr bytes.Buffer
		code := cli.Main([]string{"convert", "--to", version, "-f", file}, nil, &stdout, &stderr)
		// Exit 1 with output: written, with an error for what the target rejects.
		if code != cli.ExitOK && (code != cli.ExitInvalid || stdout.Len() == 0) {
			if stderr.Len() == 0 {
				t.Errorf("convert --to %s -f %s: exit %d without a word", version, file, code)
			}
			continue
		}
		docs, err := manifest.Parse(file, stdout.Bytes())
		if err != nil {
			t.Fatalf("convert --to %s -f %s: output: %v", version, file, err)
		}
		for _, d := range docs {
			apiVersion, _ := d.Object["apiVersion"].(string)
			kind, _ := d.Object["kind"].(string)
			gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
			if !served[gvk.Group] {
				continue
			}
			described := api.Describe(d.Object)
			obj := &unstructured.Unstructured{Object: api.DeepCopyJSON(d.Object)}
			var err error
			if m, mapErr := mapper.RESTMapping(gvk.GroupKind(), gvk.Version); mapErr != nil {
				err = mapErr // kubectl: no matches for kind
			} else {
				resource := client.Resource(m.Resource)
				opts := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: metav1.FieldValidationStrict}
				if m.Scope.Name() == "namespace" {
					obj.SetNamespace(namespace)
					_, err = resource.Namespace(namespace).Create(ctx, obj, opts)
				} else {
					_, err = resource.Create(ctx, obj, opts)
				}
			}
			sent++
			if err == nil {
				continue
			}
			rejected++
			// An error names what the target rejects: "Error: <position>: <Kind> <name>: …".
			names := func(what string) bool {
				return slices.ContainsFunc(strings.Split(stderr.String(), "\n"), func(l string) bool {
					return strings.HasPrefix(l, "Error: ") && strings.Contains(l, ": "+what)
				})
			}
			if !names(described + ":") {
				t.Errorf("convert --to %s -f %s: %s: the apiserver rejects %s and convert says nothing of it:\n%v\nconvert's stderr:\n%s",
					version, file, d.Position(), described, err, stderr.String())
				continue
			}
			// An invalid object: each field the apiserver names is named by an error.
			if status, ok := err.(apierrors.APIStatus); ok && apierrors.IsInvalid(err) && status.Status().Details != nil {
				for _, cause := range status.Status().Details.Causes {
					if cause.Field != "" && !names(described+": "+cause.Field) {
						t.Errorf("convert --to %s -f %s: %s: the apiserver rejects %s at %s, and no error names that field:\n%v\nconvert's stderr:\n%s",
							version, file, d.Position(), described, cause.Field, err, stderr.String())
					}
				}
			}
		}
	}
	return sent, rejected
}
