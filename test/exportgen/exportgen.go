// Package exportgen builds what `kubectl get resourceclaims,
// resourceclaimtemplates,resourceclaimparameters,resourceclassparameters,
// resourceclasses,pods,deployments -A -o yaml` prints on a large Kubernetes
// 1.30 cluster with structured parameters: a kind: List of any size, for
// measuring the CLI at scale (cli's BenchmarkLargeExport,
// hack/bigexport). The objects follow test/manifests/exports/1.30, which a
// real kube-apiserver 1.30 printed: server-set metadata, managedFields,
// last-applied-configuration, allocated and reserved claims, claims
// generated for pods from templates, pods created by a ReplicaSet.
package exportgen

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Options shape an export.
type Options struct {
	// Items is the number of items wanted; the export has about that many
	// (whole namespaces and the classes).
	Items int
	// ClaimsPerNamespace is the number of standalone claims (each with its
	// parameters and its pod) per namespace; 0 means 20.
	ClaimsPerNamespace int
	// Classes is the number of ResourceClasses (every third a classic
	// driver's, the others structured with ResourceClassParameters); 0 means 24.
	Classes int
}

// perClaim is the number of items a standalone claim brings (its
// parameters, the claim, its pod and the claim generated for the pod);
// perNamespace those a namespace brings besides (template, its parameters,
// a Deployment).
const perClaim, perNamespace = 4, 3

// Export returns a v1 List of about o.Items objects.
func Export(o Options) map[string]interface{} {
	if o.ClaimsPerNamespace <= 0 {
		o.ClaimsPerNamespace = 20
	}
	if o.Classes <= 0 {
		o.Classes = 24
	}
	var items []interface{}
	for c := 0; c < o.Classes; c++ {
		items = append(items, class(c)...)
	}
	perNS := perNamespace + perClaim*o.ClaimsPerNamespace
	for ns := 0; len(items)+perNS/2 < o.Items; ns++ {
		items = append(items, namespace(ns, o)...)
	}
	return map[string]interface{}{
		"apiVersion": "v1", "kind": "List",
		"metadata": map[string]interface{}{"resourceVersion": ""},
		"items":    items,
	}
}

// uid is a deterministic uid for object n of kind k.
func uid(k, n int) string {
	return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", n, k, n%0xfff, k%0xfff, n*7919+k)
}

func timestamp(n int) string {
	return fmt.Sprintf("2024-05-%02dT%02d:%02d:%02dZ", 1+n%28, n%24, n%60, (n/60)%60)
}

// lastApplied is kubectl apply's annotation for obj (what the user gave).
func lastApplied(obj map[string]interface{}) string {
	data, err := json.Marshal(obj)
	if err != nil {
		panic(err)
	}
	return string(data) + "\n"
}

func managedFields(apiVersion, manager string, n int, fields map[string]interface{}) []interface{} {
	return []interface{}{map[string]interface{}{
		"apiVersion": apiVersion, "fieldsType": "FieldsV1", "fieldsV1": fields,
		"manager": manager, "operation": "Update", "time": timestamp(n),
	}}
}

func className(c int) string { return "class-" + strconv.Itoa(c) + ".example.com" }
func driverName(c int) string {
	if c%3 == 0 {
		return "gpu" + strconv.Itoa(c) + ".resource.example.com" // classic
	}
	return "accel" + strconv.Itoa(c) + ".example.com"
}

// class is a ResourceClass and, for a structured one, its
// ResourceClassParameters.
func class(c int) []interface{} {
	name := className(c)
	cls := map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClass",
		"metadata": map[string]interface{}{
			"name": name, "uid": uid(1, c), "resourceVersion": strconv.Itoa(100 + c),
			"creationTimestamp": timestamp(c),
		},
		"driverName": driverName(c),
	}
	if c%3 == 0 {
		return []interface{}{cls}
	}
	cls["structuredParameters"] = true
	cls["parametersRef"] = map[string]interface{}{
		"apiGroup": "resource.k8s.io", "kind": "ResourceClassParameters",
		"name": name + "-defaults", "namespace": "dra-system",
	}
	params := map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClassParameters",
		"metadata": map[string]interface{}{
			"name": name + "-defaults", "namespace": "dra-system", "uid": uid(2, c),
			"resourceVersion": strconv.Itoa(200 + c), "creationTimestamp": timestamp(c),
		},
		"filters": []interface{}{map[string]interface{}{
			"driverName":     driverName(c),
			"namedResources": map[string]interface{}{"selector": `attributes.bool["healthy"]`},
		}},
	}
	return []interface{}{cls, params}
}

