package migrate

import "testing"

func TestUsesClaims(t *testing.T) {
	spec := func(claims interface{}) map[string]interface{} {
		s := map[string]interface{}{"containers": []interface{}{map[string]interface{}{"name": "c"}}}
		if claims != nil {
			s["resourceClaims"] = claims
		}
		return s
	}
	template := func(claims interface{}) map[string]interface{} {
		return map[string]interface{}{"template": map[string]interface{}{"spec": spec(claims)}}
	}
	one := []interface{}{map[string]interface{}{"name": "gpu", "resourceClaimName": "a"}}
	for name, tt := range map[string]struct {
		obj  map[string]interface{}
		want bool
	}{
		"pod":                {map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "spec": spec(one)}, true},
		"pod-without":        {map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "spec": spec(nil)}, false},
		"pod-empty":          {map[string]interface{}{"apiVersion": "v1", "kind": "Pod", "spec": spec([]interface{}{})}, false},
		"deployment":         {map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "spec": template(one)}, true},
		"deployment-without": {map[string]interface{}{"apiVersion": "apps/v1", "kind": "Deployment", "spec": template(nil)}, false},
		"cronjob": {map[string]interface{}{"apiVersion": "batch/v1", "kind": "CronJob",
			"spec": map[string]interface{}{"jobTemplate": map[string]interface{}{"spec": template(one)}}}, true},
		"podtemplate": {map[string]interface{}{"apiVersion": "v1", "kind": "PodTemplate", "template": map[string]interface{}{"spec": spec(one)}}, true},
		"claim":       {map[string]interface{}{"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "spec": spec(one)}, false},
	} {
		if got := UsesClaims(tt.obj); got != tt.want {
			t.Errorf("%s: UsesClaims %v, want %v", name, got, tt.want)
		}
	}
}
