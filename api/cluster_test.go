package api

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFeatureGates: --feature-gates as kube-apiserver reads them: a gate
// named wins over AllAlpha and AllBeta, which set only the gates of their
// stage that are not locked; an unknown gate, a value that is no boolean
// and a locked gate set against its lock are refused in its words.
func TestFeatureGates(t *testing.T) {
	for name, tc := range map[string]struct {
		minor   int
		flag    string
		on, off []string
		err     string
	}{
		"defaults-1.35": {minor: 35, on: []string{"DynamicResourceAllocation", "DRAPrioritizedList", "DRAAdminAccess"},
			off: []string{"DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceTaints", "NoSuchGate"}},
		"defaults-1.36": {minor: 36, on: []string{"DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceTaints"}},
		"set": {minor: 35, flag: "DRAPartitionableDevices=true, DRAPrioritizedList=false",
			on: []string{"DRAPartitionableDevices"}, off: []string{"DRAPrioritizedList", "DRAConsumableCapacity"}},
		"all-alpha": {minor: 35, flag: "AllAlpha=true,DRADeviceTaints=false",
			on: []string{"DRAPartitionableDevices", "DRAConsumableCapacity", "DynamicResourceAllocation"}, off: []string{"DRADeviceTaints"}},
		"named-wins-whatever-the-order": {minor: 35, flag: "DRADeviceTaints=false,AllAlpha=true", off: []string{"DRADeviceTaints"}, on: []string{"DRAConsumableCapacity"}},
		"all-beta-off":                  {minor: 35, flag: "AllBeta=false", off: []string{"DRAPrioritizedList", "DRAAdminAccess"}, on: []string{"DynamicResourceAllocation"}},
		"later-wins":                    {minor: 35, flag: "DRADeviceTaints=true,DRADeviceTaints=false", off: []string{"DRADeviceTaints"}},
		"unknown":                       {minor: 33, flag: "DRAConsumableCapacity=true", err: "unrecognized feature gate: DRAConsumableCapacity (Kubernetes 1.33 has "},
		"locked":                        {minor: 35, flag: "DynamicResourceAllocation=false", err: "cannot set feature gate DynamicResourceAllocation to false, feature is locked to true"},
		"not-a-bool":                    {minor: 35, flag: "DRADeviceTaints=yes", err: `invalid value of DRADeviceTaints=yes, err: strconv.ParseBool: parsing "yes": invalid syntax`},
		"no-value":                      {minor: 35, flag: "DRADeviceTaints", err: "missing bool value for DRADeviceTaints"},
	} {
		t.Run(name, func(t *testing.T) {
			c := Defaults(tc.minor)
			err := c.SetFeatureGates(tc.flag)
			if err == nil {
				err = c.Validate()
			}
			if got := errString(err); !hasPrefix(got, tc.err) {
				t.Fatalf("error %q, want %q", got, tc.err)
			}
			for _, g := range tc.on {
				if !c.Enabled(g) {
					t.Errorf("%s is off", g)
				}
			}
			for _, g := range tc.off {
				if c.Enabled(g) {
					t.Errorf("%s is on", g)
				}
			}
		})
	}
}