// namespace is one namespace's objects: a template with its parameters and
// a Deployment using it, then per claim its parameters, the claim, its pod
// and the claim generated for the pod from the template.
func namespace(ns int, o Options) []interface{} {
	name := "team-" + strconv.Itoa(ns)
	cls := ns % o.Classes
	items := []interface{}{
		claimParameters(name, "per-pod-params", ns*1000, cls),
		template(name, ns, cls),
		deployment(name, ns),
	}
	for i := 0; i < o.ClaimsPerNamespace; i++ {
		n := ns*o.ClaimsPerNamespace + i
		c := (ns + i) % o.Classes
		claim := "claim-" + strconv.Itoa(i)
		pod := "worker-" + strconv.Itoa(i)
		items = append(items,
			claimParameters(name, claim+"-params", n, c),
			resourceClaim(name, claim, n, c, pod, i%2 == 0),
			podOf(name, pod, claim, n, i%2 == 1),
			generatedClaim(name, pod, n, cls),
		)
	}
	return items
}

func claimParameters(ns, name string, n, c int) map[string]interface{} {
	req := map[string]interface{}{"namedResources": map[string]interface{}{
		"selector": `attributes.quantity["memory"].compareTo(quantity("` + strconv.Itoa(8<<(n%3)) + `Gi")) >= 0`,
	}}
	dr := map[string]interface{}{"driverName": driverName(c), "requests": []interface{}{req}}
	if n%4 == 0 {
		dr["vendorParameters"] = map[string]interface{}{"apiVersion": driverName(c) + "/v1", "kind": "ClaimParameters", "memoryGiB": json.Number("16")}
	}
	return map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaimParameters",
		"metadata": map[string]interface{}{
			"name": name, "namespace": ns, "uid": uid(3, n), "resourceVersion": strconv.Itoa(1000 + n),
			"creationTimestamp": timestamp(n),
		},
		"shareable":      n%2 == 0,
		"driverRequests": []interface{}{dr},
	}
}

func claimSpec(c int, params string) map[string]interface{} {
	return map[string]interface{}{
		"resourceClassName": className(c),
		"parametersRef":     map[string]interface{}{"apiGroup": "resource.k8s.io", "kind": "ResourceClaimParameters", "name": params},
		"allocationMode":    "WaitForFirstConsumer",
	}
}

// allocation is a structured (or, for a classic class, a classic) 1.30
// allocation on node worker-n.
func allocation(c, n int, pod, podUID string) map[string]interface{} {
	node := "node-" + strconv.Itoa(n%500)
	var handle map[string]interface{}
	if c%3 == 0 {
		handle = map[string]interface{}{"driverName": driverName(c), "data": `{"gpus":["GPU-` + strconv.Itoa(n) + `"]}`}
	} else {
		handle = map[string]interface{}{"driverName": driverName(c), "structuredData": map[string]interface{}{
			"nodeName": node,
			"results": []interface{}{map[string]interface{}{
				"namedResources": map[string]interface{}{"name": "accel-" + strconv.Itoa(n%8)}, "vendorRequestParameters": nil,
			}},
			"vendorClaimParameters": nil, "vendorClassParameters": nil,
		}}
	}
	return map[string]interface{}{
		"driverName": driverName(c),
		"allocation": map[string]interface{}{
			"resourceHandles": []interface{}{handle},
			"availableOnNodes": map[string]interface{}{"nodeSelectorTerms": []interface{}{map[string]interface{}{
				"matchFields": []interface{}{map[string]interface{}{"key": "metadata.name", "operator": "In", "values": []interface{}{node}}},
			}}},
			"shareable": true,
		},
		"reservedFor": []interface{}{map[string]interface{}{"resource": "pods", "name": pod, "uid": podUID}},
	}
}

