package selfmanaged

import (
	"net/http"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
)

// withSecretNameSelector returns a copy of cfg whose list and watch requests
// for the Secrets of namespace carry fieldSelector=metadata.name=name when
// they carry no field selector of their own. cert-controller's cache lists
// and watches every Secret of its namespace and takes no selector; with this
// it asks for the one Secret only, so that RBAC can limit list and watch to
// that name (resourceNames authorizes a list or watch only with a matching
// metadata.name field selector) and the token reads no other Secret.
func withSecretNameSelector(cfg *rest.Config, namespace, name string) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	// Hosts may carry a path prefix (an API proxy): match the path's end.
	collection := "/api/v1/namespaces/" + namespace + "/secrets"
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
			q := req.URL.Query()
			if req.Method != http.MethodGet || !strings.HasSuffix(req.URL.Path, collection) || q.Get("fieldSelector") != "" {
				return rt.RoundTrip(req)
			}
			q.Set("fieldSelector", selector)
			req = req.Clone(req.Context())
			u := *req.URL
			u.RawQuery = q.Encode()
			req.URL = &u
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
