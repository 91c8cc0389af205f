// Package securemetrics protects a metrics handler as kubebuilder projects
// do, with controller-runtime's filters.WithAuthenticationAndAuthorization:
// a request gets through when the API server authenticates its bearer token
// (TokenReview) and lets its user get /metrics (SubjectAccessReview).
package securemetrics

import (
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

// Filter returns a function that wraps a handler in the authentication and
// authorization filter; restConfig reaches the API server.
func Filter(restConfig *rest.Config, log logr.Logger) (func(http.Handler) (http.Handler, error), error) {
	httpClient, err := rest.HTTPClientFor(restConfig)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication client: %w", err)
	}
	filter, err := filters.WithAuthenticationAndAuthorization(restConfig, httpClient)
	if err != nil {
		return nil, fmt.Errorf("metrics authentication filter: %w", err)
	}
	return func(h http.Handler) (http.Handler, error) {
		protected, err := filter(log, h)
		if err != nil {
			return nil, fmt.Errorf("metrics authentication filter: %w", err)
		}
		return protected, nil
	}, nil
}
