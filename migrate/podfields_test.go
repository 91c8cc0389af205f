package migrate

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"github.com/claimbridge/claimbridge/api"
)

// A Deployment of a 1.36 cluster whose pods use a DRA claim template, with
// fields that came in 1.27 (resizePolicy), 1.28 (a sidecar's
// restartPolicy), 1.29 (a sleep action), 1.30 (appArmorProfile), 1.31 (an
// image volume, a container's claim request), 1.34 (hostnameOverride) and
// 1.36 (schedulingGroup).
const deployment136 = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: trainer
  namespace: ml-training
  uid: 5f0c2a4e-9a51-4d47-8f0e-3b1f6d2e7a10
  resourceVersion: "48213"
  generation: 3
  creationTimestamp: "2026-03-02T10:11:12Z"
spec:
  replicas: 2
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      schedulingGroup: {podGroupName: trainers}
      hostnameOverride: trainer
      securityContext:
        appArmorProfile: {type: RuntimeDefault}
        runAsNonRoot: true
      resourceClaims:
      - {name: gpu, resourceClaimTemplateName: gpu-template}
      initContainers:
      - {name: fetch, image: registry.example.com/fetch:1.4, restartPolicy: Always}
      ephemeralContainers:
      - {name: debug, image: registry.example.com/debug:1, targetContainerName: trainer, lifecycle: {preStop: {sleep: {seconds: 1}}}}
      containers:
      - name: trainer
        image: registry.example.com/trainer:2.1
        resizePolicy: [{resourceName: cpu, restartPolicy: NotRequired}]
        lifecycle: {preStop: {sleep: {seconds: 5}}}
        resources:
          claims: [{name: gpu, request: big}]
        volumeMounts: [{name: model, mountPath: /models}]
      volumes:
      - name: model
        image: {reference: registry.example.com/models/llama:3, pullPolicy: IfNotPresent}
`

// TestPodFieldErrors: every field of a pod spec that the target release
// does not have is named, with the object's path, once (not its
// children); the fields a release has are not; Workload rewrites the
// resourceClaims fields before the check sees them.
func TestPodFieldErrors(t *testing.T) {
	since := func(path, releases string, minor int) string {
		return fmt.Sprintf("spec.template.spec.%s: Kubernetes %s has no such field (it came in 1.%d)", path, releases, minor)
	}
	all := func(releases string) []string {
		return []string{
			since("containers[0].lifecycle.preStop.sleep", releases, 29),
			since("containers[0].resizePolicy", releases, 27),
			since("ephemeralContainers[0].lifecycle.preStop.sleep", releases, 29),
			since("hostnameOverride", releases, 34),
			since("initContainers[0].restartPolicy", releases, 28),
			since("schedulingGroup", releases, 36),
			since("securityContext.appArmorProfile", releases, 30),
			since("volumes[0].image", releases, 31),
		}
	}
	tests := map[string][]string{
		api.V1alpha1: all("1.26"),
		api.V1alpha2: {since("hostnameOverride", "1.27–1.30", 34), since("schedulingGroup", "1.27–1.30", 36), since("volumes[0].image", "1.27–1.30", 31)},
		api.V1alpha3: {since("hostnameOverride", "1.31", 34), since("schedulingGroup", "1.31", 36)},
		api.V1beta1:  {since("hostnameOverride", "1.32", 34), since("schedulingGroup", "1.32", 36)},
		api.V1beta2:  {since("hostnameOverride", "1.33", 34), since("schedulingGroup", "1.33", 36)},
		api.V1:       nil,
	}
	in := obj(t, deployment136)
	for to, want := range tests {
		t.Run(to, func(t *testing.T) {
			out, _, ok := podShape(in, versionTarget(to))
			if !ok {
				out = in
			}
			if diff := cmp.Diff(want, podFieldErrors(out, versionTarget(to))); diff != "" {
				t.Errorf("PodFieldErrors --to %s (-want +got):\n%s", to, diff)
			}
		})
	}
}

// TestPodFieldWarnings: for a version served by several releases (v1alpha2:
// 1.27–1.30, v1: 1.34 on), a field the newest has and an older one lacks is
// a warning, naming the releases that lack it.
func TestPodFieldWarnings(t *testing.T) {
	warn := func(path, releases string, minor int) string {
		return fmt.Sprintf("spec.template.spec.%s: Kubernetes %s has no such field (it came in 1.%d): %s", path, releases, minor, podFieldConsequence)
	}
	tests := map[string][]string{
		api.V1alpha1: nil,
		api.V1alpha2: {
			warn("containers[0].lifecycle.preStop.sleep", "1.27–1.28", 29),
			warn("ephemeralContainers[0].lifecycle.preStop.sleep", "1.27–1.28", 29),
			warn("initContainers[0].restartPolicy", "1.27", 28),
			warn("securityContext.appArmorProfile", "1.27–1.29", 30),
		},
		api.V1alpha3: nil,
		api.V1beta1:  nil,
		api.V1beta2:  nil,
		api.V1:       {warn("schedulingGroup", "1.34–1.35", 36)},
	}
	in := obj(t, deployment136)
	for to, want := range tests {
		t.Run(to, func(t *testing.T) {
			out, _, ok := podShape(in, versionTarget(to))
			if !ok {
				out = in
			}
			if diff := cmp.Diff(want, podFieldWarnings(out, versionTarget(to))); diff != "" {
				t.Errorf("PodFieldWarnings --to %s (-want +got):\n%s", to, diff)
			}
		})
	}
}

// TestPodFieldErrorsEveryWorkload: the check finds the pod spec of every
// kind that has one, and says when a field was removed before the target.
func TestPodFieldErrorsEveryWorkload(t *testing.T) {
	tests := []struct{ name, in, to, want string }{{
		name: "pod-1.36-to-1.33",
		in: `