// TestServes: from 1.34 a release serves the betas only with
// --runtime-config, api/all and api/beta included, and the most specific
// key wins; before, the versions a DRA cluster is started with; alpha
// versions beside the release's own only when enabled.
func TestServes(t *testing.T) {
	for name, tc := range map[string]struct {
		minor         int
		runtime       string
		version, kind string
		want          bool
	}{
		"1.37-v1":                  {37, "", V1, KindDeviceClass, true},
		"1.37-v1beta1":             {37, "", V1beta1, KindDeviceClass, false},
		"1.37-v1beta1-enabled":     {37, "resource.k8s.io/v1beta1=true", V1beta1, KindDeviceClass, true},
		"1.37-api-all":             {37, "api/all=true", V1beta2, KindResourceSlice, true},
		"1.37-api-beta":            {37, "api/beta=true", V1beta1, KindClaim, true},
		"1.37-specific-wins":       {37, "api/all=true,resource.k8s.io/v1beta1=false", V1beta1, KindClaim, false},
		"1.37-resource-key":        {37, "resource.k8s.io/v1beta1/deviceclasses=true", V1beta1, KindDeviceClass, true},
		"1.37-other-resource":      {37, "resource.k8s.io/v1beta1/deviceclasses=true", V1beta1, KindClaim, false},
		"1.37-v1-off":              {37, "resource.k8s.io/v1=false", V1, KindClaim, false},
		"1.37-v1alpha1-gone":       {37, "", V1alpha1, KindClaim, false},
		"1.34-v1beta2":             {34, "", V1beta2, KindClaim, false},
		"1.33-v1beta2":             {33, "", V1beta2, KindClaim, true},
		"1.33-v1beta1":             {33, "", V1beta1, KindClaim, true},
		"1.33-taint-rule-alpha":    {33, "", V1alpha3, KindDeviceTaintRule, false},
		"1.33-taint-rule-enabled":  {33, "resource.k8s.io/v1alpha3=true", V1alpha3, KindDeviceTaintRule, true},
		"1.32-v1alpha3":            {32, "", V1alpha3, KindClaim, false},
		"1.32-v1alpha3-api-all":    {32, "api/all=true", V1alpha3, KindDeviceClass, true},
		"1.33-v1alpha3-api-all":    {33, "api/all=true", V1alpha3, KindClaim, true},
		"1.34-v1alpha3-gone":       {34, "api/all=true", V1alpha3, KindTemplate, false},
		"1.31-v1alpha3-own":        {31, "", V1alpha3, KindClaim, true},
		"1.30-v1alpha2-own":        {30, "", V1alpha2, KindResourceSlice, true},
		"1.36-taint-rule-v1beta2":  {36, "", V1beta2, KindDeviceTaintRule, false},
		"1.36-taint-rule-runtime":  {36, "resource.k8s.io/v1beta2=true", V1beta2, KindDeviceTaintRule, true},
		"1.37-taint-rule-v1":       {37, "", V1, KindDeviceTaintRule, true},
		"1.37-list-kind":           {37, "", V1, KindDeviceClass + "List", true},
		"1.34-resource-slice-list": {34, "", V1beta1, KindResourceSlice + "List", false},
	} {
		t.Run(name, func(t *testing.T) {
			c := Defaults(tc.minor)
			if err := c.SetRuntimeConfig(tc.runtime); err != nil {
				t.Fatal(err)
			}
			if got := c.Serves(tc.version, tc.kind); got != tc.want {
				t.Errorf("Serves(%s, %s) = %t with %q on 1.%d", tc.version, tc.kind, got, tc.runtime, tc.minor)
			}
		})
	}
}

func TestRuntimeConfigRefused(t *testing.T) {
	for flag, want := range map[string]string{
		"resource.k8s.io/v1=maybe":   `invalid value of resource.k8s.io/v1: maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`,
		"resource.k8s.io/v1beta9":    "group version resource.k8s.io/v1beta9 that has not been registered (Kubernetes 1.35 has v1alpha3, v1beta1, v1beta2, v1)",
		"resource.k8s.io/v1alpha2=1": "group version resource.k8s.io/v1alpha2 that has not been registered (Kubernetes 1.35 has v1alpha3, v1beta1, v1beta2, v1)",
	} {
		c := Defaults(35)
		if got := errString(c.SetRuntimeConfig(flag)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", flag, got, want)
		}
	}
}

