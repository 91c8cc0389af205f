// Package securemetrics protects a metrics handler: only requests whose
// bearer token the API server authenticates (TokenReview) and whose user
// may `get` the non-resource URL /metrics (SubjectAccessReview) get
// through — controller-runtime's
// metrics/filters.WithAuthenticationAndAuthorization, as kubebuilder
// projects do by default. The webhook server serves the protected handler
// over HTTPS with its own serving certificate (webhook.Config.MetricsFilter).
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