apiVersion: v1
kind: Pod
metadata: {name: gpu-pod, namespace: demo}
spec:
  resources: {limits: {cpu: "4"}}
  containers:
  - name: app
    image: registry.example.com/app:1
    env: [{name: TOKEN, valueFrom: {fileKeyRef: {volumeName: config, path: env, key: TOKEN}}}]
`,
		to:   api.V1beta2,
		want: "spec.containers[0].env[0].valueFrom.fileKeyRef: Kubernetes 1.33 has no such field (it came in 1.34)",
	}, {
		name: "cronjob-1.31-to-1.30",
		in: `
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: demo}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          securityContext: {supplementalGroupsPolicy: Strict}
          containers: [{name: report, image: registry.example.com/report:1}]
`,
		to:   api.V1alpha2,
		want: "spec.jobTemplate.spec.template.spec.securityContext.supplementalGroupsPolicy: Kubernetes 1.27–1.30 has no such field (it came in 1.31)",
	}, {
		name: "statefulset-1.35-to-1.36",
		in: `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: demo}
spec:
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      workloadRef: {name: db-gang, podGroup: members}
      containers: [{name: db, image: registry.example.com/db:16}]
`,
		to:   "1.36",
		want: "spec.template.spec.workloadRef: Kubernetes 1.36 has no such field (1.35 had it)",
	}, {
		name: "daemonset-1.28-to-1.30-ephemeral-claims",
		in: `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: demo}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers: [{name: agent, image: registry.example.com/agent:1}]
      volumes:
      - name: scratch
        ephemeral:
          volumeClaimTemplate:
            spec:
              accessModes: [ReadWriteOnce]
              resources: {requests: {storage: 1Gi}, claims: [{name: gpu}]}
`,
		to:   api.V1alpha2,
		want: "spec.template.spec.volumes[0].ephemeral.volumeClaimTemplate.spec.resources.claims: Kubernetes 1.30 has no such field (1.26–1.28 had it)",
	}, {
		name: "job-1.26-to-1.36-keeps-old-fields",
		in: `
apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: demo}
spec:
  template:
    spec:
      restartPolicy: Never
      resourceClaims: [{name: gpu, source: {resourceClaimTemplateName: gpu-template}}]
      containers: [{name: run, image: registry.example.com/run:1, resources: {claims: [{name: gpu}]}}]
