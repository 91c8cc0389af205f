package cluster

import (
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"

	"github.com/claimbridge/claimbridge/api"
)

// rewriters is how many objects Rewrite writes at once.
const rewriters = 8

// backoff spaces the tries of a write for about a minute: an apiserver
// restarting answers again within it.
var backoff = wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 10}

// Rewrite writes each object of a resource of resource.k8s.io back as it
// is, so that kube-apiserver stores it in its storage version now, as its
// storage-version migrator does: a paged LIST, and for each object an
// empty patch with its resourceVersion as precondition. A conflict means
// the object was written since it was read, and so stored anew; an object
// deleted since is skipped. Nothing else of the object changes, and one
// already stored so is not written again (kube-apiserver skips a write
// that changes no byte). Given list, it writes nothing and gives list each
// object instead. It returns how many objects it read.
func (c *Cluster) Rewrite(ctx context.Context, resource string, list func(namespace, name string)) (n int, err error) {
	r, _, err := c.Storage(resource)
	if err != nil {
		return 0, err
	}
	type ref struct{ namespace, name, version string }
	refs := make(chan ref)
	g, ctx := errgroup.WithContext(ctx)
	for range rewriters {
		g.Go(func() error {
			for o := range refs {
				patch := fmt.Appendf(nil, `{"metadata":{"resourceVersion":%q}}`, o.version)
				err := retry.OnError(backoff, retriable, func() error {
					_, err := c.rewriter.Resource(r).Namespace(o.namespace).Patch(ctx, o.name, types.MergePatchType, patch, metav1.PatchOptions{})
					return err
				})
				if err != nil && !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
					return fmt.Errorf("rewriting %s %s/%s: %w", resource, o.namespace, o.name, err)
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		defer close(refs)
		return c.each(ctx, r, metav1.ListOptions{}, func(obj map[string]interface{}) error {
			u := unstructured.Unstructured{Object: obj}
			if n++; list != nil {
				list(u.GetNamespace(), u.GetName())
				return nil
			}
			select {
			case refs <- ref{u.GetNamespace(), u.GetName(), u.GetResourceVersion()}:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	})
	return n, g.Wait()
}

// retriable are the errors a write is tried again after: the apiserver
// busy, restarting or timing out.
func retriable(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) || utilnet.IsConnectionRefused(err) || utilnet.IsConnectionReset(err)
}

// Storage is a resource of resource.k8s.io in the version the cluster
// prefers, and the storage version hash discovery gives it: the hash
// changes when kube-apiserver stores the resource in another version.
func (c *Cluster) Storage(resource string) (schema.GroupVersionResource, string, error) {
	groups, err := c.discovery.ServerGroups()
	if err != nil {
		return schema.GroupVersionResource{}, "", fmt.Errorf("asking the cluster its API groups: %w", err)
	}
	for _, g := range groups.Groups {
		if g.Name != api.UpstreamGroup {
			continue
		}
		list, err := c.discovery.ServerResourcesForGroupVersion(g.PreferredVersion.GroupVersion)
		if err != nil {
			return schema.GroupVersionResource{}, "", fmt.Errorf("asking the cluster the resources of %s: %w", g.PreferredVersion.GroupVersion, err)
		}
		if i := slices.IndexFunc(list.APIResources, func(r metav1.APIResource) bool { return r.Name == resource }); i >= 0 {
			return schema.GroupVersionResource{Group: g.Name, Version: g.PreferredVersion.Version, Resource: resource}, list.APIResources[i].StorageVersionHash, nil
		}
	}
	return schema.GroupVersionResource{}, "", fmt.Errorf("the cluster serves no %s.%s in its preferred version", resource, api.UpstreamGroup)
}

var (
	namespaces = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	configMaps = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
)

// NamespaceUID is the UID of a namespace; the cluster's identity is that of
// kube-system.
func (c *Cluster) NamespaceUID(ctx context.Context, name string) (string, error) {
	ns, err := c.dynamic.Resource(namespaces).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("reading namespace %s: %w", name, err)
	}
	return string(ns.GetUID()), nil
}

// ConfigMap is the value of key of ConfigMap namespace/name, and the
// ConfigMap's resourceVersion; "" for both when there is none.
func (c *Cluster) ConfigMap(ctx context.Context, namespace, name, key string) (value, version string, err error) {
	cm, err := c.dynamic.Resource(configMaps).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	value, _, _ = unstructured.NestedString(cm.Object, "data", key)
	return value, cm.GetResourceVersion(), nil
}

// SaveConfigMap sets key of ConfigMap namespace/name to value: creates it
// when version is "", else updates it if its resourceVersion is still
// version. It returns the new resourceVersion.
func (c *Cluster) SaveConfigMap(ctx context.Context, namespace, name, key, value, version string) (string, error) {
	cm := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]interface{}{"name": name, "namespace": namespace, "resourceVersion": version},
		"data":     map[string]interface{}{key: value}}}
	r := c.dynamic.Resource(configMaps).Namespace(namespace)
	var err error
	if version == "" {
		cm, err = r.Create(ctx, cm, metav1.CreateOptions{})
	} else {
		cm, err = r.Update(ctx, cm, metav1.UpdateOptions{})
	}
	if err != nil {
		return "", err
	}
	return cm.GetResourceVersion(), nil
}