func resourceClaim(ns, name string, n, c int, pod string, allocated bool) map[string]interface{} {
	spec := claimSpec(c, name+"-params")
	applied := map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{"annotations": map[string]interface{}{}, "name": name, "namespace": ns, "labels": map[string]interface{}{"team": ns}},
		"spec":     map[string]interface{}{"resourceClassName": spec["resourceClassName"], "parametersRef": spec["parametersRef"]},
	}
	meta := map[string]interface{}{
		"annotations":       map[string]interface{}{"kubectl.kubernetes.io/last-applied-configuration": lastApplied(applied)},
		"creationTimestamp": timestamp(n), "labels": map[string]interface{}{"team": ns},
		"name": name, "namespace": ns, "resourceVersion": strconv.Itoa(5000 + n), "uid": uid(4, n),
		"managedFields": managedFields("resource.k8s.io/v1alpha2", "kubectl-client-side-apply", n, map[string]interface{}{
			"f:metadata": map[string]interface{}{"f:annotations": map[string]interface{}{".": map[string]interface{}{}, "f:kubectl.kubernetes.io/last-applied-configuration": map[string]interface{}{}}, "f:labels": map[string]interface{}{".": map[string]interface{}{}, "f:team": map[string]interface{}{}}},
			"f:spec":     map[string]interface{}{"f:allocationMode": map[string]interface{}{}, "f:parametersRef": map[string]interface{}{}, "f:resourceClassName": map[string]interface{}{}},
		}),
	}
	status := map[string]interface{}{}
	if allocated {
		meta["finalizers"] = []interface{}{"dra.k8s.io/delete-protection"}
		if c%3 == 0 {
			meta["finalizers"] = []interface{}{driverName(c) + "/deletion-protection"}
		}
		status = allocation(c, n, pod, uid(5, n))
	}
	return map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
		"metadata": meta, "spec": spec, "status": status,
	}
}

func template(ns string, n, c int) map[string]interface{} {
	return map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaimTemplate",
		"metadata": map[string]interface{}{
			"name": "per-pod", "namespace": ns, "uid": uid(6, n), "resourceVersion": strconv.Itoa(3000 + n),
			"creationTimestamp": timestamp(n),
		},
		"spec": map[string]interface{}{
			"metadata": map[string]interface{}{"creationTimestamp": nil, "labels": map[string]interface{}{"app.kubernetes.io/component": "accelerator"}},
			"spec":     claimSpec(c, "per-pod-params"),
		},
	}
}

// generatedClaim is the claim the resourceclaim controller made for pod
// from the namespace's template (migrate leaves it out).
func generatedClaim(ns, pod string, n, c int) map[string]interface{} {
	podUID := uid(5, n)
	return map[string]interface{}{
		"apiVersion": "resource.k8s.io/v1alpha2", "kind": "ResourceClaim",
		"metadata": map[string]interface{}{
			"annotations":       map[string]interface{}{"resource.kubernetes.io/pod-claim-name": "accel"},
			"creationTimestamp": timestamp(n), "finalizers": []interface{}{"dra.k8s.io/delete-protection"},
			"generateName": pod + "-accel-", "name": pod + "-accel-" + fmt.Sprintf("%05x", n%0xfffff),
			"labels":    map[string]interface{}{"app.kubernetes.io/component": "accelerator"},
			"namespace": ns, "resourceVersion": strconv.Itoa(7000 + n), "uid": uid(7, n),
			"ownerReferences": []interface{}{map[string]interface{}{
				"apiVersion": "v1", "blockOwnerDeletion": true, "controller": true, "kind": "Pod", "name": pod, "uid": podUID,
			}},
		},
		"spec":   claimSpec(c, "per-pod-params"),
		"status": allocation(c, n, pod, podUID),
	}
}