`,
		to: api.V1,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := obj(t, tt.in)
			out, _, ok := podShape(in, versionTarget(tt.to))
			if !ok {
				out = in
			}
			var want []string
			if tt.want != "" {
				want = []string{tt.want}
			}
			if diff := cmp.Diff(want, podFieldErrors(out, versionTarget(tt.to))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestWorkloadObjectRefused: migrate refuses a workload with a field the
// target release does not have, naming the object, the release and each
// field; the report still says what was lost.
func TestWorkloadObjectRefused(t *testing.T) {
	_, r, err := migrateWorkload(obj(t, deployment136), versionTarget(api.V1alpha2), Options{})
	want := "Deployment ml-training/trainer: a Kubernetes 1.27–1.30 apiserver would reject the migrated object: " +
		"spec.template.spec.hostnameOverride: Kubernetes 1.27–1.30 has no such field (it came in 1.34); " +
		"spec.template.spec.schedulingGroup: Kubernetes 1.27–1.30 has no such field (it came in 1.36); " +
		"spec.template.spec.volumes[0].image: Kubernetes 1.27–1.30 has no such field (it came in 1.31)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
	if want := []string{"spec.template.spec.containers[0].resources.claims[0].request: Kubernetes 1.27–1.30 gives a container the whole claim"}; !cmp.Equal(r.Lost, want) {
		t.Errorf("lost %q, want %q", r.Lost, want)
	}
	out, r, err := migrateWorkload(obj(t, deployment136), versionTarget(api.V1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"metadata.uid", "metadata.resourceVersion", "metadata.generation", "metadata.creationTimestamp"}; !cmp.Equal(r.Dropped, want) {
		t.Errorf("dropped %q, want %q", r.Dropped, want)
	}
	if spec := out["spec"].(map[string]interface{})["template"].(map[string]interface{})["spec"].(map[string]interface{}); spec["schedulingGroup"] == nil {
		t.Errorf("--to v1 dropped schedulingGroup: %v", spec)
	}
}

// TestPodFieldTableMatchesModule keeps podfields_generated.go in step with
// the k8s.io/api of go.mod: it was generated from that version, every
// field it lists as present there (not a pre-release's) is a field of corev1.PodSpec, every
// field it lists as removed is not, and the PodSpec has as many field paths
// as the generator counted from the source (go run ./hack/podfields after a
// k8s.io/api update). The v1 target is that release.
func TestPodFieldTableMatchesModule(t *testing.T) {
	gomod, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^\s*k8s\.io/api (v\S+)`).FindSubmatch(gomod)
	if m == nil || string(m[1]) != podFieldsAPI {
		t.Fatalf("go.mod requires k8s.io/api %s, the table was generated from %s: run go generate ./migrate/", m[1], podFieldsAPI)
	}
	var minor int
	fmt.Sscanf(podFieldsAPI, "v0.%d.", &minor)
	if versionTarget(api.V1).Minor != minor {
		t.Errorf("versionTarget(v1).Minor = %d, want %d (the release of k8s.io/api %s)", versionTarget(api.V1).Minor, minor, podFieldsAPI)
	}
	paths := map[string]bool{}
	reflectPaths(reflect.TypeFor[corev1.PodSpec](), "", paths)
	if len(paths) != podFieldsCount {
		t.Errorf("corev1.PodSpec has %d field paths, the generator counted %d", len(paths), podFieldsCount)
	}
	for p, since := range podFieldReleases {
		if gone := podFieldsGone[p]; since <= minor && (gone == 0 || gone > minor) && !paths[p] { // a pre-release's come later
			t.Errorf("%s (1.%d) is not a field of corev1.PodSpec", p, since)
		}
	}
	for p, gone := range podFieldsGone {
		if gone <= minor && paths[p] {
			t.Errorf("%s, removed in 1.%d, is a field of corev1.PodSpec", p, gone)
		}
	}
}

// reflectPaths adds the JSON path of every field reachable from t, a type
// of core/v1, as hack/podfields names them; other packages' types are
// leaves.
func reflectPaths(t reflect.Type, prefix string, paths map[string]bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Slice:
		reflectPaths(t.Elem(), prefix+"[]", paths)
	case t.Kind() == reflect.Struct && t.PkgPath() == reflect.TypeFor[corev1.PodSpec]().PkgPath():
		for i := range t.NumField() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			switch {
			case f.Anonymous && name == "" && (opts == "inline" || f.Tag.Get("json") == ""):
				reflectPaths(f.Type, prefix, paths)
			case name != "" && name != "-" && f.IsExported():
				path := name
				if prefix != "" {
					path = prefix + "." + name
				}
				paths[path] = true
				reflectPaths(f.Type, path, paths)
			}
		}
	}
}