// migrations are the versions of StorageVersionMigration Migrate asks in,
// the newest first.
var migrations = []schema.GroupVersionResource{
	{Group: "storagemigration.k8s.io", Version: "v1", Resource: "storageversionmigrations"},
	{Group: "storagemigration.k8s.io", Version: "v1beta1", Resource: "storageversionmigrations"},
}

// Migrate has the cluster's own storage version migrator (in
// kube-controller-manager) rewrite every stored object of resources of
// resource.k8s.io (their storage version hashes, by resource), all at
// once: for each it creates a StorageVersionMigration named for the
// resource and hash, or finds the one a run before created, and it waits
// until each succeeds, or one fails. It returns false, having written
// nothing, when the cluster serves no StorageVersionMigration, or its
// migrator takes up none within start (the migrations are deleted).
func (c *Cluster) Migrate(ctx context.Context, hashes map[string]string, start time.Duration) (migrated bool, err error) {
	i := slices.IndexFunc(migrations, func(r schema.GroupVersionResource) bool {
		_, err := c.discovery.ServerResourcesForGroupVersion(r.GroupVersion().String())
		return err == nil
	})
	if i < 0 {
		return false, nil
	}
	r := c.dynamic.Resource(migrations[i])
	var names []string
	for _, resource := range slices.Sorted(maps.Keys(hashes)) {
		sum := sha256.Sum256([]byte(hashes[resource]))
		name := fmt.Sprintf("claimbridge-%s-%x", resource, sum[:4])
		svm := &unstructured.Unstructured{Object: map[string]interface{}{
			"apiVersion": migrations[i].GroupVersion().String(), "kind": "StorageVersionMigration", "metadata": map[string]interface{}{"name": name},
			"spec": map[string]interface{}{"resource": map[string]interface{}{"group": api.UpstreamGroup, "resource": resource}}}}
		if _, err := r.Create(ctx, svm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("creating the StorageVersionMigration %s: %w", name, err)
		}
		names = append(names, name)
	}
	for deadline := time.Now().Add(start); ; {
		succeeded, started := 0, false
		for _, name := range names {
			svm, err := r.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, fmt.Errorf("reading the StorageVersionMigration %s: %w", name, err)
			}
			conditions, _, _ := unstructured.NestedSlice(svm.Object, "status", "conditions")
			started = started || len(conditions) > 0
			for _, c := range conditions {
				switch c, _ := c.(map[string]interface{}); {
				case c["status"] != "True":
				case c["type"] == "Succeeded":
					succeeded++
				case c["type"] == "Failed":
					return true, fmt.Errorf("the StorageVersionMigration %s failed: %v", name, c["message"])
				}
			}
		}
		switch {
		case succeeded == len(names):
			return true, nil
		case !started && time.Now().After(deadline):
			for _, name := range names {
				if err := r.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, err
				}
			}
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Can asks the cluster whether its user may verb resource of group (in
// namespace, "" for every namespace or none): a SelfSubjectAccessReview.
func (c *Cluster) Can(ctx context.Context, verb, group, resource, namespace string) (bool, error) {
	review := &unstructured.Unstructured{Object: map[string]interface{}{"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
		"spec": map[string]interface{}{"resourceAttributes": map[string]interface{}{"verb": verb, "group": group, "resource": resource, "namespace": namespace}}}}
	r := schema.GroupVersionResource{Group: "authorization.k8s.io", Version: "v1", Resource: "selfsubjectaccessreviews"}
	answer, err := c.dynamic.Resource(r).Create(ctx, review, metav1.CreateOptions{})
	if err != nil {
		return false, fmt.Errorf("asking the cluster whether it lets you %s %s: %w", verb, resource, err)
	}
	allowed, _, _ := unstructured.NestedBool(answer.Object, "status", "allowed")
	return allowed, nil
}

// Delete deletes every stored object of a resource of resource.k8s.io,
// each with its UID as precondition, and waits a minute at most until
// they are gone (a claim a Pod holds stays until the Pod ends). If saved
// says false of one's UID, it deletes none and names the first five such.
// It returns how many it deleted.
func (c *Cluster) Delete(ctx context.Context, resource string, saved func(uid string) bool) (n int, err error) {
	r, _, err := c.Storage(resource)
	if err != nil {
		return 0, err
	}
	type ref struct{ namespace, name, uid string }
	var refs []ref
	var unsaved []string
	err = c.each(ctx, r, metav1.ListOptions{}, func(obj map[string]interface{}) error {
		u := unstructured.Unstructured{Object: obj}
		if !saved(string(u.GetUID())) {
			unsaved = append(unsaved, strings.TrimPrefix(u.GetNamespace()+"/"+u.GetName(), "/"))
		}
		refs = append(refs, ref{u.GetNamespace(), u.GetName(), string(u.GetUID())})
		return nil
	})
	if err == nil && len(unsaved) > 0 {
		err = fmt.Errorf("%d %s were created since the save (%s): nothing deleted; save again to a new file", len(unsaved), resource, strings.Join(unsaved[:min(5, len(unsaved))], ", "))
	}
	if err != nil {
		return 0, err
	}
	for _, o := range refs {
		err := c.dynamic.Resource(r).Namespace(o.namespace).Delete(ctx, o.name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(o.uid)})
		if err != nil && !apierrors.IsNotFound(err) {
			return n, fmt.Errorf("deleting %s %s/%s: %w", resource, o.namespace, o.name, err)
		}
		n++
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		list, err := c.dynamic.Resource(r).List(ctx, metav1.ListOptions{Limit: 5})
		switch {
		case err != nil:
			return n, err
		case len(list.Items) == 0:
			return n, nil
		case time.Now().After(deadline):
			return n, fmt.Errorf("%s %s is still there (finalizers %v): run again once it is gone", resource, list.Items[0].GetName(), list.Items[0].GetFinalizers())
		}
	}
}

// A Pod holds a claim (its status.reservedFor): its namespace, name and
// UID, and the controller that owns it ("ReplicaSet ml/train-1"), if one
// does.
type Pod struct{ Namespace, Name, UID, Controller string }

var pods = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

// Holders are the Pods that the cluster's claims are reserved for, each
// once; a Pod gone, or another of the same name, is not.
func (c *Cluster) Holders(ctx context.Context) ([]Pod, error) {
	claims, _, err := c.Storage("resourceclaims")
	if err != nil {
		return nil, err
	}
	held := map[Pod]bool{}
	err = c.each(ctx, claims, metav1.ListOptions{}, func(claim map[string]interface{}) error {
		namespace, _ := api.Metadata(claim)["namespace"].(string)
		reserved, _, _ := unstructured.NestedSlice(claim, "status", "reservedFor")
		for _, ref := range reserved {
			ref, _ := ref.(map[string]interface{})
			if ref["resource"] != "pods" {
				continue
			}
			pod, err := c.dynamic.Resource(pods).Namespace(namespace).Get(ctx, fmt.Sprint(ref["name"]), metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
			case err != nil:
				return fmt.Errorf("reading Pod %s/%v: %w", namespace, ref["name"], err)
			case string(pod.GetUID()) == ref["uid"]:
				p := Pod{Namespace: namespace, Name: pod.GetName(), UID: string(pod.GetUID())}
				if owner := metav1.GetControllerOf(pod); owner != nil {
					p.Controller = c.controller(ctx, namespace, owner)
				}
				held[p] = true
			}
		}
		return nil
	})
	return slices.SortedFunc(maps.Keys(held), func(a, b Pod) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) }), err
}