// TestDRAOffBefore134: before 1.34, Defaults is a cluster with DRA on as
// its users turn it on (Sketch names the flags); told otherwise, or Bare,
// it serves no resource.k8s.io.
func TestDRAOffBefore134(t *testing.T) {
	set := func(c Cluster, gates, runtime string) Cluster {
		if err := c.Set(gates, runtime); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for name, tc := range map[string]struct {
		c             Cluster
		version, kind string
		want          bool
	}{
		"defaults":          {Defaults(33), V1beta2, KindClaim, true},
		"bare":              {Bare(33), V1beta2, KindClaim, false},
		"gate-off":          {set(Defaults(33), "DynamicResourceAllocation=false", ""), V1beta2, KindClaim, false},
		"v1beta1-off":       {set(Defaults(33), "", "resource.k8s.io/v1beta1=false"), V1beta1, KindDeviceClass, false},
		"v1beta2-stays":     {set(Defaults(33), "", "resource.k8s.io/v1beta1=false"), V1beta2, KindDeviceClass, true},
		"bare-with-flags":   {set(Bare(32), "DynamicResourceAllocation=true", "resource.k8s.io/v1beta1=true"), V1beta1, KindClaim, true},
		"bare-without-beta": {set(Bare(32), "DynamicResourceAllocation=true", ""), V1beta1, KindClaim, false},
		"1.34-bare":         {Bare(34), V1, KindClaim, true},
	} {
		if got := tc.c.Serves(tc.version, tc.kind); got != tc.want {
			t.Errorf("%s: Serves(%s, %s) = %t, want %t", name, tc.version, tc.kind, got, tc.want)
		}
	}
	for minor, want := range map[int]string{
		26: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha1=true",
		33: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true",
		34: "",
	} {
		if got := Defaults(minor).Sketch(); got != want {
			t.Errorf("1.%d: Sketch() = %q, want %q", minor, got, want)
		}
	}
}

// TestUpgrade: an upgrade or a rollback in place keeps the apiserver's
// flags (what a live cluster runs with other than its release's defaults);
// the target refuses, in kube-apiserver's words, what it cannot start with,
// and names what it lacks to serve DRA; the target has the mends applied.
func TestUpgrade(t *testing.T) {
	live := func(minor int, gates map[string]bool, served ...string) Cluster {
		c := Bare(minor)
		c.SetEnabled(gates)
		c.SetServed(served)
		return c
	}
	told := func(minor int, gates, runtime string) Cluster {
		c := Bare(minor)
		if err := c.Set(gates, runtime); err != nil {
			t.Fatal(err)
		}
		return c
	}
	for name, tc := range map[string]struct {
		from     Cluster
		to       int
		settings string
		refusals []Refusal
	}{
		"1.35-to-1.36-keeps-what-is-not-default": {
			from:     live(35, map[string]bool{"DRAPartitionableDevices": true, "DRAPrioritizedList": true, "DRADeviceTaints": false}, V1, V1beta1),
			to:       36,
			settings: "--feature-gates=DRAPartitionableDevices=true --runtime-config=resource.k8s.io/v1beta1=true",
		},
		"1.35-to-1.36-told": {
			from:     told(35, "DRAConsumableCapacity=true,DRAPrioritizedList=false", ""),
			to:       36,
			settings: "--feature-gates=DRAConsumableCapacity=true,DRAPrioritizedList=false",
		},
		"1.30-to-1.31-v1alpha2-not-registered": {
			from:     live(30, map[string]bool{DynamicResourceAllocation: true}, V1alpha2),
			to:       31,
			settings: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true",
			refusals: []Refusal{
				{"--runtime-config=resource.k8s.io/v1alpha2=true", "group version resource.k8s.io/v1alpha2 that has not been registered",
					"drop it: Kubernetes 1.31 no longer has resource.k8s.io/v1alpha2; its DRA version is resource.k8s.io/v1alpha3 (--runtime-config=resource.k8s.io/v1alpha3=true)"},
				{"--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true",
					"Kubernetes 1.31 serves no resource.k8s.io without these flags: its DRA objects would be out of reach", "start it with them"},
			},
		},
		"1.31-to-1.32-gate-removed": {
			from:     told(31, "DynamicResourceAllocation=true,DRAControlPlaneController=true", "resource.k8s.io/v1alpha3=true"),
			to:       32,
			settings: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1alpha3=true,resource.k8s.io/v1beta1=true",
			refusals: []Refusal{
				{"--feature-gates=DRAControlPlaneController=true", "unrecognized feature gate: DRAControlPlaneController", "drop it: Kubernetes 1.32 removed the gate and the feature"},
				{"--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
					"Kubernetes 1.32's kube-scheduler, kube-controller-manager and kubelet read DRA objects through what these flags serve: without them no claim is allocated nor prepared", "start it with them"},
			},
		},
		"1.33-to-1.32-v1beta2-not-registered": {
			from:     live(33, map[string]bool{DynamicResourceAllocation: true}, V1beta1, V1beta2),
			to:       32,
			settings: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
			refusals: []Refusal{
				{"--runtime-config=resource.k8s.io/v1beta2=true", "group version resource.k8s.io/v1beta2 that has not been registered",
					"drop it: Kubernetes 1.32 never had resource.k8s.io/v1beta2; its DRA version is resource.k8s.io/v1beta1 (--runtime-config=resource.k8s.io/v1beta1=true)"},
			},
		},
		"1.34-to-1.33-lacks-dra": {
			from:     live(34, nil, V1),
			to:       33,
			settings: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
			refusals: []Refusal{
				{"--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
					"Kubernetes 1.33 serves no resource.k8s.io without these flags: its DRA objects would be out of reach", "start it with them"},
			},
		},
		"1.36-to-1.37-locked": {
			from:     told(36, "DRAPrioritizedList=false,DRAConsumableCapacity=true", ""),
			to:       37,
			settings: "--feature-gates=DRAConsumableCapacity=true",
			refusals: []Refusal{
				{"--feature-gates=DRAPrioritizedList=false", "cannot set feature gate DRAPrioritizedList to false, feature is locked to true", "drop it: Kubernetes 1.37 has it GA and always on"},
			},
		},
		"1.36-to-1.37-dependency-off": {
			from:     told(36, "DRADeviceTaints=false", ""),
			to:       37,
			settings: "",
			refusals: []Refusal{
				{"--feature-gates=DRADeviceTaints=false", "DRADeviceTaintRules is enabled, but depends on features that are disabled: [DRADeviceTaints]",
					"drop DRADeviceTaints=false: DRADeviceTaintRules is on by default in 1.37 and needs it"},
			},
		},
		"1.34-to-1.33-gate-new": {
			from:     told(34, "DRAConsumableCapacity=true", ""),
			to:       33,
			settings: "--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
			refusals: []Refusal{
				{"--feature-gates=DRAConsumableCapacity=true", "unrecognized feature gate: DRAConsumableCapacity", "drop it: Kubernetes 1.33 does not have it yet"},
				{"--feature-gates=DynamicResourceAllocation=true --runtime-config=resource.k8s.io/v1beta1=true",
					"Kubernetes 1.33 serves no resource.k8s.io without these flags: its DRA objects would be out of reach", "start it with them"},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			target, refusals := tc.from.Upgrade(tc.to)
			if diff := cmp.Diff(tc.refusals, refusals); diff != "" {
				t.Errorf("refusals (-want +got):\n%s", diff)
			}
			if got := target.SettingsString(); got != tc.settings {
				t.Errorf("target settings %q, want %q", got, tc.settings)
			}
		})
	}
}

func TestGateOff(t *testing.T) {
	c := Defaults(35)
	if got, want := c.GateOff("DRAPartitionableDevices"), "its DRAPartitionableDevices feature gate is off by default (on from 1.36)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := c.SetFeatureGates("DRAPrioritizedList=false"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("its DRAPrioritizedList feature gate is off", c.GateOff("DRAPrioritizedList")); diff != "" {
		t.Error(diff)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func hasPrefix(s, prefix string) bool { return len(s) >= len(prefix) && s[:len(prefix)] == prefix }
