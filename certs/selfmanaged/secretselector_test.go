package selfmanaged

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/client-go/rest"
)

func TestWithSecretNameSelector(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
		mu.Unlock()
	}))
	defer srv.Close()
	cfg := withSecretNameSelector(&rest.Config{Host: srv.URL + "/proxy"}, "ns", "cert")
	c, err := rest.HTTPClientFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct{ method, path string }{
		{http.MethodGet, "/proxy/api/v1/namespaces/ns/secrets?watch=true&resourceVersion=1"},                      // narrowed
		{http.MethodGet, "/proxy/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dother"},               // its own selector
		{http.MethodGet, "/proxy/api/v1/namespaces/ns/secrets/cert"},                                              // a get
		{http.MethodPut, "/proxy/api/v1/namespaces/ns/secrets"},                                                   // not a read
		{http.MethodGet, "/proxy/api/v1/namespaces/other/secrets"},                                                // another namespace
		{http.MethodGet, "/proxy/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?limit=500"}, // another resource
	} {
		req, err := http.NewRequest(r.method, srv.URL+r.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	want := []string{
		"GET /proxy/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dcert&resourceVersion=1&watch=true",
		"GET /proxy/api/v1/namespaces/ns/secrets?fieldSelector=metadata.name%3Dother",
		"GET /proxy/api/v1/namespaces/ns/secrets/cert?",
		"PUT /proxy/api/v1/namespaces/ns/secrets?",
		"GET /proxy/api/v1/namespaces/other/secrets?",
		"GET /proxy/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations?limit=500",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