// scaled are the controllers that another scales: a Deployment's
// ReplicaSets, a CronJob's Jobs.
var scaled = map[string]schema.GroupVersionResource{"ReplicaSet": {Group: "apps", Version: "v1", Resource: "replicasets"}, "Job": {Group: "batch", Version: "v1", Resource: "jobs"}}

// controller names the controller to stop of a Pod that owner controls:
// owner, or the controller of a ReplicaSet or Job if it can be read.
func (c *Cluster) controller(ctx context.Context, namespace string, owner *metav1.OwnerReference) string {
	if r, ok := scaled[owner.Kind]; ok {
		if o, err := c.dynamic.Resource(r).Namespace(namespace).Get(ctx, owner.Name, metav1.GetOptions{}); err == nil && metav1.GetControllerOf(o) != nil {
			owner = metav1.GetControllerOf(o)
		}
	}
	return owner.Kind + " " + namespace + "/" + owner.Name
}

// Stop deletes each Pod, with its UID as precondition and its own grace
// period, and waits a minute at most until no claim is reserved for a Pod
// (kube-controller-manager releases the claims of a Pod gone).
func (c *Cluster) Stop(ctx context.Context, stop []Pod) error {
	for _, p := range stop {
		err := c.dynamic.Resource(pods).Namespace(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(p.UID)})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) { // gone, or another of its name
			return fmt.Errorf("stopping Pod %s/%s: %w", p.Namespace, p.Name, err)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		held, err := c.Holders(ctx)
		switch {
		case err != nil || len(held) == 0:
			return err
		case time.Now().After(deadline):
			return fmt.Errorf("Pod %s/%s still holds a claim a minute after it was stopped: run again once it is gone", held[0].Namespace, held[0].Name)
		}
	}
}
