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
		"1.33-v1alpha3-gone":       {33, "api/all=true", V1alpha3, KindClaim, false},
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
		"resource.k8s.io/v1beta9":    "unknown api groups resource.k8s.io/v1beta9: Kubernetes 1.35 has v1alpha3, v1beta1, v1beta2, v1",
		"resource.k8s.io/v1alpha2=1": "unknown api groups resource.k8s.io/v1alpha2: Kubernetes 1.35 has v1alpha3, v1beta1, v1beta2, v1",
	} {
		c := Defaults(35)
		if got := errString(c.SetRuntimeConfig(flag)); got != want {
			t.Errorf("%s:\n got %s\nwant %s", flag, got, want)
		}
	}
}

// TestOn: an upgrade keeps the apiserver's flags: what differs from the
// old release's defaults (of all the gates a live cluster reports), where
// the new release has it and does not lock it.
func TestOn(t *testing.T) {
	c := Defaults(35)
	c.SetEnabled(map[string]bool{"DRAPartitionableDevices": true, "DRAPrioritizedList": true, "DRADeviceTaints": false})
	c.SetServed([]string{V1, V1beta1})
	next := c.On(36)
	if got, want := next.SettingsString(), "--feature-gates=DRAPartitionableDevices=true --runtime-config=resource.k8s.io/v1beta1=true"; got != want {
		t.Errorf("1.35 → 1.36: %s, want %s", got, want)
	}
	c = Defaults(35)
	if err := c.SetFeatureGates("DRAConsumableCapacity=true,DRAPrioritizedList=false"); err != nil {
		t.Fatal(err)
	}
	if got, want := c.On(36).SettingsString(), "--feature-gates=DRAConsumableCapacity=true,DRAPrioritizedList=false"; got != want {
		t.Errorf("1.35 → 1.36: %s, want %s", got, want)
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