func podSpec(claim string) map[string]interface{} {
	return map[string]interface{}{
		"containers": []interface{}{map[string]interface{}{
			"name": "worker", "image": "registry.example.com/ml/worker:1.4.2",
			"command": []interface{}{"python", "-m", "worker"}, "args": []interface{}{"--batch=64", "--epochs=10"},
			"env":             []interface{}{map[string]interface{}{"name": "MODEL", "value": "resnet50"}},
			"resources":       map[string]interface{}{"claims": []interface{}{map[string]interface{}{"name": "accel"}, map[string]interface{}{"name": "shared"}}},
			"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
			"volumeMounts": []interface{}{map[string]interface{}{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": true}},
		}},
		"resourceClaims": []interface{}{
			map[string]interface{}{"name": "accel", "source": map[string]interface{}{"resourceClaimTemplateName": "per-pod"}},
			map[string]interface{}{"name": "shared", "source": map[string]interface{}{"resourceClaimName": claim}},
		},
		"dnsPolicy": "ClusterFirst", "enableServiceLinks": true, "preemptionPolicy": "PreemptLowerPriority", "priority": json.Number("0"),
		"restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": map[string]interface{}{},
		"serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": json.Number("30"),
		"tolerations": []interface{}{
			map[string]interface{}{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": json.Number("300")},
			map[string]interface{}{"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": json.Number("300")},
		},
		"volumes": []interface{}{map[string]interface{}{"name": "kube-api-access", "projected": map[string]interface{}{
			"defaultMode": json.Number("420"),
			"sources": []interface{}{
				map[string]interface{}{"serviceAccountToken": map[string]interface{}{"expirationSeconds": json.Number("3607"), "path": "token"}},
				map[string]interface{}{"configMap": map[string]interface{}{"name": "kube-root-ca.crt", "items": []interface{}{map[string]interface{}{"key": "ca.crt", "path": "ca.crt"}}}},
			},
		}}},
	}
}

// podOf is a running pod using claim and a claim of the template; owned by
// a ReplicaSet when controlled (migrate leaves it out then).
func podOf(ns, name, claim string, n int, controlled bool) map[string]interface{} {
	spec := podSpec(claim)
	spec["nodeName"] = "node-" + strconv.Itoa(n%500)
	meta := map[string]interface{}{
		"creationTimestamp": timestamp(n), "labels": map[string]interface{}{"app": "worker"},
		"name": name, "namespace": ns, "resourceVersion": strconv.Itoa(9000 + n), "uid": uid(5, n),
		"managedFields": append(managedFields("v1", "kube-controller-manager", n, podSpecFields()),
			managedFields("v1", "kubelet", n, podStatusFields())[0]),
	}
	if controlled {
		meta["ownerReferences"] = []interface{}{map[string]interface{}{
			"apiVersion": "apps/v1", "blockOwnerDeletion": true, "controller": true, "kind": "ReplicaSet",
			"name": "worker-6d4cf56db6", "uid": uid(8, n/10),
		}}
	}
	return map[string]interface{}{
		"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
		"status": map[string]interface{}{
			"phase": "Running", "hostIP": "10.0." + strconv.Itoa(n%250) + ".1", "podIP": "10.244." + strconv.Itoa(n%250) + "." + strconv.Itoa(n%200),
			"qosClass": "BestEffort", "startTime": timestamp(n),
			"conditions": []interface{}{
				map[string]interface{}{"type": "Ready", "status": "True", "lastProbeTime": nil, "lastTransitionTime": timestamp(n)},
				map[string]interface{}{"type": "PodScheduled", "status": "True", "lastProbeTime": nil, "lastTransitionTime": timestamp(n)},
			},
			"resourceClaimStatuses": []interface{}{map[string]interface{}{"name": "accel", "resourceClaimName": name + "-accel-" + fmt.Sprintf("%05x", n%0xfffff)}},
			"containerStatuses": []interface{}{map[string]interface{}{
				"name": "worker", "image": "registry.example.com/ml/worker:1.4.2", "imageID": "registry.example.com/ml/worker@sha256:" + fmt.Sprintf("%064x", n),
				"containerID": "containerd://" + fmt.Sprintf("%064x", n*31), "ready": true, "restartCount": json.Number("0"), "started": true,
				"state": map[string]interface{}{"running": map[string]interface{}{"startedAt": timestamp(n)}},
			}},
		},
	}
}

func deployment(ns string, n int) map[string]interface{} {
	spec := podSpec("claim-0")
	return map[string]interface{}{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]interface{}{
			"annotations":       map[string]interface{}{"deployment.kubernetes.io/revision": "1"},
			"creationTimestamp": timestamp(n), "generation": json.Number("1"),
			"name": "worker", "namespace": ns, "resourceVersion": strconv.Itoa(11000 + n), "uid": uid(9, n),
		},
		"spec": map[string]interface{}{
			"replicas": json.Number("10"), "selector": map[string]interface{}{"matchLabels": map[string]interface{}{"app": "worker"}},
			"template": map[string]interface{}{
				"metadata": map[string]interface{}{"creationTimestamp": nil, "labels": map[string]interface{}{"app": "worker"}},
				"spec":     spec,
			},
		},
		"status": map[string]interface{}{"availableReplicas": json.Number("10"), "readyReplicas": json.Number("10"), "replicas": json.Number("10"), "observedGeneration": json.Number("1")},
	}
}

// podSpecFields and podStatusFields are the managedFields of a pod's
// creator and its kubelet, as a 1.30 apiserver records them: on real pods
// they are a good part of the export.
func podSpecFields() map[string]interface{} {
	e := map[string]interface{}{}
	container := map[string]interface{}{".": e}
	for _, f := range []string{"args", "command", "image", "imagePullPolicy", "name", "terminationMessagePath", "terminationMessagePolicy"} {
		container["f:"+f] = e
	}
	container["f:env"] = map[string]interface{}{".": e, `k:{"name":"MODEL"}`: map[string]interface{}{".": e, "f:name": e, "f:value": e}}
	container["f:resources"] = map[string]interface{}{"f:claims": map[string]interface{}{".": e, `k:{"name":"accel"}`: map[string]interface{}{".": e, "f:name": e}, `k:{"name":"shared"}`: map[string]interface{}{".": e, "f:name": e}}}
	spec := map[string]interface{}{
		"f:containers": map[string]interface{}{`k:{"name":"worker"}`: container},
		"f:resourceClaims": map[string]interface{}{".": e,
			`k:{"name":"accel"}`:  map[string]interface{}{".": e, "f:name": e, "f:source": map[string]interface{}{".": e, "f:resourceClaimTemplateName": e}},
			`k:{"name":"shared"}`: map[string]interface{}{".": e, "f:name": e, "f:source": map[string]interface{}{".": e, "f:resourceClaimName": e}},
		},
	}
	for _, f := range []string{"dnsPolicy", "enableServiceLinks", "restartPolicy", "schedulerName", "securityContext", "terminationGracePeriodSeconds"} {
		spec["f:"+f] = e
	}
	return map[string]interface{}{
		"f:metadata": map[string]interface{}{"f:labels": map[string]interface{}{".": e, "f:app": e}, "f:ownerReferences": map[string]interface{}{".": e}},
		"f:spec":     spec,
	}
}

func podStatusFields() map[string]interface{} {
	e := map[string]interface{}{}
	cond := func(t string) map[string]interface{} {
		return map[string]interface{}{".": e, "f:lastProbeTime": e, "f:lastTransitionTime": e, "f:status": e, "f:type": e}
	}
	return map[string]interface{}{"f:status": map[string]interface{}{
		"f:conditions": map[string]interface{}{
			`k:{"type":"ContainersReady"}`: cond("ContainersReady"), `k:{"type":"Initialized"}`: cond("Initialized"),
			`k:{"type":"PodReadyToStartContainers"}`: cond("PodReadyToStartContainers"), `k:{"type":"Ready"}`: cond("Ready"),
		},
		"f:containerStatuses": e, "f:hostIP": e, "f:hostIPs": e, "f:phase": e, "f:podIP": e,
		"f:podIPs":    map[string]interface{}{".": e, `k:{"ip":"10.244.0.1"}`: map[string]interface{}{".": e, "f:ip": e}},
		"f:startTime": e,
	}}
}
