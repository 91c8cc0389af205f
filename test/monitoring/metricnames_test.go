// Package monitoring checks the alert rules and the Grafana dashboard shipped
// in charts/claimbridge/files against the metrics a real claimbridge server
// exports: every claimbridge_* name they use must appear in a scrape of the
// server after it has served each kind of request, so that a renamed metric
// cannot leave an alert silently never firing.
package monitoring

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/claimbridge/claimbridge/conversion"
	"github.com/claimbridge/claimbridge/webhook"
)

// external are the metric names the rules use that other exporters provide.
var external = []string{"kube_deployment_status_replicas_available", "up"}

var (
	ownName   = regexp.MustCompile(`\bclaimbridge_[a-z0-9_]+\b`)
	otherName = regexp.MustCompile(`\b(kube_[a-z0-9_]+|up)\{`)
)

type ruleFile struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

func chartFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "charts", "claimbridge", "files", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ruleExprs returns every alert's expression, checking the fields each alert
// must have.
func ruleExprs(t *testing.T) []string {
	var rf ruleFile
	if err := yaml.UnmarshalStrict(chartFile(t, "alerts.yaml"), &rf); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	var exprs []string
	for _, g := range rf.Groups {
		for _, r := range g.Rules {
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" || r.Annotations["description"] == "" {
				t.Errorf("alert %q: needs alert, expr, summary and description", r.Alert)
			}
			if s := r.Labels["severity"]; s != "warning" && s != "critical" {
				t.Errorf("alert %s: severity %q, want warning or critical", r.Alert, s)
			}
			exprs = append(exprs, r.Expr)
		}
	}
	if len(exprs) == 0 {
		t.Fatal("alerts.yaml holds no alert")
	}
	return exprs
}

// dashboardExprs returns the expressions of every panel target and template
// variable query.
func dashboardExprs(t *testing.T) []string {
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(chartFile(t, "dashboard.json"), &d); err != nil {
		t.Fatalf("dashboard.json: %v", err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, string(v.Query))
	}
	return exprs
}

// namesIn returns the sorted distinct claimbridge_* names in exprs.
func namesIn(exprs []string) []string {
	var names []string
	for _, e := range exprs {
		for _, n := range ownName.FindAllString(e, -1) {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

func TestRulesAndDashboardUseExportedMetrics(t *testing.T) {
	exported := scrape(t)
	rules, dashboard := ruleExprs(t), dashboardExprs(t)

	for _, c := range []struct {
		name  string
		exprs []string
	}{{"alerts.yaml", rules}, {"dashboard.json", dashboard}} {
		names := namesIn(c.exprs)
		if len(names) == 0 {
			t.Errorf("%s uses no claimbridge metric", c.name)
		}
		for _, n := range names {
			if !exported[n] {
				t.Errorf("%s uses %s, which the server does not export", c.name, n)
			}
		}
	}

	var others []string
	for _, e := range rules {
		for _, m := range otherName.FindAllStringSubmatch(e, -1) {
			if !slices.Contains(others, m[1]) {
				others = append(others, m[1])
			}
		}
	}
	slices.Sort(others)
	if diff := cmp.Diff(external, others); diff != "" {
		t.Errorf("metrics from other exporters in alerts.yaml (-want +got):\n%s", diff)
	}

	// Each subject of #11 and #13's overload has an alert and a dashboard panel.
	for _, want := range []struct{ in, name string }{
		{"rules", "claimbridge_webhook_requests_total"},
		{"rules", "claimbridge_webhook_request_duration_seconds_bucket"},
		{"rules", "claimbridge_certificate_expiration_timestamp_seconds"},
		{"rules", "claimbridge_certificate_ca_expiration_timestamp_seconds"},
		{"rules", "claimbridge_webhook_shed_total"},
		{"rules", "claimbridge_webhook_connections_abandoned_total"},
		{"rules", "claimbridge_webhook_listen_refusing"},
		{"dashboard", "claimbridge_conversion_objects_total"},
		{"dashboard", "claimbridge_webhook_requests_in_flight"},
		{"dashboard", "claimbridge_webhook_shed_total"},
		{"dashboard", "claimbridge_webhook_queued_reviews"},
		{"dashboard", "claimbridge_webhook_connections_abandoned_total"},
		{"dashboard", "claimbridge_webhook_listen_refusing"},
		{"dashboard", "claimbridge_certificate_not_before_timestamp_seconds"},
	} {
		exprs := rules
		if want.in == "dashboard" {
			exprs = dashboard
		}
		if !slices.Contains(namesIn(exprs), want.name) {
			t.Errorf("%s do not use %s", want.in, want.name)
		}
	}
}

// scrape runs a server, sends it a conversion, a conversion that fails (the
// converter panics) and a validation, and returns the names of the samples on
// /metrics.
func scrape(t *testing.T) map[string]bool {
	t.Helper()
	cfg := webhook.Config{
		BindAddress:          "127.0.0.1",
		CertDir:              t.TempDir(),
		MetricsAddress:       "127.0.0.1:0",
		MaxConvertBodyBytes:  64 << 20,
		MaxValidateBodyBytes: 7 << 20,
		MaxJSONDepth:         1000,
		RequestTimeout:       30 * time.Second,
		ShutdownTimeout:      30 * time.Second,
		// As claimbridge serve's defaults: the connection limiter's metrics
		// are exported only with a limit, the accept queue's and the
		// listener's only with an overload backlog (Linux).
		MaxConnections:        32,
		OverloadListenBacklog: 64,
		OverloadRefuseAfter:   time.Second,
	}
	cfg.Converter = func(obj map[string]interface{}, to string) (map[string]interface{}, error) {
		if md, _ := obj["metadata"].(map[string]interface{}); md["name"] == "panic" {
			panic("test panic")
		}
		return conversion.Convert(obj, to)
	}
	srv, err := webhook.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case <-srv.Started():
	case err := <-done:
		t.Fatalf("server stopped: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}

	claim, err := os.ReadFile(filepath.Join("..", "..", "webhook", "testdata", "claim-v1alpha1.json"))
	if err != nil {
		t.Fatal(err)
	}
	panicky := bytes.Replace(claim, []byte(`"name":"gpu-claim"`), []byte(`"name":"panic"`), 1)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the test CA is irrelevant here
	}}
	base := "https://" + srv.Addr().String()
	post := func(path, body string, wantStatus int) {
		t.Helper()
		resp, err := client.Post(base+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		if resp.StatusCode != wantStatus {
			t.Fatalf("POST %s: status %d, want %d", path, resp.StatusCode, wantStatus)
		}
	}
	review := func(obj []byte) string {
		return fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"ConversionReview","request":{"uid":"u1","desiredAPIVersion":"resource.claimbridge.dev/v1alpha3","objects":[%s]}}`, obj)
	}
	post("/convert", review(claim), http.StatusOK)
	post("/convert", review(panicky), http.StatusOK) // a failed review
	post("/validate", fmt.Sprintf(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u2","kind":{"group":"resource.claimbridge.dev","version":"v1alpha1","kind":"ResourceClaim"},"resource":{"group":"resource.claimbridge.dev","version":"v1alpha1","resource":"resourceclaims"},"namespace":"team-a","operation":"CREATE","object":%s}}`, claim), http.StatusOK)

	resp, err := http.Get("http://" + srv.MetricsAddr().String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	names := map[string]bool{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, "{")
		names[name] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return names
}
